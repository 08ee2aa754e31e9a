import type { ParkedEvent } from '../projections/read-model-projection';

/** A `parked_events` row as the SQL stores (SQLite, PostgreSQL) hold it. */
export type ParkedEventRow = {
  readonly projection: string;
  readonly position: string;
  readonly stream_id: string;
  readonly type: string;
  readonly error: string;
  readonly failures: number;
  readonly first_failed_at: string;
  readonly last_failed_at: string;
};

/** The row as the port's ParkedEvent, for both SQL stores, which had each mapped the same columns. */
export const parkedEventOfRow = (row: ParkedEventRow): ParkedEvent => ({
  readModel: row.projection,
  streamId: row.stream_id,
  position: BigInt(row.position),
  type: row.type,
  error: row.error,
  failures: row.failures,
  firstFailedAt: row.first_failed_at,
  lastFailedAt: row.last_failed_at,
});

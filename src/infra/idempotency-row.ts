import type { IdempotencyRecord } from '../ports/idempotency-keys';

/**
 * An idempotency key's row as the SQL stores keep it (SQLite and PostgreSQL share the columns);
 * integers come back as bigints from SQLite and as text from PostgreSQL's bigint columns.
 */
export type IdempotencyRow = {
  readonly fingerprint: string;
  readonly owner: string;
  readonly claimed_at: bigint | string;
  readonly expires_at: bigint | string;
  readonly write_stream: string | null;
  readonly write_position: bigint | string | null;
  readonly answer_status: bigint | number | null;
  readonly answer_type: string | null;
  readonly answer_body: string | null;
};

export function idempotencyRecordOf(row: IdempotencyRow): IdempotencyRecord {
  return {
    fingerprint: row.fingerprint,
    owner: row.owner,
    claimedAt: Number(row.claimed_at),
    expiresAt: Number(row.expires_at),
    ...(row.write_stream !== null && row.write_position !== null
      ? { write: { streamId: row.write_stream, position: BigInt(row.write_position) } }
      : {}),
    ...(row.answer_status !== null
      ? { answer: { status: Number(row.answer_status), contentType: row.answer_type, body: row.answer_body ?? '' } }
      : {}),
  };
}

import type pg from 'pg';
import { WrongExpectedRevisionError } from '../../ports/event-store';
import { IdempotencyClaimLostError } from '../../ports/idempotency-keys';
import type { AppendOutcome, StoredAppend } from '../stored-append';

/** One append's outcome from `log_append`: refused (`problem`), or its last revision and position. */
type Appended = {
  readonly problem: 'claim' | 'revision' | null;
  readonly revision: string | null;
  readonly log_position: string | null;
};

/**
 * The appends given, written by one statement on `client`: a call of `log_append`
 * (src/infra/postgres/migrations.ts), a transaction of its own, committed before it answers. On
 * the server, each append is checked in order against the log and the appends before it in the
 * batch (its claim, its expected revision), so one refused fails alone and nothing of it is
 * written; the accepted ones are numbered on from the log's end, hashed on from the chain's end,
 * written with each claim's first write, and the followers notified. One round trip, and the
 * log's row is locked for that statement only, never across a round trip to this process. Throws
 * when the statement fails (every append of the batch failed with it, nothing written).
 */
export async function commitBatch(
  client: pg.PoolClient,
  batch: readonly StoredAppend[],
  channel: string,
): Promise<AppendOutcome[]> {
  const events = batch.flatMap((append) => append.events);
  const { rows } = await client.query<Appended>({
    name: 'log_append',
    text: 'select problem, revision, log_position from log_append($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)',
    values: [
      batch.map((a) => a.streamId),
      batch.map((a) => (typeof a.expected === 'bigint' ? a.expected.toString() : a.expected)),
      batch.map((a) => a.claim?.scope ?? null),
      batch.map((a) => a.claim?.key ?? null),
      batch.map((a) => a.claim?.owner ?? null),
      batch.map((a) => a.events.length),
      events.map((e) => e.type),
      events.map((e) => e.data),
      events.map((e) => e.metadata),
      channel,
    ],
  });
  return batch.map(({ streamId, expected, claim }, i): AppendOutcome => {
    const { problem, revision, log_position: position } = rows[i]!;
    if (problem === 'claim') return { ok: false, error: new IdempotencyClaimLostError(claim!) };
    if (problem === 'revision')
      return {
        ok: false,
        error: new WrongExpectedRevisionError(streamId, expected, revision === null ? 'no_stream' : BigInt(revision)),
      };
    return { ok: true, result: { nextExpectedRevision: BigInt(revision!), position: BigInt(position!) } };
  });
}

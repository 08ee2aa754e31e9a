import type pg from 'pg';
import { WrongExpectedRevisionError } from '../../ports/event-store';
import { IdempotencyClaimLostError, type IdempotencyClaim } from '../../ports/idempotency-keys';
import { hashEventInto } from '../log-hash';
import type { AppendOutcome, StoredAppend } from '../stored-append';

type Reserved = {
  readonly head_position: string;
  readonly head_hash: Buffer;
  readonly stream_revisions: (string | null)[];
  readonly stream_positions: (string | null)[];
  readonly claims_held: boolean[];
};

const claimKey = (claim: IdempotencyClaim) => JSON.stringify([claim.scope, claim.key, claim.owner]);

/**
 * The appends given, written in one transaction on `client` (a connection in pipeline mode):
 *  1. `begin` and `log_reserve` sent together: the log's row locked until commit, then the last
 *     event of every stream of the batch and whether every claim is still held;
 *  2. each append checked in order against those and the appends before it in the batch (its
 *     claim, its expected revision), so one refused fails alone and nothing of it is written;
 *  3. the accepted events numbered on from the log's end and hashed on from the chain's end;
 *  4. one statement writing them all (events, the log's new end, each claim's first write, the
 *     followers' notification), sent together with `commit`.
 * The lock is held from 1 to the commit: one round trip, the hashing, and the commit. Throws when
 * the transaction itself fails (every append of the batch failed with it).
 */
export async function commitBatch(
  client: pg.PoolClient,
  batch: readonly StoredAppend[],
  channel: string,
): Promise<AppendOutcome[]> {
  const streams = [...new Set(batch.map((append) => append.streamId))];
  const claims = [...new Map(batch.flatMap((a) => (a.claim ? [[claimKey(a.claim), a.claim] as const] : []))).values()];
  const begin = client.query('begin isolation level read committed');
  const reserving = client.query<Reserved>({
    name: 'log_reserve',
    text: 'select * from log_reserve($1, $2, $3, $4)',
    values: [streams, claims.map((c) => c.scope), claims.map((c) => c.key), claims.map((c) => c.owner)],
  });
  // Both awaited, so that neither failure goes unobserved; a reserve that ran without its begin
  // (which failed) ran in a transaction of its own, already over: nothing is written then.
  const [begun, reservation] = await Promise.allSettled([begin, reserving]);
  if (begun.status === 'rejected' || reservation.status === 'rejected') {
    await client.query('rollback').catch(() => undefined);
    throw begun.status === 'rejected' ? begun.reason : (reservation as PromiseRejectedResult).reason;
  }
  const reserved = reservation.value.rows[0]!;

  const last = new Map<string, { revision: bigint | undefined; position: bigint | undefined }>();
  streams.forEach((stream, i) => {
    const revision = reserved.stream_revisions[i];
    const position = reserved.stream_positions[i];
    last.set(stream, {
      revision: revision == null ? undefined : BigInt(revision),
      position: position == null ? undefined : BigInt(position),
    });
  });
  const held = new Set(claims.filter((_, i) => reserved.claims_held[i]).map(claimKey));

  const rows = {
    position: [] as string[],
    stream: [] as string[],
    revision: [] as string[],
    type: [] as string[],
    data: [] as string[],
    metadata: [] as string[],
    hash: [] as Buffer[],
  };
  const writes = { scope: [] as string[], key: [] as string[], stream: [] as string[], position: [] as string[] };
  const written = new Set<string>();
  let position = BigInt(reserved.head_position);
  let previous: Uint8Array = reserved.head_hash;

  const outcomes = batch.map(({ streamId, events, expected, claim }): AppendOutcome => {
    if (claim && !held.has(claimKey(claim))) return { ok: false, error: new IdempotencyClaimLostError(claim) };
    const state = last.get(streamId)!;
    const actual = state.revision;
    const ok = expected === 'any' || (expected === 'no_stream' ? actual === undefined : actual === expected);
    if (!ok) return { ok: false, error: new WrongExpectedRevisionError(streamId, expected, actual ?? 'no_stream') };
    if (events.length === 0)
      return { ok: true, result: { nextExpectedRevision: actual ?? -1n, position: state.position ?? -1n } };
    let revision = actual ?? -1n;
    for (const event of events) {
      revision += 1n;
      position += 1n;
      const hash = Buffer.allocUnsafe(32);
      hashEventInto(hash, previous, streamId, revision, event.type, event.data, event.metadata);
      previous = hash;
      rows.position.push(position.toString());
      rows.stream.push(streamId);
      rows.revision.push(revision.toString());
      rows.type.push(event.type);
      rows.data.push(event.data);
      rows.metadata.push(event.metadata);
      rows.hash.push(hash);
    }
    state.revision = revision;
    state.position = position;
    // The claim's first write, in this transaction: a retry finds it, or finds nothing written.
    if (claim && !written.has(claimKey(claim))) {
      written.add(claimKey(claim));
      writes.scope.push(claim.scope);
      writes.key.push(claim.key);
      writes.stream.push(streamId);
      writes.position.push(position.toString());
    }
    return { ok: true, result: { nextExpectedRevision: revision, position } };
  });

  if (rows.position.length === 0) {
    await client.query('rollback');
    return outcomes;
  }
  const write = client.query({
    name: 'log_write',
    text: `with inserted as (
        insert into events (position, stream_id, revision, type, data, metadata, hash)
        select * from unnest($1::bigint[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::bytea[])
      ), head as (
        update log_head set position = $8, hash = $9
      ), claims as (
        update idempotency_keys k set write_stream = w.stream, write_position = w.position
        from unnest($10::text[], $11::text[], $12::text[], $13::bigint[]) as w(scope, key, stream, position)
        where k.scope = w.scope and k.key = w.key and k.write_stream is null
      )
      select pg_notify($14, $8::text)`,
    values: [
      rows.position,
      rows.stream,
      rows.revision,
      rows.type,
      rows.data,
      rows.metadata,
      rows.hash,
      position.toString(),
      previous,
      writes.scope,
      writes.key,
      writes.stream,
      writes.position,
      channel,
    ],
  });
  // Sent behind the write without waiting for it: a failed write aborts the transaction, and
  // PostgreSQL answers this commit with a rollback.
  const commit = client.query('commit');
  const [wrote, committed] = await Promise.allSettled([write, commit]);
  if (wrote.status === 'rejected') throw wrote.reason;
  if (committed.status === 'rejected') throw committed.reason;
  if (committed.value.command !== 'COMMIT') throw new Error(`the log's commit answered ${committed.value.command}`);
  return outcomes;
}

import type Database from 'better-sqlite3';
import type { AppendResult } from '../../ports/event-store';
import { WrongExpectedRevisionError } from '../../ports/event-store';
import { IdempotencyClaimLostError } from '../../ports/idempotency-keys';
import { ChainCursor } from './sqlite-hash-chain';
import type { AppendOutcome, StoredAppend } from '../stored-append';

/**
 * The embedded log's group commit on one connection: the appends given are written in one
 * IMMEDIATE transaction (one fsync for all of them under synchronous=FULL), each in its own
 * savepoint, so an append whose expected revision fails rolls back alone. Throws when the
 * transaction itself fails (every append of the batch failed with it).
 */
export function groupCommitOn(
  db: Database.Database,
  options: { readonly hashChain: boolean },
): (batch: readonly StoredAppend[]) => AppendOutcome[] {
  // Positions and revisions are bigint in the port; a number would silently lose precision past 2^53.
  const last = db
    .prepare<[string], { revision: bigint; position: bigint }>(
      'select revision, position from events where stream_id = ? order by revision desc limit 1',
    )
    .safeIntegers(true);
  const insert = db
    .prepare<[string, bigint, string, string, string, Buffer | null]>(
      'insert into events (stream_id, revision, type, data, metadata, hash) values (?, ?, ?, ?, ?, ?)',
    )
    .safeIntegers(true);
  const claimOwner = db.prepare<[string, string], { owner: string }>(
    'select owner from idempotency_keys where scope = ? and key = ?',
  );
  const claimWrite = db.prepare<[string, bigint, string, string]>(
    'update idempotency_keys set write_stream = ?, write_position = ? ' +
      'where scope = ? and key = ? and write_stream is null',
  );
  const chain = options.hashChain ? new ChainCursor(db) : undefined;

  const appendOne = db.transaction(({ streamId, events, expected, claim }: StoredAppend): AppendResult => {
    if (claim && claimOwner.get(claim.scope, claim.key)?.owner !== claim.owner)
      throw new IdempotencyClaimLostError(claim);
    const found = last.get(streamId);
    const actual = found?.revision;
    const ok = expected === 'any' || (expected === 'no_stream' ? actual === undefined : actual === expected);
    if (!ok) throw new WrongExpectedRevisionError(streamId, expected, actual ?? 'no_stream');
    let revision = actual ?? -1n;
    let position = found?.position ?? -1n;
    for (const event of events) {
      revision += 1n;
      const hash = chain ? chain.next(streamId, revision, event.type, event.data, event.metadata) : null;
      position = BigInt(insert.run(streamId, revision, event.type, event.data, event.metadata, hash).lastInsertRowid);
    }
    // The claim's first write, in the append's transaction: a retry finds it or finds nothing written.
    if (claim && events.length > 0) claimWrite.run(streamId, position, claim.scope, claim.key);
    return { nextExpectedRevision: revision, position };
  });

  const groupCommit = db.transaction((batch: readonly StoredAppend[]): AppendOutcome[] => {
    chain?.begin();
    return batch.map((append) => {
      chain?.mark();
      try {
        return { ok: true as const, result: appendOne(append) };
      } catch (error) {
        chain?.rollBack();
        return { ok: false as const, error };
      }
    });
  });
  // IMMEDIATE takes the write lock before reading any revision, so a writer in another process
  // cannot slip in between a check and its insert.
  return (batch) => groupCommit.immediate(batch);
}

import { hash as sha } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { ChainHead, ChainMismatch, ChainReport } from '../../ports/log-integrity';

/**
 * The embedded log's hash chain (issue 27; docs/architecture.md "A tamper-evident log"). Each
 * event's `hash` is SHA-256 over the previous hashed event's hash and the event's stored bytes
 * (stream, revision, type, and the very JSON texts of data and metadata), computed inside the
 * group commit that appends it, so the chain follows log order across processes (the write lock
 * is held). A log made before hashes existed keeps its events unhashed: the chain starts at the
 * first hashed event, which links to the empty hash; after it, every event must carry one.
 */

export const GENESIS = '';

/** The hash of one event, given the previous one's. */
export function eventHash(
  previous: string,
  streamId: string,
  revision: bigint,
  type: string,
  data: string,
  metadata: string,
): string {
  // One string, hashed in one call: cheaper than feeding the parts to a Hash object.
  const identity = JSON.stringify([streamId, revision.toString(), type]);
  return sha('sha256', `${previous}\n${identity}\n${data}\n${metadata}`, 'hex');
}

/** Stored as 32 bytes (a BLOB), half the hex text: the chain adds less to every row the log writes. */
export const storedHash = (hex: string): Buffer => Buffer.from(hex, 'hex');

/** Adds the `hash` column to a log made before it existed (existing events keep null: unchained). */
export function ensureHashColumn(db: Database.Database): void {
  const hasHash = () =>
    db
      .prepare<[], { name: string }>('pragma table_info(events)')
      .all()
      .some((c) => c.name === 'hash');
  if (hasHash()) return;
  // Under the write lock: two processes opening an old log at once add the column once.
  db.transaction(() => {
    if (!hasHash()) db.exec('alter table events add column hash blob');
  }).immediate();
}

/**
 * The chain's end while appends are written: read once at the start of each group commit, then
 * carried from event to event; an append rolled back to its savepoint puts it back.
 */
export class ChainCursor {
  private previous = GENESIS;
  private readonly last;

  constructor(db: Database.Database) {
    this.last = db.prepare<[], Buffer | null>('select hash from events order by position desc limit 1').pluck();
  }

  /** At the start of a group commit, under the write lock. */
  begin(): void {
    this.previous = this.last.get()?.toString('hex') ?? GENESIS;
  }

  mark(): string {
    return this.previous;
  }

  rollBackTo(mark: string): void {
    this.previous = mark;
  }

  next(streamId: string, revision: bigint, type: string, data: string, metadata: string): string {
    this.previous = eventHash(this.previous, streamId, revision, type, data, metadata);
    return this.previous;
  }
}

export function chainHead(db: Database.Database): ChainHead | undefined {
  const row = db
    .prepare<[], { position: bigint; hash: Buffer }>(
      'select position, hash from events where hash is not null order by position desc limit 1',
    )
    .safeIntegers(true)
    .get();
  return row && { position: BigInt(row.position), hash: row.hash.toString('hex') };
}

type ChainRow = [
  position: bigint,
  streamId: string,
  revision: bigint,
  type: string,
  data: string,
  metadata: string,
  hash: Buffer | null,
];

/** Recomputes the chain over every stored event, in log order, and names the first that does not match. */
export function verifyChain(db: Database.Database): ChainReport {
  const rows = db
    .prepare<[], ChainRow>(
      'select position, stream_id, revision, type, data, metadata, hash from events order by position',
    )
    .safeIntegers(true)
    .raw(true);
  let events = 0;
  let unchained = 0;
  let chainedFrom: bigint | null = null;
  let previous = GENESIS;
  let head: ChainHead | null = null;
  for (const [position, streamId, revision, type, data, metadata, hash] of rows.iterate()) {
    events += 1;
    if (hash === null && chainedFrom === null) {
      unchained += 1;
      continue;
    }
    chainedFrom ??= position;
    const expected = eventHash(previous, streamId, revision, type, data, metadata);
    if (hash === null || !hash.equals(storedHash(expected))) {
      const problem = hash === null ? 'missing' : 'hash';
      const firstMismatch: ChainMismatch = { position, streamId, revision, type, problem };
      return { events, unchained, chainedFrom, head, firstMismatch };
    }
    previous = expected;
    head = { position, hash: expected };
  }
  return { events, unchained, chainedFrom, head, firstMismatch: null };
}

import { setImmediate } from 'node:timers/promises';
import type Database from 'better-sqlite3';
import type { ChainHead, ChainReport } from '../../ports/log-integrity';
import { ChainCheck, hashEventInto, type ChainRow } from '../../audit/log-hash';

/**
 * The embedded log's hash chain (docs/architecture.md "A tamper-evident log"). Each
 * event's `hash` (src/audit/log-hash.ts: SHA-256 over the previous hashed event's hash and the
 * event's stored bytes) is computed inside the group commit that appends it, so the chain follows
 * log order across processes (the write lock is held). A log made before hashes existed keeps its
 * events unhashed: the chain starts at the first hashed event, which links to the empty hash;
 * after it, every event must carry one.
 */

/**
 * Adds the `hash` column to a log made before it existed (existing events keep null: unchained),
 * and records in `meta` where the chain starts (`chain_from`): the first position every later
 * event must carry a hash from. A new log's is its first event; an old log's, its next event; a log
 * hashed before this was recorded, its first hashed event.
 */
export function ensureHashColumn(db: Database.Database): void {
  const hasHash = () =>
    db
      .prepare<[], { name: string }>('pragma table_info(events)')
      .all()
      .some((c) => c.name === 'hash');
  if (hasHash() && chainedSince(db) !== undefined) return;
  // Under the write lock: two processes opening an old log at once add the column once.
  db.transaction(() => {
    if (!hasHash()) db.exec('alter table events add column hash blob');
    db.exec(`insert into meta (key, value)
      select 'chain_from', coalesce(
        (select min(position) from events where hash is not null),
        (select max(position) + 1 from events),
        1)
      on conflict (key) do nothing`);
  }).immediate();
}

/** Where the chain starts, where the log recorded it (see ensureHashColumn). */
function chainedSince(db: Database.Database): bigint | undefined {
  const hasMeta = db.prepare(`select 1 from sqlite_master where type = 'table' and name = 'meta'`).get();
  if (!hasMeta) return undefined;
  const row = db.prepare<[], { value: string }>(`select value from meta where key = 'chain_from'`).get();
  return row && /^[0-9]+$/.test(row.value) ? BigInt(row.value) : undefined;
}

/**
 * The chain's end while appends are written: read once at the start of each group commit, then
 * carried from event to event; an append rolled back to its savepoint puts it back. Allocates
 * nothing per event (see hashEventInto).
 */
export class ChainCursor {
  /** The last event's hash: `current`, or the chain's end as read by begin (empty before the first hash). */
  private previous: Buffer = Buffer.alloc(0);
  private readonly current = Buffer.alloc(32);
  private readonly saved = Buffer.alloc(32);
  private marked: Buffer = this.previous;
  private readonly last;

  constructor(db: Database.Database) {
    this.last = db.prepare<[], Buffer | null>('select hash from events order by position desc limit 1').pluck();
  }

  /** At the start of a group commit, under the write lock. */
  begin(): void {
    this.previous = this.last.get() ?? Buffer.alloc(0);
  }

  /** Before an append: where rollBack returns to. */
  mark(): void {
    if (this.previous === this.current) {
      this.current.copy(this.saved);
      this.marked = this.saved;
    } else this.marked = this.previous; // as begin read it: never written to
  }

  /** The append since mark was rolled back: the chain's end is what it was then. */
  rollBack(): void {
    if (this.marked === this.saved) {
      this.saved.copy(this.current);
      this.previous = this.current;
    } else this.previous = this.marked;
  }

  /**
   * The next event's hash as it is stored (32 bytes), in one buffer this cursor fills anew for
   * each event: use it before the next call (the insert binds it, and SQLite copies what is
   * bound: better-sqlite3 binds with SQLITE_TRANSIENT).
   */
  next(streamId: string, revision: bigint, type: string, data: string, metadata: string): Buffer {
    // `previous` may be `current`: hashEventInto reads previous before it writes into.
    hashEventInto(this.current, this.previous, streamId, revision, type, data, metadata);
    this.previous = this.current;
    return this.current;
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

/** The hash stored with the event at `position` (hex), or undefined where there is no event or no hash. */
export function storedHashAt(db: Database.Database, position: bigint): string | undefined {
  const row = db
    .prepare<[bigint], { hash: unknown }>('select hash from events where position = ?')
    .safeIntegers(true)
    .get(position);
  return Buffer.isBuffer(row?.hash) ? row.hash.toString('hex') : undefined;
}

/** Events checked between two turns of the event loop by `verifyChainInTurns`. */
const CHAIN_PAGE = 5000;

/** The log's events after `after` in order, a page at a time: each page one short read. */
function* chainPages(db: Database.Database): Generator<ChainRow[]> {
  const page = db
    .prepare<[bigint, number], ChainRow>(
      'select position, stream_id, revision, type, data, metadata, hash from events ' +
        'where position > ? order by position limit ?',
    )
    .safeIntegers(true)
    .raw(true);
  for (let after = 0n; ;) {
    const rows = page.all(after, CHAIN_PAGE);
    if (rows.length > 0) yield rows;
    if (rows.length < CHAIN_PAGE) return;
    after = rows[rows.length - 1]![0];
  }
}

/** Recomputes the chain over every stored event, in log order, and names the first that does not match. */
export function verifyChain(db: Database.Database): ChainReport {
  const check = new ChainCheck(chainedSince(db));
  for (const rows of chainPages(db)) if (!rows.every((row) => check.add(row))) break;
  return check.report();
}

/**
 * `verifyChain` in the service, a page at a time with a turn of the event loop between pages: the
 * embedded store reads synchronously, and the whole log in one go would hold every other request
 * for as long as it takes (about a second and a half for 300,000 events).
 */
export async function verifyChainInTurns(db: Database.Database): Promise<ChainReport> {
  const check = new ChainCheck(chainedSince(db));
  for (const rows of chainPages(db)) {
    if (!rows.every((row) => check.add(row))) break;
    await setImmediate();
  }
  return check.report();
}

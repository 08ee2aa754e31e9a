import path from 'node:path';
import Database from 'better-sqlite3';
import { makePrivateDir, makePrivateFile, makeSqliteFilesPrivate } from '../../config/private-files';
import type { Fence, Lease, LeaseStore } from '../../projections/projection-lease';
import { LeaseLostError } from '../../projections/projection-lease';
import type {
  CheckpointSource,
  ParkedEvent,
  ProjectionStore,
  ReadModelDigest,
} from '../../projections/read-model-projection';
import { canonicalDigest } from '../../projections/canonical-digest';
import { ReadSnapshotMemo } from '../../projections/read-snapshot-memo';
import { VersionedAnswerMemo } from '../../projections/answer-memo';
import { SqliteChangeFeed } from './sqlite-change-feed';
import { EVERY_SCOPE } from '../../projections/scope-versions';
import { parkedEventOfRow, type ParkedEventRow } from '../parked-event-row';
import { sqliteBusyTimeoutMs, switchToWal } from './wal-mode';

/**
 * The embedded read models' database: one SQLite file under DATA_DIR (`:memory:` in tests),
 * separate from the event log. Every read-model store keeps its tables here, and every
 * projection its checkpoint, so a batch of events and the checkpoint after it commit together.
 */
export class SqliteReadDb {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly statements;

  /** Secondary indexes held back while a new generation is loaded (see `open`'s bulkLoad). */
  private deferredIndexes: string[] | undefined;

  private constructor(
    readonly db: Database.Database,
    bulkLoad: boolean,
    remember: boolean,
    /**
     * Records that no event carries and that must outlast a generation of the read models (a key's
     * lastUsedAt): a database of their own beside the generations, on a connection of its own (not
     * attached: a batch's `begin immediate` would lock it too, and every process's writes to it
     * would wait on every generation's batches); `db` itself when none was given (as in tests).
     */
    readonly kept: Database.Database = db,
  ) {
    if (bulkLoad) this.deferredIndexes = [];
    db.exec(`create table if not exists projection_checkpoints (
      projection text primary key,
      position text not null
    ) strict`);
    // Added after the first release: the log a checkpoint counts positions of.
    const columns = db.prepare('select name from pragma_table_info(?)').all('projection_checkpoints') as {
      name: string;
    }[];
    if (!columns.some((c) => c.name === 'log')) db.exec('alter table projection_checkpoints add column log text');
    if (!columns.some((c) => c.name === 'version'))
      db.exec('alter table projection_checkpoints add column version integer');
    db.exec(`create table if not exists parked_events (
      projection text not null,
      position text not null,
      stream_id text not null,
      type text not null,
      error text not null,
      failures integer not null,
      first_failed_at text not null,
      last_failed_at text not null,
      primary key (projection, position)
    ) strict`);
    db.exec(`create table if not exists projection_leases (
      projection text primary key,
      holder text not null,
      token integer not null,
      expires_at integer not null
    ) strict`);
    this.statements = {
      read: db.prepare<[string], { position: string; log: string | null }>(
        'select position, log from projection_checkpoints where projection = ?',
      ),
      readMany: db.prepare<[string], { projection: string; position: string }>(
        'select projection, position from projection_checkpoints where projection in (select value from json_each(?))',
      ),
      write: db.prepare(
        'insert into projection_checkpoints (projection, position) values (?, ?) on ' +
          'conflict (projection) do update set position = excluded.position',
      ),
      setLog: db.prepare(
        `insert into projection_checkpoints (projection, position, log) values (?, '', ?) on conflict (projection) do update set log = excluded.log`,
      ),
      clear: db.prepare('delete from projection_checkpoints where projection = ?'),
      version: db.prepare<[string], { version: number | null }>(
        'select version from projection_checkpoints where projection = ?',
      ),
      setVersion: db.prepare(
        `insert into projection_checkpoints (projection, position, version) values (?, '', ?) on conflict (projection) do update set version = excluded.version`,
      ),
      park: db.prepare(
        `insert or replace into parked_events
         (projection, position, stream_id, type, error, failures, first_failed_at, last_failed_at)
         values (?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      parked: db.prepare<[string], ParkedEventRow>('select * from parked_events where projection = ?'),
      unpark: db.prepare('delete from parked_events where projection = ? and position = ?'),
      unparkAll: db.prepare('delete from parked_events where projection = ?'),
      lease: db.prepare<[string], { holder: string; token: number | bigint; expires_at: number }>(
        'select holder, token, expires_at from projection_leases where projection = ?',
      ),
      putLease: db.prepare(
        `insert into projection_leases (projection, holder, token, expires_at) values (?, ?, ?, ?)
         on conflict (projection) do update set holder = excluded.holder, token = excluded.token, expires_at = excluded.expires_at`,
      ),
      dropLease: db.prepare('delete from projection_leases where projection = ? and holder = ? and token = ?'),
      // data_version: moves when another connection commits.
      dataVersion: db.prepare<[], number>('pragma data_version').pluck(),
    };
    this.feed = new SqliteChangeFeed(db, () => this.bulkLoading);
    // A memo given no version keeps nothing: with READ_MEMO=off every request is answered cold.
    const versionOf = remember ? (scope: string) => this.feed.version(scope) : () => null;
    this.memo = new ReadSnapshotMemo(versionOf);
    this.answers = new VersionedAnswerMemo(versionOf);
  }

  /** What each commit changed, by scope: remembered answers are kept per scope (see SqliteChangeFeed). */
  readonly feed: SqliteChangeFeed;
  /** Answers remembered until their scope changes (see ReadSnapshotMemo); shared by its stores. */
  readonly memo: ReadSnapshotMemo;
  /** The JSON text of whole API answers, remembered as `memo`'s answers are (see AnswerMemo). */
  readonly answers: VersionedAnswerMemo;

  /** SQLite's data_version when last looked at: it moves when another process commits. */
  private othersSeen = 0;

  /**
   * Looks whether another process committed since the last look. Called when a request starts
   * and when a checkpoint is read: what another process committed before either is seen by
   * everything read after it (a write answered by another API process, then a read here).
   */
  noticeOtherWriters(): void {
    // Inside this connection's transaction nobody else commits; the next look outside it will see them.
    if (this.db.inTransaction) return;
    const dataVersion = this.statements.dataVersion.get() as number;
    if (dataVersion === this.othersSeen) return;
    this.othersSeen = dataVersion;
    // Another process committed: what it changed is in the feed.
    this.feed.catchUp();
  }

  private putLease(projection: string, holder: string, token: bigint, expiresAt: number): void {
    this.statements.putLease.run(projection, holder, token, expiresAt);
  }

  /**
   * WAL lets readers in other processes (API processes beside a projector) read a committed
   * snapshot while a batch is being written. synchronous=NORMAL: a crash may lose the last
   * transactions, but each one holds its checkpoint, so the lost events are simply applied again.
   */
  static open(file: string, options: { bulkLoad?: boolean; memo?: boolean; keptFile?: string } = {}): SqliteReadDb {
    if (file !== ':memory:') {
      makePrivateDir(path.dirname(file));
      makePrivateFile(file);
    }
    const db = new Database(file);
    let kept: Database.Database | undefined;
    try {
      // A generation being built is read by nobody and thrown away if the build fails: its
      // commits need not reach the disk, nor pass through the WAL, until `finishBulkLoad`.
      if (options.bulkLoad) db.pragma('journal_mode = MEMORY');
      else switchToWal(db, sqliteBusyTimeoutMs);
      db.pragma(options.bulkLoad ? 'synchronous = OFF' : 'synchronous = NORMAL');
      db.pragma(`busy_timeout = ${sqliteBusyTimeoutMs}`);
      if (file !== ':memory:') makeSqliteFilesPrivate(file);
      if (options.keptFile) {
        // Shared by every generation and every process, whatever the generation being loaded does.
        makePrivateFile(options.keptFile);
        kept = new Database(options.keptFile);
        switchToWal(kept, sqliteBusyTimeoutMs);
        kept.pragma('synchronous = NORMAL');
        kept.pragma(`busy_timeout = ${sqliteBusyTimeoutMs}`);
        makeSqliteFilesPrivate(options.keptFile);
      }
      return new SqliteReadDb(db, options.bulkLoad ?? false, options.memo ?? true, kept);
    } catch (error) {
      kept?.close();
      db.close();
      throw error;
    }
  }

  /**
   * Runs `work` inside one transaction. `work` may be async, but on this adapter it only calls
   * synchronous SQLite statements through promises, so no request handler can run in between;
   * the queue still keeps two writers from interleaving their BEGINs.
   */
  transaction<T>(work: () => Promise<T>): Promise<T> {
    const run = async (): Promise<T> => {
      this.db.exec('begin immediate');
      try {
        const result = await work();
        this.feed.record();
        this.db.exec('commit');
        this.feed.committed();
        return result;
      } catch (error) {
        if (this.db.inTransaction) this.db.exec('rollback');
        this.feed.rolledBack();
        throw error;
      }
    };
    const next = this.queue.then(run, run);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /**
   * A store's secondary indexes: created at once, or, while a new generation is bulk-loaded,
   * after the load, where building each index once from sorted rows is several times cheaper
   * than keeping it in step with every insert. A store's own lookups while projecting must not
   * need them (its primary keys serve those).
   */
  createIndexes(ddl: string): void {
    if (this.deferredIndexes) this.deferredIndexes.push(ddl);
    else this.db.exec(ddl);
  }

  /** True while a new generation is loaded from the whole log (see `open`'s bulkLoad). */
  get bulkLoading(): boolean {
    return this.deferredIndexes !== undefined;
  }

  /** Writes a store holds back during a bulk load, made once at its end (see `finishBulkLoad`). */
  private readonly heldWrites: (() => void)[] = [];

  /**
   * `write` runs when the bulk load ends, in one transaction before the indexes are built. For
   * what a store would otherwise rewrite in every batch of the load (totals, counters): nobody
   * reads a generation being loaded, and a load that fails is thrown away.
   */
  whenLoaded(write: () => void): void {
    this.heldWrites.push(write);
  }

  /** Ends a bulk load: held writes are made, the held-back indexes are built and commits are durable again. */
  finishBulkLoad(): void {
    const ddl = this.deferredIndexes ?? [];
    this.deferredIndexes = undefined;
    this.db.transaction(() => {
      for (const write of this.heldWrites) write();
    })();
    for (const statement of ddl) this.db.exec(statement);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
  }

  checkpoint(projection: string): bigint | undefined {
    this.noticeOtherWriters();
    const row = this.statements.read.get(projection);
    // A row holding only the log (set before the first commit) is no checkpoint yet.
    return row && row.position !== '' ? BigInt(row.position) : undefined;
  }

  /**
   * The checkpoints of several read models in one statement (the followers' polls, see
   * FollowerPolls); one object for every store of this database, so the polls group by it.
   */
  readonly checkpointSource: CheckpointSource = {
    checkpoints: async (projections) => {
      this.noticeOtherWriters();
      const rows = this.statements.readMany.all(JSON.stringify(projections));
      return new Map(
        rows.flatMap((row) => (row.position !== '' ? [[row.projection, BigInt(row.position)] as const] : [])),
      );
    },
  };

  checkpointLog(projection: string): string | undefined {
    return this.statements.read.get(projection)?.log ?? undefined;
  }

  setCheckpointLog(projection: string, log: string): void {
    this.statements.setLog.run(projection, log);
  }

  readModelVersion(projection: string): number | undefined {
    return this.statements.version.get(projection)?.version ?? undefined;
  }

  setReadModelVersion(projection: string, version: number): void {
    this.statements.setVersion.run(projection, version);
  }

  /** Inside a write transaction: the lease must still be this holder's; it is renewed. */
  fence(fence: Fence): void {
    const row = this.statements.lease.get(fence.projection);
    if (!row || row.holder !== fence.holder || BigInt(row.token) !== fence.token)
      throw new LeaseLostError(fence.projection);
    this.putLease(fence.projection, fence.holder, fence.token, fence.nowMs + fence.ttlMs);
  }

  /** Leases live beside the read models, so every process sharing DATA_DIR sees the same ones. */
  readonly leases: LeaseStore = {
    acquire: (projection, holder, ttlMs, nowMs) =>
      this.transaction(async (): Promise<Lease | null> => {
        const row = this.statements.lease.get(projection);
        if (row && row.holder !== holder && row.expires_at > nowMs) return null;
        const token = row && row.holder === holder ? BigInt(row.token) : BigInt(row?.token ?? 0) + 1n;
        this.putLease(projection, holder, token, nowMs + ttlMs);
        return { projection, holder, token };
      }),
    release: (lease) =>
      this.transaction(async () => {
        this.statements.dropLease.run(lease.projection, lease.holder, lease.token);
      }),
  };

  writeCheckpoint(projection: string, position: bigint): void {
    this.statements.write.run(projection, position.toString());
  }

  clearCheckpoint(projection: string): void {
    this.statements.clear.run(projection);
    this.statements.unparkAll.run(projection);
  }

  park(event: ParkedEvent): void {
    this.statements.park.run(
      event.readModel,
      event.position.toString(),
      event.streamId,
      event.type,
      event.error,
      event.failures,
      event.firstFailedAt,
      event.lastFailedAt,
    );
  }

  parked(projection: string): ParkedEvent[] {
    this.noticeOtherWriters();
    return this.statements.parked
      .all(projection)
      .map(parkedEventOfRow)
      .sort((a, b) => (a.position < b.position ? -1 : a.position > b.position ? 1 : 0));
  }

  unpark(projection: string, position: bigint): boolean {
    return this.statements.unpark.run(projection, position.toString()).changes > 0;
  }

  close(): void {
    if (this.kept !== this.db && this.kept.open) this.kept.close();
    if (this.db.open) this.db.close();
  }
}

/** What a store that gathers a batch's writes in memory does at the end of the batch. */
export type BatchHooks = {
  /** Inside the batch's transaction, after its events: write what was gathered. */
  readonly beforeCommit?: () => void;
  /** The batch's transaction was rolled back: forget what was gathered. */
  readonly rolledBack?: () => void;
};

/**
 * The runner's side of a SQLite read model: its checkpoint and its tables. `tables` are wiped on
 * reset and hashed, in primary-key order, for the digest.
 */
export function sqliteProjectionStore(
  read: SqliteReadDb,
  tables: readonly string[],
  batch: BatchHooks = {},
): ProjectionStore {
  return {
    commit: async (projection, position, work, fence) => {
      try {
        await read.transaction(async () => {
          if (fence) read.fence(fence);
          const reached = await work();
          batch.beforeCommit?.();
          read.writeCheckpoint(projection, reached ?? position);
        });
      } catch (error) {
        batch.rolledBack?.();
        throw error;
      }
    },
    checkpoint: async (projection) => read.checkpoint(projection),
    checkpointSource: read.checkpointSource,
    checkpointLog: async (projection) => read.checkpointLog(projection),
    setCheckpointLog: async (projection, log) => read.setCheckpointLog(projection, log),
    readModelVersion: async (projection) => read.readModelVersion(projection),
    setReadModelVersion: async (projection, version) => read.setReadModelVersion(projection, version),
    reset: (projection) =>
      read.transaction(async () => {
        for (const table of tables) read.db.exec(`delete from ${table}`);
        read.clearCheckpoint(projection);
        read.feed.touch(EVERY_SCOPE);
      }),
    park: async (event) => read.park(event),
    parked: async (projection) => read.parked(projection),
    unpark: async (projection, position) => read.unpark(projection, position),
    digest: async (): Promise<ReadModelDigest> =>
      canonicalDigest(
        tables.map((table) => ({
          name: table,
          rows: read.db.prepare(`select * from ${table} order by 1, 2`).raw(false).all() as Record<string, unknown>[],
        })),
      ),
  };
}

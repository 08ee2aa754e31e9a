import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Fence, Lease, LeaseStore } from '../../projections/projection-lease';
import { LeaseLostError } from '../../projections/projection-lease';
import type { ProjectionStore, ReadModelDigest } from '../../projections/read-model-projection';
import { canonicalDigest } from '../../projections/canonical-digest';

/**
 * The embedded read models' database: one SQLite file under DATA_DIR (`:memory:` in tests),
 * separate from the event log. Every read-model store keeps its tables here, and every
 * projection its checkpoint, so a batch of events and the checkpoint after it commit together.
 */
export class SqliteReadDb {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly statements;

  private constructor(readonly db: Database.Database) {
    db.exec(`create table if not exists projection_checkpoints (
      projection text primary key,
      position text not null
    ) strict`);
    // Added after the first release: the log a checkpoint counts positions of.
    const columns = db.prepare('select name from pragma_table_info(?)').all('projection_checkpoints') as { name: string }[];
    if (!columns.some((c) => c.name === 'log')) db.exec('alter table projection_checkpoints add column log text');
    db.exec(`create table if not exists projection_leases (
      projection text primary key,
      holder text not null,
      token integer not null,
      expires_at integer not null
    ) strict`);
    this.statements = {
      read: db.prepare<[string], { position: string; log: string | null }>('select position, log from projection_checkpoints where projection = ?'),
      write: db.prepare(
        'insert into projection_checkpoints (projection, position) values (?, ?) on conflict (projection) do update set position = excluded.position',
      ),
      setLog: db.prepare(
        `insert into projection_checkpoints (projection, position, log) values (?, '', ?) on conflict (projection) do update set log = excluded.log`,
      ),
      clear: db.prepare('delete from projection_checkpoints where projection = ?'),
      lease: db.prepare<[string], { holder: string; token: number | bigint; expires_at: number }>(
        'select holder, token, expires_at from projection_leases where projection = ?',
      ),
      putLease: db.prepare(
        `insert into projection_leases (projection, holder, token, expires_at) values (?, ?, ?, ?)
         on conflict (projection) do update set holder = excluded.holder, token = excluded.token, expires_at = excluded.expires_at`,
      ),
      dropLease: db.prepare('delete from projection_leases where projection = ? and holder = ? and token = ?'),
    };
  }

  /**
   * WAL lets readers in other processes (API processes beside a projector) read a committed
   * snapshot while a batch is being written. synchronous=NORMAL: a crash may lose the last
   * transactions, but each one holds its checkpoint, so the lost events are simply applied again.
   */
  static open(file: string): SqliteReadDb {
    if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
    const db = new Database(file);
    try {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.pragma('busy_timeout = 5000');
      return new SqliteReadDb(db);
    } catch (error) {
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
        this.db.exec('commit');
        return result;
      } catch (error) {
        if (this.db.inTransaction) this.db.exec('rollback');
        throw error;
      }
    };
    const next = this.queue.then(run, run);
    this.queue = next.catch(() => undefined);
    return next;
  }

  checkpoint(projection: string): bigint | undefined {
    const row = this.statements.read.get(projection);
    // A row holding only the log (set before the first commit) is no checkpoint yet.
    return row && row.position !== '' ? BigInt(row.position) : undefined;
  }

  checkpointLog(projection: string): string | undefined {
    return this.statements.read.get(projection)?.log ?? undefined;
  }

  setCheckpointLog(projection: string, log: string): void {
    this.statements.setLog.run(projection, log);
  }

  /** Inside a write transaction: the lease must still be this holder's; it is renewed. */
  fence(fence: Fence): void {
    const row = this.statements.lease.get(fence.projection);
    if (!row || row.holder !== fence.holder || BigInt(row.token) !== fence.token) throw new LeaseLostError(fence.projection);
    this.statements.putLease.run(fence.projection, fence.holder, fence.token, fence.nowMs + fence.ttlMs);
  }

  /** Leases live beside the read models, so every process sharing DATA_DIR sees the same ones. */
  readonly leases: LeaseStore = {
    acquire: (projection, holder, ttlMs, nowMs) =>
      this.transaction(async (): Promise<Lease | null> => {
        const row = this.statements.lease.get(projection);
        if (row && row.holder !== holder && row.expires_at > nowMs) return null;
        const token = row && row.holder === holder ? BigInt(row.token) : BigInt(row?.token ?? 0) + 1n;
        this.statements.putLease.run(projection, holder, token, nowMs + ttlMs);
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
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

/**
 * The runner's side of a SQLite read model: its checkpoint and its tables. `tables` are wiped on
 * reset and hashed, in primary-key order, for the digest.
 */
export function sqliteProjectionStore(read: SqliteReadDb, tables: readonly string[]): ProjectionStore {
  return {
    commit: (projection, position, work, fence) =>
      read.transaction(async () => {
        if (fence) read.fence(fence);
        await work();
        read.writeCheckpoint(projection, position);
      }),
    checkpoint: async (projection) => read.checkpoint(projection),
    checkpointLog: async (projection) => read.checkpointLog(projection),
    setCheckpointLog: async (projection, log) => read.setCheckpointLog(projection, log),
    reset: (projection) =>
      read.transaction(async () => {
        for (const table of tables) read.db.exec(`delete from ${table}`);
        read.clearCheckpoint(projection);
      }),
    digest: async (): Promise<ReadModelDigest> =>
      canonicalDigest(
        tables.map((table) => ({
          name: table,
          rows: read.db.prepare(`select * from ${table} order by 1, 2`).raw(false).all() as Record<string, unknown>[],
        })),
      ),
  };
}

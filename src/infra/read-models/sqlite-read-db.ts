import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
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
    this.statements = {
      read: db.prepare<[string], { position: string }>('select position from projection_checkpoints where projection = ?'),
      write: db.prepare(
        'insert into projection_checkpoints (projection, position) values (?, ?) on conflict (projection) do update set position = excluded.position',
      ),
      clear: db.prepare('delete from projection_checkpoints where projection = ?'),
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
    return row ? BigInt(row.position) : undefined;
  }

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
    commit: (projection, position, work) =>
      read.transaction(async () => {
        await work();
        read.writeCheckpoint(projection, position);
      }),
    checkpoint: async (projection) => read.checkpoint(projection),
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

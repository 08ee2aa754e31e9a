import { randomBytes } from 'node:crypto';
import path from 'node:path';
import Database from 'better-sqlite3';
import { makePrivateDir, makePrivateFile, makeSqliteFilesPrivate } from '../../config/private-files';
import type { PersonalDataKeys } from '../../ports/personal-data-keys';
import { sqliteBusyTimeoutMs, switchToWal } from './wal-mode';

const WAL_ATTEMPTS = 100;
const WAL_RETRY_MS = 20;

/**
 * Personal-data keys of the embedded store: a file of their own beside the log
 * (`personal-data-keys.sqlite`, private like every file of DATA_DIR), so that a destroyed key is
 * gone from the one place it was, while the log and its backups keep only sealed values.
 * `secure_delete` overwrites a deleted key's bytes in the file instead of leaving them in a free page,
 * and a destruction empties the write-ahead log, whose frames still hold the key as it was written.
 */
export class SqlitePersonalDataKeys implements PersonalDataKeys {
  private constructor(private readonly db: Database.Database) {
    db.exec(`create table if not exists personal_data_keys (
      user_id integer primary key,
      key blob not null,
      created_at text not null
    ) strict`);
  }

  static open(file: string): SqlitePersonalDataKeys {
    if (file !== ':memory:') {
      makePrivateDir(path.dirname(file));
      makePrivateFile(file);
    }
    const db = new Database(file);
    switchToWal(db, sqliteBusyTimeoutMs);
    db.pragma(`busy_timeout = ${sqliteBusyTimeoutMs}`);
    db.pragma('secure_delete = on');
    if (file !== ':memory:') makeSqliteFilesPrivate(file);
    return new SqlitePersonalDataKeys(db);
  }

  async keyFor(userId: number): Promise<Buffer> {
    // Read first: every append but a person's first finds the key, and a read takes no write lock.
    const existing = this.db.prepare('select key from personal_data_keys where user_id = ?').get(userId) as
      { key: Buffer } | undefined;
    if (existing) return existing.key;
    // Made once, by whichever process comes first: the others read the same key back.
    this.db
      .prepare('insert into personal_data_keys (user_id, key, created_at) values (?, ?, ?) on conflict do nothing')
      .run(userId, randomBytes(32), new Date().toISOString());
    return (this.db.prepare('select key from personal_data_keys where user_id = ?').get(userId) as { key: Buffer }).key;
  }

  async keysOf(userIds: readonly number[]): Promise<ReadonlyMap<number, Buffer>> {
    const rows = this.db
      .prepare('select user_id, key from personal_data_keys where user_id in (select value from json_each(?))')
      .all(JSON.stringify(userIds)) as { user_id: number; key: Buffer }[];
    return new Map(rows.map((row) => [row.user_id, row.key]));
  }

  async destroy(userId: number): Promise<boolean> {
    const destroyed = this.db.prepare('delete from personal_data_keys where user_id = ?').run(userId).changes > 0;
    await this.emptyWal();
    return destroyed;
  }

  /**
   * Copies the write-ahead log into the file and truncates it to nothing: until then its frames
   * keep the pages the key was written in, and a copy of DATA_DIR would carry them. Another
   * process in the middle of a read holds the log back; its reads are one statement long, so this
   * waits for them a while, then fails (the key is gone from the table: erasing again finishes).
   */
  private async emptyWal(): Promise<void> {
    for (let attempt = 0; attempt < WAL_ATTEMPTS; attempt++) {
      const [result] = this.db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
      if (!result || result.busy === 0) return;
      await new Promise((resolve) => setTimeout(resolve, WAL_RETRY_MS));
    }
    throw new Error(
      "the personal-data keys' write-ahead log could not be emptied: another process keeps reading it; erase again",
    );
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}

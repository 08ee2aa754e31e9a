import type Database from 'better-sqlite3';
import type { ApiKeyUsageStore } from '../../api-keys/api-key-store';
import type { SqliteReadDb } from './sqlite-read-db';

const USAGE_TABLE = `create table if not exists api_key_usage (
  id integer primary key,
  last_used_at text not null
) strict`;

/** A later use wins: an earlier instant than the recorded one changes nothing. */
const RECORD_USE = `insert into api_key_usage (id, last_used_at) values (?, ?)
  on conflict (id) do update set last_used_at = excluded.last_used_at where excluded.last_used_at > api_key_usage.last_used_at`;

/** Each key's last use on the embedded read database, in the records kept across generations (SqliteReadDb.kept). */
export class SqliteApiKeyUsage implements ApiKeyUsageStore {
  private readonly recordStatement: Database.Statement<[number, string]>;
  private readonly usesOf: Database.Statement<[string], { id: number; last_used_at: string }>;

  constructor(readDb: SqliteReadDb) {
    const kept = readDb.kept;
    kept.exec(USAGE_TABLE);
    if (kept !== readDb.db) carryOverUsage(readDb.db, kept);
    this.recordStatement = kept.prepare(RECORD_USE);
    this.usesOf = kept.prepare(
      'select id, last_used_at from api_key_usage where id in (select value from json_each(?))',
    );
  }

  async recordUse(id: number, at: string): Promise<void> {
    this.recordStatement.run(id, at);
  }

  async lastUsedAt(ids: readonly number[]): Promise<ReadonlyMap<number, string>> {
    return new Map(this.usesOf.all(JSON.stringify(ids)).map((u) => [u.id, u.last_used_at]));
  }
}

/**
 * Uses recorded before they were kept across generations lie in the generation's own
 * `api_key_usage`: carried into the kept records as the store opens (a later use wins), so an
 * upgrade loses none.
 */
function carryOverUsage(db: Database.Database, kept: Database.Database): void {
  const own = db.prepare("select 1 from sqlite_master where type = 'table' and name = 'api_key_usage'").get();
  if (!own) return;
  const rows = db.prepare('select id, last_used_at from api_key_usage').all() as { id: number; last_used_at: string }[];
  const record = kept.prepare(RECORD_USE);
  kept.transaction(() => {
    for (const row of rows) record.run(row.id, row.last_used_at);
  })();
}

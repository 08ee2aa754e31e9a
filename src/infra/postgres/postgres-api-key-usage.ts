import type { ApiKeyUsageStore } from '../../api-keys/api-key-store';
import type { PostgresReadDb } from './postgres-read-db';

/**
 * Each key's last use on PostgreSQL, in the kept schema (PostgresReadDb.keptSchema), spliced into
 * the statements: a name PostgresReadDb.connect has checked, never a caller's value. Instants are
 * the ISO 8601 text the API processes write, compared by code point (collation "C"). Unlike its
 * siblings it carries no uses over from a generation's own schema: no PostgreSQL generation ever
 * kept them there.
 */
export class PostgresApiKeyUsage implements ApiKeyUsageStore {
  private constructor(
    private readonly read: PostgresReadDb,
    private readonly table: string,
  ) {}

  static async open(read: PostgresReadDb): Promise<PostgresApiKeyUsage> {
    const table = `"${read.keptSchema}".api_key_usage`;
    await read.ensure(
      `create table if not exists ${table} (id bigint primary key, last_used_at text collate "C" not null)`,
      read.keptSchema,
    );
    return new PostgresApiKeyUsage(read, table);
  }

  /** A later use wins: an earlier instant than the recorded one changes nothing. */
  async recordUse(id: number, at: string): Promise<void> {
    await this.read.query(
      `insert into ${this.table} as u (id, last_used_at) values ($1, $2)
       on conflict (id) do update set last_used_at = excluded.last_used_at where excluded.last_used_at > u.last_used_at`,
      [id, at],
    );
  }

  async lastUsedAt(ids: readonly number[]): Promise<ReadonlyMap<number, string>> {
    const { rows } = await this.read.query<{ id: string; last_used_at: string }>(
      `select id, last_used_at from ${this.table} where id = any($1::bigint[])`,
      [ids],
    );
    return new Map(rows.map((row) => [Number(row.id), row.last_used_at]));
  }
}

import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { PersonalDataKeys } from '../../ports/personal-data-keys';
import { MIGRATION_LOCK_CLASS, SCHEMA_NAME } from './migrations';
import { PreparingClient } from './preparing-client';
import { statementBounds } from './client-bound';

const DEFAULT_STATEMENT_TIMEOUT_MS = 10_000;

/**
 * Personal-data keys on PostgreSQL: a table beside the log, in its schema. A destroyed key's row is
 * deleted; PostgreSQL reclaims the dead row on its next vacuum (docs/operations.md says how long
 * it may linger in the files and in base backups).
 */
export class PostgresPersonalDataKeys implements PersonalDataKeys {
  private constructor(private readonly pool: pg.Pool) {}

  static async connect(
    connectionString: string,
    schema: string,
    statementTimeoutMs = DEFAULT_STATEMENT_TIMEOUT_MS,
  ): Promise<PostgresPersonalDataKeys> {
    if (!SCHEMA_NAME.test(schema)) throw new Error(`not a schema name this store takes: ${JSON.stringify(schema)}`);
    const pool = new pg.Pool({
      connectionString,
      Client: PreparingClient,
      max: 2,
      options: `-c search_path=${schema}`,
      // Every write seals its person's data under a key looked up here first: a look-up past its
      // bound fails (a 503) instead of holding the write, and the writes queued behind it.
      ...statementBounds(statementTimeoutMs),
      keepAlive: true,
    });
    pool.on('error', () => undefined);
    const client = await pool.connect();
    try {
      await client.query('begin');
      // The log's own lock: its migrations create the same schema, and two creators would collide.
      await client.query('select pg_advisory_xact_lock($1, hashtext($2))', [MIGRATION_LOCK_CLASS, schema]);
      const { rowCount } = await client.query('select 1 from pg_namespace where nspname = $1', [schema]);
      if (rowCount === 0) await client.query(`create schema "${schema}"`);
      await client.query(`create table if not exists "${schema}".personal_data_keys (
        user_id bigint primary key,
        key bytea not null,
        created_at timestamptz not null default now()
      )`);
      await client.query('commit');
    } catch (error) {
      await client.query('rollback').catch(() => undefined);
      client.release();
      await pool.end();
      throw error;
    }
    client.release();
    return new PostgresPersonalDataKeys(pool);
  }

  /**
   * The lookups under way, by person: the appends of one person's concurrent requests share one
   * (a key is never kept past its lookup: erasure deletes it in another process).
   */
  private readonly looking = new Map<number, Promise<Buffer>>();

  keyFor(userId: number): Promise<Buffer> {
    let lookup = this.looking.get(userId);
    if (!lookup) {
      lookup = this.lookUp(userId).finally(() => this.looking.delete(userId));
      this.looking.set(userId, lookup);
    }
    return lookup;
  }

  private async lookUp(userId: number): Promise<Buffer> {
    // Read first: the key exists on every append but a person's first. The insert and the second
    // read are separate statements because a statement's snapshot would not see a row a concurrent
    // append committed while this insert waited on its conflict.
    const existing = await this.stored(userId);
    if (existing) return existing;
    const made = await this.pool.query<{ key: Buffer }>(
      'insert into personal_data_keys (user_id, key) values ($1, $2) on conflict (user_id) do nothing returning key',
      [userId, randomBytes(32)],
    );
    const key = made.rows[0]?.key ?? (await this.stored(userId));
    if (!key) throw new Error(`personal-data key of user ${userId} neither made nor found`);
    return key;
  }

  private async stored(userId: number): Promise<Buffer | undefined> {
    const { rows } = await this.pool.query<{ key: Buffer }>('select key from personal_data_keys where user_id = $1', [
      userId,
    ]);
    return rows[0]?.key;
  }

  async keysOf(userIds: readonly number[]): Promise<ReadonlyMap<number, Buffer>> {
    const { rows } = await this.pool.query<{ user_id: string; key: Buffer }>(
      'select user_id, key from personal_data_keys where user_id = any($1::bigint[])',
      [userIds],
    );
    return new Map(rows.map((row) => [Number(row.user_id), row.key]));
  }

  async destroy(userId: number): Promise<boolean> {
    const { rowCount } = await this.pool.query('delete from personal_data_keys where user_id = $1', [userId]);
    return (rowCount ?? 0) > 0;
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

import type { PoolClient } from 'pg';

/**
 * The PostgreSQL log's schema, as versioned migrations. Plain SQL kept in TypeScript constants,
 * not .sql files: the build (tsconfig.build.json, the Dockerfile) compiles src and copies nothing
 * else, and `npm start` runs from dist. A migration is never edited once released: a change is a
 * new version. Each is applied once per schema, in order, recorded in `schema_migrations`.
 */
export type Migration = { readonly version: number; readonly name: string; readonly sql: string };

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'event_log',
    sql: `
      -- The log. data and metadata are the JSON texts exactly as appended (text, not jsonb, which
      -- would normalise them): the hash chain covers these bytes and is verified from them.
      create table events (
        position bigint primary key,
        stream_id text not null,
        revision bigint not null,
        type text not null,
        data text not null,
        metadata text not null,
        hash bytea not null,
        unique (stream_id, revision)
      );
      -- readAll and scanAll of some types: a rare type is found without reading the others.
      create index events_type_position on events (type, position);

      -- One row: the last position given out and the hash of the event there (the chain's end),
      -- and the log's identity, written once with the schema. Appends lock this row until they
      -- commit: see src/infra/postgres/postgres-event-store.ts, "Global order".
      create table log_head (
        one boolean primary key default true check (one),
        position bigint not null,
        hash bytea not null,
        log_id text not null
      );
      insert into log_head (position, hash, log_id) values (0, '\\x', 'postgres:' || gen_random_uuid());

      create table idempotency_keys (
        scope text not null,
        key text not null,
        fingerprint text not null,
        owner text not null,
        claimed_at bigint not null,
        expires_at bigint not null,
        write_stream text,
        write_position bigint,
        answer_status integer,
        answer_type text,
        answer_body text,
        primary key (scope, key)
      );
      create index idempotency_keys_expiry on idempotency_keys (expires_at);

      -- A group commit's first step, in one round trip: the log's row locked (FOR UPDATE, until
      -- commit), the claims of the batch locked, then the last event of each stream and whether
      -- each claim is still held by its owner. Each statement of a volatile function takes a new
      -- snapshot under READ COMMITTED, so the reads after the lock see every commit that held it
      -- before (it committed before releasing it). A takeover of a locked claim waits until this
      -- batch has recorded its write or rolled back. Answers arrays in the order of the arguments.
      create function log_reserve(p_streams text[], p_scopes text[], p_keys text[], p_owners text[])
        returns table (head_position bigint, head_hash bytea, stream_revisions bigint[], stream_positions bigint[],
                       claims_held boolean[])
        language plpgsql volatile
        set search_path from current
      as $$
      begin
        select h.position, h.hash into head_position, head_hash from log_head h for update;
        perform 1 from idempotency_keys k
          join unnest(p_scopes, p_keys, p_owners) as c(scope, key, owner)
            on k.scope = c.scope and k.key = c.key and k.owner = c.owner
          for update of k;
        select coalesce(array_agg(last.revision order by s.i), '{}'), coalesce(array_agg(last.position order by s.i), '{}')
          into stream_revisions, stream_positions
          from unnest(p_streams) with ordinality as s(stream_id, i)
          left join lateral (
            select e.revision, e.position from events e
            where e.stream_id = s.stream_id order by e.revision desc limit 1
          ) last on true;
        select coalesce(array_agg(k.owner is not null order by c.i), '{}') into claims_held
          from unnest(p_scopes, p_keys, p_owners) with ordinality as c(scope, key, owner, i)
          left join idempotency_keys k on k.scope = c.scope and k.key = c.key and k.owner = c.owner;
        return next;
      end
      $$;
    `,
  },
];

/** A schema name the store accepts: it is written into SQL and into the connection's search_path. */
export const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,47}$/;

/** Two keys of pg_advisory_xact_lock: this constant for the log's migrations, and the schema's hash. */
export const MIGRATION_LOCK_CLASS = 0x70_72_73_6c; // 'prsl'

/**
 * Applies the migrations this schema lacks, in one transaction under an advisory lock keyed by the
 * schema: the first process to connect migrates, the others wait on the lock and then find every
 * version recorded. DDL is transactional in PostgreSQL, so a failed migration leaves nothing.
 * Answers the versions applied now (none when another process had already migrated).
 */
export async function migrate(client: PoolClient, schema: string): Promise<number[]> {
  if (!SCHEMA_NAME.test(schema)) throw new Error(`not a schema name this store takes: ${JSON.stringify(schema)}`);
  const applied: number[] = [];
  await client.query('begin isolation level read committed');
  try {
    await client.query('select pg_advisory_xact_lock($1, hashtext($2))', [MIGRATION_LOCK_CLASS, schema]);
    // Under the lock: two processes creating the same schema at once would collide on pg_namespace.
    // Looked for first: CREATE SCHEMA needs the CREATE privilege on the database even when the
    // schema exists, which a service's user given a schema of its own need not have.
    const { rowCount } = await client.query('select 1 from pg_namespace where nspname = $1', [schema]);
    if (rowCount === 0) await client.query(`create schema "${schema}"`);
    await client.query(`set local search_path to "${schema}"`);
    await client.query(`create table if not exists schema_migrations (
      version integer primary key,
      name text not null,
      applied_at timestamptz not null default now()
    )`);
    const { rows } = await client.query<{ version: number }>('select version from schema_migrations');
    const done = new Set(rows.map((row) => row.version));
    for (const migration of MIGRATIONS) {
      if (done.has(migration.version)) continue;
      await client.query(migration.sql);
      await client.query('insert into schema_migrations (version, name) values ($1, $2)', [
        migration.version,
        migration.name,
      ]);
      applied.push(migration.version);
    }
    await client.query('commit');
    return applied;
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  }
}

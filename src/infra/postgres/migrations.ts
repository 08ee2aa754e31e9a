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
  {
    version: 2,
    name: 'log_append',
    sql: `
      -- A group commit in one statement (src/infra/postgres/postgres-group-commit.ts): the log's
      -- row locked until commit, the batch's claims locked, then each append in order checked
      -- against the log as it stands (its claim still its owner's, its expected revision), its
      -- events numbered on from the log's end and hashed on from the chain's end, inserted, and its
      -- claim's first write recorded; a refused append writes nothing and the others go on. The
      -- hash is log-hash.ts's, byte for byte: SHA-256 over the UTF-8 of the previous hash in hex,
      -- the JSON array [stream, revision as a string, type], the data and the metadata, each after
      -- a newline. Answers one row per append, in order. log_reserve stays for processes of the
      -- release before, which lock the same row.
      create function log_append(
        p_streams text[], p_expected text[], p_scopes text[], p_keys text[], p_owners text[],
        p_counts integer[], p_types text[], p_data text[], p_metadata text[], p_channel text
      )
        returns table (problem text, revision bigint, log_position bigint)
        language plpgsql volatile
        set search_path from current
      as $$
      declare
        head bigint;
        previous bytea;
        at integer := 0;
        i integer;
        j integer;
        last_revision bigint;
        last_position bigint;
        held boolean;
        stale boolean;
        start_head bigint;
      begin
        select h.position, h.hash into head, previous from log_head h for update;
        start_head := head;
        perform 1 from idempotency_keys k
          join unnest(p_scopes, p_keys, p_owners) as c(scope, key, owner)
            on k.scope = c.scope and k.key = c.key and k.owner = c.owner
          for update of k;
        for i in 1 .. coalesce(array_length(p_streams, 1), 0) loop
          problem := null;
          last_revision := null;
          last_position := null;
          select e.revision, e.position into last_revision, last_position from events e
            where e.stream_id = p_streams[i] order by e.revision desc limit 1;
          held := p_scopes[i] is null or exists (
            select 1 from idempotency_keys k
            where k.scope = p_scopes[i] and k.key = p_keys[i] and k.owner = p_owners[i]);
          -- A CASE, not AND/OR: 'any'::bigint must never be evaluated.
          stale := case p_expected[i]
            when 'any' then false
            when 'no_stream' then last_revision is not null
            else last_revision is distinct from p_expected[i]::bigint
          end;
          if not held then
            problem := 'claim';
          elsif stale then
            problem := 'revision';
          end if;
          if problem is not null then
            revision := last_revision;
            log_position := null;
            at := at + p_counts[i];
            return next;
            continue;
          end if;
          revision := coalesce(last_revision, -1);
          log_position := coalesce(last_position, -1);
          for j in at + 1 .. at + p_counts[i] loop
            revision := revision + 1;
            head := head + 1;
            log_position := head;
            previous := sha256(convert_to(
              encode(previous, 'hex') || E'\\n' ||
              '[' || to_json(p_streams[i])::text || ',"' || revision || '",' || to_json(p_types[j])::text || ']' ||
              E'\\n' || p_data[j] || E'\\n' || p_metadata[j], 'UTF8'));
            insert into events (position, stream_id, revision, type, data, metadata, hash)
              values (head, p_streams[i], revision, p_types[j], p_data[j], p_metadata[j], previous);
          end loop;
          if p_counts[i] > 0 and p_scopes[i] is not null then
            update idempotency_keys k set write_stream = p_streams[i], write_position = head
              where k.scope = p_scopes[i] and k.key = p_keys[i] and k.write_stream is null;
          end if;
          at := at + p_counts[i];
          return next;
        end loop;
        if head > start_head then
          update log_head set position = head, hash = previous;
          perform pg_notify(p_channel, head::text);
        end if;
      end
      $$;
    `,
  },
];

/** A schema name the store accepts: it is written into SQL and into the connection's search_path. */
export const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,47}$/;

/** How long a migration, and a wait for another process's, may take before the process gives up starting. */
const MIGRATION_BOUND_MS = 5 * 60_000;

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
  // The server hashes the log's events over their UTF-8 (log_append): a database in another
  // encoding would store hashes that no verification finds again.
  const { rows: encoding } = await client.query<{ server_encoding: string }>('show server_encoding');
  const name = encoding[0]?.server_encoding;
  if (name !== 'UTF8')
    throw new Error(`the database's encoding is ${name}: the event log needs UTF8 (createdb --encoding=UTF8)`);
  await client.query('begin isolation level read committed');
  try {
    // Not a request's bound: a process waits here for another's migration, however long it takes.
    await client.query(`set local statement_timeout = ${MIGRATION_BOUND_MS}`);
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

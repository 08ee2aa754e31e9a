import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';
import type { Fence, Lease, LeaseStore } from '../../projections/projection-lease';
import { LeaseLostError } from '../../projections/projection-lease';
import type {
  CheckpointSource,
  ParkedEvent,
  ProjectionStore,
  ReadModelDigest,
} from '../../projections/read-model-projection';
import { canonicalDigest } from '../../projections/canonical-digest';
import { VersionedAnswerMemo } from '../../projections/answer-memo';
import { ReadSnapshotMemo } from '../../projections/read-snapshot-memo';
import { EVERY_SCOPE } from '../../projections/scope-versions';
import { CHANGE_FEED_DDL, PostgresChangeFeed } from './postgres-change-feed';
import { SCHEMA_NAME } from './migrations';
import { CLIENT_BOUND_MARGIN_MS, isGivenUp, notAnsweredInTime, statementBounds } from './client-bound';
import { withinMs } from '../deadline';
import { KeyedTurns } from '../keyed-turns';
import { parkedEventOfRow, type ParkedEventRow } from '../parked-event-row';
import { TouchedScopes } from '../../projections/scope-changes';
import { PreparingClient } from './preparing-client';

/** Two keys of pg_advisory_xact_lock: this constant for a read schema's tables, and the schema's hash. */
const READ_SCHEMA_LOCK_CLASS = 0x70_72_72_64; // 'prrd'
/** An operator's scan of whole tables (the digest), not a request's query: a bound of its own. */
const SCAN_TIMEOUT_MS = 60_000;
/** Readiness asks often and must answer quickly when the server does not. */
const PING_DEADLINE_MS = 2000;

export type PostgresReadDbOptions = {
  /** The schema of this generation's read models. */
  readonly schema: string;
  /**
   * The schema of records no event carries and that outlast a generation (a key's lastUsedAt),
   * and of the generation pointer and the rebuild lock: generation 0's. `schema` when omitted.
   */
  readonly keptSchema?: string;
  /** The server-side bound of every statement (a stuck query fails, transiently, instead of hanging). */
  readonly queryTimeoutMs: number;
  readonly poolSize?: number;
  /** False (READ_MEMO=off): no whole answer is remembered (the directory's facts still are). */
  readonly memo?: boolean;
  /**
   * A generation about to be built from the whole log, read by nobody until the pointer names it:
   * its stores may hold their writes in the process and send them once per batch (`holdWrites`),
   * its commits write no change feed (every process that serves it later starts from the feed's
   * end), and they do not wait for the disk (`synchronous_commit = off`). A crash loses at most
   * the last commits of a generation that is built again from the log anyway; the switch to it is
   * a commit on generation 0's connection, durable, and the WAL is flushed in order, so once the
   * switch is on disk so is every commit of the generation before it, its last checkpoints with it.
   */
  readonly bulkLoad?: boolean;
};

/**
 * A fence's lease, renewed from the server's clock if it is still its holder's with its token:
 * $1 the projection, $2 the holder, $3 the token, $4 the TTL in ms (`fenceValues`).
 */
const RENEW_LEASE = `update projection_leases set expires_at = clock_timestamp() + make_interval(secs => $4::double precision / 1000)
  where projection = $1 and holder = $2 and token = $3`;
const fenceValues = (fence: Fence): unknown[] => [fence.projection, fence.holder, fence.token.toString(), fence.ttlMs];

/** A checkpoint written, never moved back, the projection and the position bound to the parameters named. */
const upsertCheckpoint = (projection: string, position: string): string =>
  `insert into projection_checkpoints as c (projection, position) values (${projection}, ${position})
   on conflict (projection) do update set position = greatest(c.position, excluded.position)`;

/**
 * A store's writes held in the process during a bulk load: `flush` sends them into the batch's
 * transaction as it commits; `discard` forgets them when the transaction rolls back.
 */
export type HeldWrites = { flush(): Promise<void>; discard(): void };

/**
 * The transaction being committed in one async context: its connection, its statements, the
 * writes held for it, the scopes it changed.
 */
type Batch = {
  readonly client: pg.PoolClient;
  statements: number;
  readonly held: Set<HeldWrites>;
  /** The held writes of `batchWrites`, by the store that asked: one each per transaction. */
  readonly byOwner: Map<object, HeldWrites>;
  readonly touched: TouchedScopes;
  /** Statements sent without waiting for their answers (`write`), waited for as the batch commits. */
  readonly sent: Promise<unknown>[];
};

/** A statement: text with $n placeholders, and its values. */
export type Statement = { readonly text: string; readonly values?: readonly unknown[] };

/**
 * The read models' database on PostgreSQL: one schema per generation, every table of every read
 * model of that generation in it, beside the projections' checkpoints and leases. A batch of
 * events, its fence and the checkpoint after it are one transaction (`transaction`): statements
 * sent through `query` inside it join it, so a crash or a lost lease leaves nothing of the batch.
 * Leases expire by the server's clock (`clock_timestamp()`), never by the processes', which drift
 * apart on several machines.
 */
export class PostgresReadDb {
  /** The connection of the batch being committed in this async context. */
  private readonly batch = new AsyncLocalStorage<Batch>();
  private readonly ready: Promise<void>;
  private bulk: boolean;
  /** Secondary indexes held back while a new generation is bulk-loaded, built by `finishBulkLoad`. */
  private readonly deferredIndexes: string[] = [];
  /** What each commit changed, by scope: remembered answers are kept per scope (see PostgresChangeFeed). */
  readonly feed: PostgresChangeFeed;
  /** A resource's stored state and views, remembered until their scope changes (see ReadSnapshotMemo). */
  readonly memo: ReadSnapshotMemo;
  /** The JSON text of whole API answers, remembered until their scopes change (see AnswerMemo). */
  readonly answers: VersionedAnswerMemo;

  private constructor(
    private readonly pool: pg.Pool,
    readonly schema: string,
    readonly keptSchema: string,
    remember: boolean,
    bulkLoad: boolean,
  ) {
    this.bulk = bulkLoad;
    this.feed = new PostgresChangeFeed(schema, (text, values) => this.query(text, values));
    // A memo given no version keeps nothing: with READ_MEMO=off every list is answered cold.
    this.answers = new VersionedAnswerMemo(remember ? (scope) => this.version(scope) : () => null);
    this.memo = new ReadSnapshotMemo(remember ? (scope) => this.version(scope) : () => null);
    this.ready = this.ensure(`
      ${CHANGE_FEED_DDL};
      create table if not exists projection_checkpoints (
        projection text primary key,
        position bigint,
        log text,
        version integer
      );
      create table if not exists parked_events (
        projection text not null,
        position bigint not null,
        stream_id text not null,
        type text not null,
        error text not null,
        failures integer not null,
        first_failed_at text not null,
        last_failed_at text not null,
        primary key (projection, position)
      );
      create table if not exists projection_leases (
        projection text primary key,
        holder text not null,
        token bigint not null,
        expires_at timestamptz not null
      );`);
    this.ready.catch(() => undefined);
  }

  /** A read database on `schema`, created with its bookkeeping tables if it does not exist yet. */
  static async connect(connectionString: string, options: PostgresReadDbOptions): Promise<PostgresReadDb> {
    const keptSchema = options.keptSchema ?? options.schema;
    for (const schema of [options.schema, keptSchema])
      if (!SCHEMA_NAME.test(schema)) throw new Error(`not a schema name this store takes: ${JSON.stringify(schema)}`);
    const pool = new pg.Pool({
      connectionString,
      Client: PreparingClient,
      max: options.poolSize ?? 10,
      // A batch's writes go out behind each other without a round trip each (`write`).
      pipeline: true,
      options: `-c search_path=${options.schema}${options.bulkLoad ? ' -c synchronous_commit=off' : ''}`,
      // A batch stalled inside its transaction (a pause, a cut network) would hold its lease row:
      // the server ends it instead, which rolls the batch back.
      ...statementBounds(options.queryTimeoutMs),
      keepAlive: true,
    });
    // An idle connection that fails (the server restarted) is dropped by the pool; the next query
    // fails or gets a new one. Without a listener the pool's 'error' would end the process.
    pool.on('error', () => undefined);
    const read = new PostgresReadDb(pool, options.schema, keptSchema, options.memo ?? true, options.bulkLoad ?? false);
    try {
      if (keptSchema !== options.schema)
        await read.ensure(
          `create table if not exists "${keptSchema}".schema_marker (one boolean primary key)`,
          keptSchema,
        );
      await read.ready;
    } catch (error) {
      await pool.end();
      throw error;
    }
    return read;
  }

  /**
   * Runs idempotent DDL (`create … if not exists`) in `schema`, creating the schema first, under
   * an advisory lock keyed by the schema: processes opening the same read models at once would
   * otherwise collide in the catalogue. A read model's tables are never migrated: a read model
   * whose shape changes is built again into a new generation.
   */
  async ensure(ddl: string, schema: string = this.schema): Promise<void> {
    if (this.bulk && schema === this.schema) {
      // Each built once from the loaded rows (a sort) instead of kept in step with every insert:
      // about 40% less work for the resources' views. Their lookups while loading need none of
      // them (the stores read what they hold in the process, or by primary key); unique ones stay.
      const statements = ddl.split(';').filter((statement) => statement.trim() !== '');
      const deferred = statements.filter((statement) => /^\s*create\s+index\s/i.test(statement));
      this.deferredIndexes.push(...deferred);
      ddl = statements.filter((statement) => !deferred.includes(statement)).join(';');
      if (ddl === '') return;
    }
    const client = await this.pool.connect();
    const cut = () => undefined;
    client.on('error', cut);
    let failed: Error | undefined;
    try {
      try {
        // One round trip (a rebuild opens a dozen of these): the schema's name is one SCHEMA_NAME
        // admits, spelled in the text. Created only when missing, so that a role without CREATE
        // on the database opens schemas that exist.
        await client.query(`begin;
          select pg_advisory_xact_lock(${READ_SCHEMA_LOCK_CLASS}, hashtext('${schema}'));
          do $$ begin
            if not exists (select from pg_namespace where nspname = '${schema}') then create schema "${schema}"; end if;
          end $$;
          set local search_path to "${schema}";
          ${ddl};
          commit`);
      } catch (error) {
        failed = await rolledBack(client, error);
        throw error;
      }
    } finally {
      client.off('error', cut);
      client.release(failed);
    }
  }

  /** True while a new generation is built from the whole log (see PostgresReadDbOptions.bulkLoad). */
  get bulkLoading(): boolean {
    return this.bulk;
  }

  /**
   * The generation is built: its deferred indexes are built, its stores write through again, each
   * write in its own statement, and its commits say what they changed in the change feed again.
   */
  async finishBulkLoad(): Promise<void> {
    this.bulk = false;
    const indexes = this.deferredIndexes.splice(0);
    if (indexes.length > 0) await this.ensure(indexes.join(';\n'));
  }

  /**
   * Inside a batch: `writes` are sent as the batch commits, in its transaction, and forgotten if
   * it rolls back. Outside one there is nothing to join: false, and the caller writes at once.
   */
  holdWrites(writes: HeldWrites): boolean {
    const batch = this.batch.getStore();
    if (!batch) return false;
    batch.held.add(writes);
    return true;
  }

  /**
   * Inside a batch: the writes `owner` holds for it, made by `make` on its first call in this
   * batch and sent as the batch commits (see `holdWrites`), so that each transaction has its own
   * and a reader outside it never meets them. Undefined outside a batch.
   */
  batchWrites<W extends HeldWrites>(owner: object, make: () => W): W | undefined {
    const batch = this.batch.getStore();
    if (!batch) return undefined;
    let writes = batch.byOwner.get(owner) as W | undefined;
    if (!writes) {
      writes = make();
      batch.byOwner.set(owner, writes);
      batch.held.add(writes);
    }
    return writes;
  }

  /** True in the async context of a batch being committed. */
  get inBatch(): boolean {
    return this.batch.getStore() !== undefined;
  }

  /** Runs one statement: on the batch's connection inside a batch, on any of the pool's otherwise. */
  async query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    text: string,
    values: readonly unknown[] = [],
  ): Promise<pg.QueryResult<R>> {
    const batch = this.batch.getStore();
    if (batch) {
      batch.statements += 1;
      return batch.client.query<R>(text, values as unknown[]);
    }
    await this.ready;
    return this.pool.query<R>(text, values as unknown[]);
  }

  /**
   * Inside a transaction: its writes changed `scope` (EVERY_SCOPE: everything), or its `item`. Said in the
   * change feed in the same transaction, and applied here once it commits.
   */
  touch(scope: string, item?: number): void {
    const batch = this.batch.getStore();
    if (!batch) throw new Error(`a change to ${scope} outside a transaction would reach no other process`);
    if (!this.bulkLoading) batch.touched.touch(scope, item);
  }

  /**
   * Moves whenever `scope` changes, as of this process's last look at the feed (each request
   * looks as it starts: see `startReading`); null inside a transaction, whose rows are not settled.
   */
  version(scope: string): string | null {
    return this.inBatch ? null : this.feed.version(scope);
  }

  /** How many statements the batch being committed in this async context has sent (0 outside one). */
  batchOperations(): number {
    return this.batch.getStore()?.statements ?? 0;
  }

  /**
   * A write whose answer nobody reads. Inside a batch it is sent behind the batch's statements
   * without waiting for its answer (the connection is in pipeline mode), and the commit waits for
   * it: one that fails aborts the transaction, which then commits nothing. Outside a batch it runs
   * as `query` does.
   */
  async write(text: string, values: readonly unknown[] = []): Promise<void> {
    const batch = this.batch.getStore();
    if (!batch) {
      await this.query(text, values);
      return;
    }
    sentInBatch(batch, text, values);
  }

  /**
   * Runs `work` in one transaction on one connection; `query` calls inside it join it. A failure
   * rolls everything back; the runner replays the batch from its checkpoint. The `begin`, the
   * batch's writes, its change feed and the `commit` are sent without waiting between them, so a
   * batch costs a round trip for each read it makes and one more for all it writes.
   */
  async transaction<T>(work: () => Promise<T>): Promise<T> {
    if (this.inBatch) return work();
    await this.ready;
    const client = await this.pool.connect();
    // A connection cut while checked out fails its queries, and emits 'error' besides, which the
    // pool listens to only while the connection is idle: unheard, it would end the process.
    const cut = () => undefined;
    client.on('error', cut);
    let broken: Error | undefined;
    const held = new Set<HeldWrites>();
    const batch: Batch = {
      client,
      statements: 0,
      held,
      byOwner: new Map(),
      touched: new TouchedScopes(),
      sent: [sent(client.query('begin'))],
    };
    try {
      const result = await this.batch.run(batch, async () => {
        const done = await work();
        // The held writes first: the feed says what the transaction changed, theirs included.
        for (const writes of held) await writes.flush();
        return done;
      });
      for (const { text, values } of this.feed.statements(batch.touched))
        batch.sent.push(sent(client.query(text, values)));
      const committed = await client.query('commit');
      const failed = await firstFailure(batch.sent);
      if (failed !== undefined) throw failed;
      if (committed.command !== 'COMMIT') throw new Error(`the read models' commit answered ${committed.command}`);
      this.feed.committed(batch.touched);
      return result;
    } catch (error) {
      for (const writes of held) writes.discard();
      // A write sent ahead that failed aborted the transaction: a statement behind it that failed
      // only for that (25P02) is not what went wrong, the write's own error is.
      const earlier = await firstFailure(batch.sent);
      const cause = earlier !== undefined && isAbortedTransaction(error) ? earlier : error;
      broken = await rolledBack(client, cause);
      throw cause;
    } finally {
      client.off('error', cut);
      // A connection whose rollback failed may be left inside the transaction: dropped, not handed on.
      client.release(broken);
    }
  }

  /**
   * This process's writes to one projection's lease and its batches, one at a time: a batch holds
   * the lease row from its fence to its commit, and a renewal sent meanwhile would wait on the
   * server for it (and, past the statement bound, fail and demote the holder it was renewing).
   */
  private readonly leaseTurns = new KeyedTurns();

  inTurn<T>(projection: string, work: () => Promise<T>): Promise<T> {
    return this.leaseTurns.inTurn(projection, work);
  }

  async checkpoint(projection: string): Promise<bigint | undefined> {
    const { rows } = await this.query<{ position: string | null }>(
      'select position from projection_checkpoints where projection = $1',
      [projection],
    );
    const position = rows[0]?.position;
    return position === undefined || position === null ? undefined : BigInt(position);
  }

  /** Every asked checkpoint in one query: what the followers' polls read (FollowerPolls). */
  readonly checkpointSource: CheckpointSource = {
    checkpoints: async (projections) => {
      const { rows } = await this.query<{ projection: string; position: string | null }>(
        'select projection, position from projection_checkpoints where projection = any($1::text[])',
        [[...projections]],
      );
      // A write waited for here is followed by reads of what it changed: the feed is looked at
      // after the checkpoints, so what they show committed is applied before the wait ends.
      if (!this.inBatch) await this.feed.sync();
      return new Map(
        rows.flatMap((row) => (row.position === null ? [] : [[row.projection, BigInt(row.position)] as const])),
      );
    },
  };

  async checkpointLog(projection: string): Promise<string | undefined> {
    const { rows } = await this.query<{ log: string | null }>(
      'select log from projection_checkpoints where projection = $1',
      [projection],
    );
    return rows[0]?.log ?? undefined;
  }

  async setCheckpointLog(projection: string, log: string): Promise<void> {
    await this.query(
      `insert into projection_checkpoints (projection, log) values ($1, $2)
       on conflict (projection) do update set log = excluded.log`,
      [projection, log],
    );
  }

  async readModelVersion(projection: string): Promise<number | undefined> {
    const { rows } = await this.query<{ version: number | null }>(
      'select version from projection_checkpoints where projection = $1',
      [projection],
    );
    return rows[0]?.version ?? undefined;
  }

  async setReadModelVersion(projection: string, version: number): Promise<void> {
    await this.query(
      `insert into projection_checkpoints (projection, version) values ($1, $2)
       on conflict (projection) do update set version = excluded.version`,
      [projection, version],
    );
  }

  /**
   * Never moves a checkpoint back: an operator's retry of a parked event writes back the
   * checkpoint it read, which a batch of the leader may have passed meanwhile (read committed).
   */
  async writeCheckpoint(projection: string, position: bigint): Promise<void> {
    await this.write(upsertCheckpoint('$1', '$2'), [projection, position.toString()]);
  }

  /**
   * The checkpoint of a batch, and its lease renewed (`fence`) in the same statement: the batch's
   * own fence locked the lease row at its start, so the renewal cannot miss; it makes the lease
   * committed with the batch run its whole TTL from the batch's end, however long the work took.
   */
  async writeCheckpointRenewing(projection: string, position: bigint, fence: Fence): Promise<void> {
    await this.write(`with renewed as (${RENEW_LEASE}) ${upsertCheckpoint('$5', '$6')}`, [
      ...fenceValues(fence),
      projection,
      position.toString(),
    ]);
  }

  async clearCheckpoint(projection: string): Promise<void> {
    await this.query('delete from projection_checkpoints where projection = $1', [projection]);
    await this.query('delete from parked_events where projection = $1', [projection]);
  }

  async park(event: ParkedEvent): Promise<void> {
    await this.query(
      `insert into parked_events
       (projection, position, stream_id, type, error, failures, first_failed_at, last_failed_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8)
       on conflict (projection, position) do update set stream_id = excluded.stream_id, type = excluded.type,
         error = excluded.error, failures = excluded.failures, first_failed_at = excluded.first_failed_at,
         last_failed_at = excluded.last_failed_at`,
      [
        event.readModel,
        event.position.toString(),
        event.streamId,
        event.type,
        event.error,
        event.failures,
        event.firstFailedAt,
        event.lastFailedAt,
      ],
    );
  }

  async parked(projection: string): Promise<ParkedEvent[]> {
    const { rows } = await this.query<ParkedEventRow>(
      `select projection, position, stream_id, type, error, failures, first_failed_at, last_failed_at
       from parked_events where projection = $1 order by position`,
      [projection],
    );
    return rows.map(parkedEventOfRow);
  }

  async unpark(projection: string, position: bigint): Promise<boolean> {
    const { rowCount } = await this.query('delete from parked_events where projection = $1 and position = $2', [
      projection,
      position.toString(),
    ]);
    return (rowCount ?? 0) > 0;
  }

  /**
   * Inside a batch's transaction: the lease must still be this holder's with this token; it is
   * renewed from the server's clock. The update locks the lease row until the batch commits, so a
   * takeover either committed first (the fence misses, nothing is committed) or waits for the
   * batch. Sent without waiting for its answer: the batch's reads go out behind it in the same
   * round trip, and whatever the batch sends meanwhile runs after it in the transaction, rolled
   * back with it when the lease did not hold. Answers whether it held; a statement that failed
   * answers true here, its error reaching the batch as any of its statements' does (the commit
   * fails with it).
   */
  fence(fence: Fence): Promise<boolean> {
    const batch = this.batch.getStore();
    if (!batch) throw new Error('a fence is sent only inside a batch');
    return sentInBatch(batch, RENEW_LEASE, fenceValues(fence)).then(
      ({ rowCount }) => rowCount !== 0,
      () => true,
    );
  }

  /**
   * Leases on the server's clock (`nowMs` unused): taken when free, expired or already this
   * holder's, in one statement: the same token for its holder, the next one for anyone else.
   */
  readonly leases: LeaseStore = {
    acquire: (projection, holder, ttlMs): Promise<Lease | null> =>
      this.inTurn(projection, async () => {
        const { rows } = await this.query<{ token: string }>(
          `insert into projection_leases as l (projection, holder, token, expires_at)
           values ($1, $2, 1, clock_timestamp() + make_interval(secs => $3::double precision / 1000))
           on conflict (projection) do update set
             token = case when l.holder = excluded.holder then l.token else l.token + 1 end,
             holder = excluded.holder,
             expires_at = excluded.expires_at
           where l.holder = excluded.holder or l.expires_at <= clock_timestamp()
           returning token`,
          [projection, holder, ttlMs],
        );
        const token = rows[0]?.token;
        return token === undefined ? null : { projection, holder, token: BigInt(token) };
      }),
    release: (lease) =>
      this.inTurn(lease.projection, async () => {
        await this.query('delete from projection_leases where projection = $1 and holder = $2 and token = $3', [
          lease.projection,
          lease.holder,
          lease.token.toString(),
        ]);
      }),
  };

  /** Every row of `table`, in primary-key order (an operator's scan, bounded on its own). */
  async scan(table: string): Promise<Record<string, unknown>[]> {
    const client = await this.pool.connect();
    let failed: Error | undefined;
    try {
      await client.query(`set statement_timeout = ${SCAN_TIMEOUT_MS}`);
      // node-postgres takes a statement's own query_timeout; its types do not say so.
      const scanStatement = {
        text: `select * from ${table} order by 1, 2`,
        query_timeout: SCAN_TIMEOUT_MS + CLIENT_BOUND_MARGIN_MS,
      } as pg.QueryConfig;
      const { rows } = await client.query<Record<string, unknown>>(scanStatement);
      return rows;
    } catch (error) {
      failed = error instanceof Error ? error : new Error(String(error));
      throw error;
    } finally {
      // A connection that failed is dropped: it may still be inside the scan, or keep its bound.
      if (!failed) await client.query('reset statement_timeout').catch((error: Error) => (failed = error));
      client.release(failed);
    }
  }

  /** Readiness: bounded whatever the connection does. */
  async ping(): Promise<void> {
    await withinMs(this.query('select 1'), PING_DEADLINE_MS, notAnsweredInTime);
  }

  /**
   * Fills this (new, empty) generation with a copy of `source`'s tables, as one instant of them
   * (a repeatable-read transaction): each table made alike, its rows copied, then its indexes built
   * under their own names, so the stores that open here next find them as they declare them. The
   * leases stay the source's: the copy's runners take their own once it is served.
   */
  async copyFrom(source: string): Promise<void> {
    if (!SCHEMA_NAME.test(source)) throw new Error(`not a schema name this store takes: ${JSON.stringify(source)}`);
    await this.ready;
    const target = this.schema;
    const client = await this.pool.connect();
    const cut = () => undefined;
    client.on('error', cut);
    let failed: Error | undefined;
    try {
      await client.query('begin isolation level repeatable read');
      try {
        const { rows: tables } = await client.query<{ tablename: string }>(
          'select tablename from pg_tables where schemaname = $1 order by 1',
          [source],
        );
        const { rows: indexes } = await client.query<{ indexdef: string }>(
          'select indexdef from pg_indexes where schemaname = $1',
          [source],
        );
        for (const { tablename } of tables) {
          const table = `"${tablename.replaceAll('"', '""')}"`;
          await client.query(`drop table if exists "${target}".${table}`);
          await client.query(
            `create table "${target}".${table} (like "${source}".${table} including all excluding indexes)`,
          );
          await client.query(`insert into "${target}".${table} select * from "${source}".${table}`);
        }
        const qualified = new RegExp(` ON (?:"${source}"|${source})\\.`);
        for (const { indexdef } of indexes) await client.query(indexdef.replace(qualified, ` ON "${target}".`));
        await client.query(`delete from "${target}".projection_leases`);
        await client.query('commit');
      } catch (error) {
        failed = await rolledBack(client, error);
        throw error;
      }
    } finally {
      client.off('error', cut);
      client.release(failed);
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

/**
 * The runner's side of a PostgreSQL read model: a batch's fence, its writes and the checkpoint
 * after it in one transaction, taken in turn with this process's lease writes. `tables` are
 * emptied on reset and hashed, in primary-key order, for the digest.
 */
export function postgresProjectionStore(read: PostgresReadDb, tables: readonly string[]): ProjectionStore {
  return {
    commit: (projection, position, work, fence) =>
      read.inTurn(projection, () =>
        read.transaction(async () => {
          // The fence's answer comes back with the batch's first reads, not a round trip before them.
          const held = fence ? read.fence(fence) : undefined;
          const lost = async () => held !== undefined && !(await held);
          let reached: bigint | void;
          try {
            reached = await work();
          } catch (error) {
            // A batch that had lost its lease failed because of it, whatever its fold threw.
            if (await lost()) throw new LeaseLostError(projection);
            throw error;
          }
          if (await lost()) throw new LeaseLostError(projection);
          if (fence) await read.writeCheckpointRenewing(projection, reached ?? position, fence);
          else await read.writeCheckpoint(projection, reached ?? position);
        }),
      ),
    checkpoint: (projection) => read.checkpoint(projection),
    batchOperations: () => read.batchOperations(),
    checkpointSource: read.checkpointSource,
    checkpointLog: (projection) => read.checkpointLog(projection),
    setCheckpointLog: (projection, log) => read.setCheckpointLog(projection, log),
    readModelVersion: (projection) => read.readModelVersion(projection),
    setReadModelVersion: (projection, version) => read.setReadModelVersion(projection, version),
    park: (event) => read.park(event),
    parked: (projection) => read.parked(projection),
    unpark: (projection, position) => read.unpark(projection, position),
    reset: (projection) =>
      read.transaction(async () => {
        // Loading a new generation, whose builder is its only writer: only the tables holding
        // rows, since a truncate gives each table new files even when empty, as a new one's are.
        const holding = read.bulkLoading ? await tablesHoldingRows(read, tables) : tables;
        if (holding.length > 0) await read.query(`truncate ${holding.join(', ')}`);
        await read.clearCheckpoint(projection);
        read.touch(EVERY_SCOPE);
      }),
    digest: async (): Promise<ReadModelDigest> =>
      canonicalDigest(await Promise.all(tables.map(async (name) => ({ name, rows: await read.scan(name) })))),
  };
}

/** Which of `tables` hold a row, in one statement. */
async function tablesHoldingRows(read: PostgresReadDb, tables: readonly string[]): Promise<string[]> {
  if (tables.length === 0) return [];
  const { rows } = await read.query<Record<string, boolean>>(
    `select ${tables.map((table, i) => `exists (select from ${table}) as t${i}`).join(', ')}`,
  );
  return tables.filter((_, i) => rows[0]?.[`t${i}`] === true);
}

/** A statement sent ahead: its failure is observed as the batch commits, never left unhandled. */
function sent(query: Promise<unknown>): Promise<unknown> {
  query.catch(() => undefined);
  return query;
}

/** A statement sent into the batch without waiting for its answer, counted, its failure the commit's. */
function sentInBatch(batch: Batch, text: string, values: readonly unknown[]): Promise<pg.QueryResult> {
  batch.statements += 1;
  const query = batch.client.query(text, values as unknown[]);
  batch.sent.push(sent(query));
  return query;
}

/** PostgreSQL's answer to a statement sent into a transaction an earlier statement aborted. */
const isAbortedTransaction = (error: unknown): boolean => (error as { code?: unknown } | null)?.code === '25P02';

/** The error of the first of `statements` that failed, once all have answered; undefined if none did. */
async function firstFailure(statements: readonly Promise<unknown>[]): Promise<unknown> {
  for (const outcome of await Promise.allSettled(statements)) if (outcome.status === 'rejected') return outcome.reason;
  return undefined;
}

/**
 * Rolls back the transaction `error` ended: what the connection must be released with, an error
 * (dropped, not handed on) when it was given up inside a statement or its rollback failed.
 */
async function rolledBack(client: pg.PoolClient, error: unknown): Promise<Error | undefined> {
  if (isGivenUp(error)) return error as Error;
  try {
    await client.query('rollback');
    return undefined;
  } catch (rollbackError) {
    return rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
  }
}

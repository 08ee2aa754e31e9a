import pg from 'pg';
import Cursor from 'pg-cursor';
import type { EventMetadata } from '../../domain/event';
import {
  NoEventLogError,
  storableEvents,
  type AppendOptions,
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type RecordedEvent,
  type StreamRange,
  type ScannedEvents,
  type Subscription,
} from '../../ports/event-store';
import {
  type IdempotencyClaim,
  type IdempotencyKeys,
  type IdempotencyRecord,
  type IdempotencyRef,
  type RememberedAnswer,
} from '../../ports/idempotency-keys';
import type { ChainHead, ChainReport, LogIntegrity } from '../../ports/log-integrity';
import { ChainCheck } from '../../audit/log-hash';
import { pollingSubscription } from '../../projections/polling-subscription';
import { LogNotifications } from './log-notifications';
import { migrate, SCHEMA_NAME } from './migrations';
import { commitBatch } from './postgres-group-commit';
import type { AppendOutcome, StoredAppend } from '../stored-append';
import { idempotencyRecordOf, type IdempotencyRow } from '../idempotency-row';
import { isGivenUp, notAnsweredInTime, statementBounds } from './client-bound';
import { isTransientStoreError } from '../../projections/transient-error';
import { SharedLogReads } from './shared-log-reads';
import { PreparingClient } from './preparing-client';
import { withinMs } from '../deadline';

/*
 * Global order. The port's `position` must grow in the order readers see events, and a reader
 * that has read up to p must never find later an event at or below p: a projection reads "after
 * its checkpoint" and would skip it for good. With positions from a plain sequence that breaks
 * under concurrent appends: transaction A takes 10, B takes 11, B commits first, a reader reads
 * 11 and moves its checkpoint past 10, then A commits 10.
 *
 * Two known ways out:
 *  1. Positions from a sequence, each event also stamped with its transaction id
 *     (pg_current_xact_id()), and readers shown only the rows of transactions older than every
 *     transaction still running (`transaction_id < pg_snapshot_xmin(pg_current_snapshot())`),
 *     ordered by (transaction_id, position): Emmett's PostgreSQL store, Marten, Eventuous. Appends
 *     never wait for each other; but the order is not the sequence's, so the port's single bigint
 *     would have to be made of both; the horizon is the whole cluster's, so any long transaction
 *     anywhere on the server (a report, a backup, a session left idle in a transaction) holds back
 *     every follower and every read-your-writes wait; and the chain's previous event is not known
 *     when an append commits (an older transaction may still commit before it in that order), so
 *     the hash chain could not be computed in the append's transaction.
 *  2. Positions given out under a lock held until commit: each append locks the one row of
 *     `log_head` (SELECT ... FOR UPDATE), takes the next positions from it and writes the new end
 *     back, and commits. The next append gets the lock only once the previous one has committed
 *     (PostgreSQL makes a transaction visible before it releases its locks), so positions are
 *     given in commit order: every snapshot sees a prefix of the log, a plain `position > $from`
 *     is exact, and positions have no holes (a rolled-back append gives its positions back). The
 *     chain's end lives on the same row, so each append hashes its events after its predecessor's,
 *     in its own transaction.
 *
 * This store takes the second: exact, simple for readers, and the chain in the append. Its price is
 * that appends to the whole log are serial: the lock is held for one statement on the server (a
 * group commit's call of `log_append`) and its commit, never across a round trip to a process
 * (bench/postgres-appends.ts measures what that allows). Appends to one stream are
 * serial anyway; optimistic concurrency per stream is checked under the lock and backed by the
 * unique (stream_id, revision).
 */

/** Followers read again at least this often when no notification wakes them (a lost LISTEN connection). */
const DEFAULT_POLL_INTERVAL_MS = 1000;
const subscriptionPageSize = 256;
/** A scan by type looks through at most this many positions per query, and reports how far it got between them. */
const DEFAULT_SCAN_WINDOW = 100_000;
/** A claim sweeps expired idempotency keys at most this often (in the claims' epoch ms), at most this many at once. */
const SWEEP_EVERY_MS = 60_000;
const SWEEP_BATCH = 1000;
/** Readiness asks often and must answer quickly when the server does not. */
const PING_DEADLINE_MS = 2000;
/** The log's statement bound where none is given (the service gives POSTGRES_STATEMENT_TIMEOUT_MS). */
const DEFAULT_STATEMENT_TIMEOUT_MS = 9_000;
/** An auditor's check of the whole chain reads the whole log in one snapshot: its own, longer bound. */
const VERIFY_BOUND_MS = 10 * 60_000;
const VERIFY_BATCH = 1000;
/** A group commit takes at most this many appends, and this many characters of JSON (past its first append). */
const MAX_BATCH_APPENDS = 256;
const MAX_BATCH_CHARS = 4 * 1024 * 1024;

export type PostgresEventStoreOptions = {
  /** The schema holding the log (created, then migrated, at connect); default `public`. */
  readonly schema?: string;
  /** Connections of the store's pool (appends, reads); the LISTEN connection is one more. */
  readonly poolSize?: number;
  readonly pollIntervalMs?: number;
  /** Positions a scan by type (scanAll) looks through per query; default 100,000. */
  readonly scanWindow?: number;
  /**
   * The server cancels a statement of the log past this bound (a group commit then rolls back as
   * a whole and its appends fail, transient: a 503) and ends a transaction left idle as long; the
   * client gives a statement up a little later (client-bound.ts): across a cut network the
   * server's answer never comes. Default 9 s.
   */
  readonly statementTimeoutMs?: number;
  /** Only a schema that holds a log: where it has none, every call fails with NoEventLogError. */
  readonly existingOnly?: boolean;
};

type EventRow = [position: string, streamId: string, revision: string, type: string, data: string, metadata: string];

function toRecorded([position, streamId, revision, type, data, metadata]: EventRow): RecordedEvent {
  return {
    streamId,
    type,
    data: JSON.parse(data) as unknown,
    metadata: JSON.parse(metadata) as EventMetadata,
    revision: BigInt(revision),
    position: BigInt(position),
  };
}

const COLUMNS = 'position, stream_id, revision, type, data, metadata';

type PendingAppend = {
  readonly append: StoredAppend;
  readonly bytes: number;
  readonly resolve: (result: AppendResult) => void;
  readonly reject: (error: unknown) => void;
};

/**
 * The event log in PostgreSQL (see "Global order" above): the `EventStore` port, idempotency
 * keys recorded in the append's own transaction, and the hash chain computed there. The schema is
 * migrated when the store connects (src/infra/postgres/migrations.ts); every call waits for that.
 * Followers are woken by LISTEN/NOTIFY, with a poll as the fallback.
 */
export class PostgresEventStore implements EventStore, IdempotencyKeys, LogIntegrity {
  private readonly pool: pg.Pool;
  /** The group commit's one connection: one commit at a time, each one statement. */
  private readonly writer: pg.Pool;
  /** Appends waiting for the next group commit. */
  private pending: PendingAppend[] = [];
  /** The group commit under way, if any: appends arriving meanwhile wait in `pending` for the next. */
  private committing: Promise<void> | undefined;
  private readonly ready: Promise<void>;
  private readonly listeners = new Set<() => void>();
  /** What the live subscriptions read of the log's end, read once for them all. */
  private readonly recent: SharedLogReads;
  private readonly subscriptions = new Set<Subscription>();
  private notifications: LogNotifications | undefined;
  private readonly channel: string;
  private logId: Promise<string> | undefined;
  private lastSweep = Number.NEGATIVE_INFINITY;
  private closed = false;

  private constructor(
    private readonly clientConfig: pg.ClientConfig,
    readonly schema: string,
    poolSize: number,
    private readonly pollIntervalMs: number,
    private readonly scanWindow: bigint,
    /** A statement whose answer has not come by then is given up on the client (client-bound.ts). */
    private readonly clientBoundMs: number,
    existingOnly: boolean,
  ) {
    this.recent = new SharedLogReads(pollIntervalMs);
    this.pool = new pg.Pool({ ...clientConfig, max: poolSize, Client: PreparingClient });
    // An idle connection that fails (the server restarted) is dropped by the pool; the next query
    // fails or gets a new one. Without a listener the pool's 'error' would end the process.
    this.pool.on('error', () => undefined);
    this.writer = new pg.Pool({
      ...clientConfig,
      // A commit is one statement, its own transaction: under READ COMMITTED each statement of
      // log_append sees every commit that held the log's row before it, whatever the server's default.
      options: `${clientConfig.options ?? ''} -c default_transaction_isolation=read\\ committed`,
      Client: PreparingClient,
      max: 1,
      query_timeout: clientBoundMs,
    });
    this.writer.on('error', () => undefined);
    this.channel = `event_log_${schema}`;
    this.ready = this.withClient(this.pool, async (client) => {
      if (existingOnly) {
        const { rows } = await client.query(
          `select 1 from information_schema.tables where table_schema = $1 and table_name = 'events'`,
          [schema],
        );
        if (rows.length === 0) throw new NoEventLogError(`PostgreSQL schema ${schema}`);
      }
      await migrate(client, schema);
    });
    // Every call awaits `ready` and fails with its error; unobserved, it would be an unhandled rejection.
    this.ready.catch(() => undefined);
  }

  /** The store at once, its schema migrated in the background: every call waits for it. */
  static open(connectionString: string, options: PostgresEventStoreOptions = {}): PostgresEventStore {
    const schema = options.schema ?? 'public';
    if (!SCHEMA_NAME.test(schema)) throw new Error(`not a schema name this store takes: ${JSON.stringify(schema)}`);
    // The server's own bounds: a statement abandoned by its client (given up, below) does not run
    // on, holding a connection and the log's lock while the client's retries open more. The
    // client's bound is put on each statement instead of the pool: a cursor (verifyIntegrity)
    // must not be given up mid-scan.
    const { query_timeout: clientBoundMs, ...serverBounds } = statementBounds(
      options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS,
    );
    const config: pg.ClientConfig = {
      connectionString,
      // Unqualified names resolve in the log's schema, on every connection of the store.
      options: `-c search_path=${schema}`,
      ...serverBounds,
      // The LISTEN connection stays idle for long: keep-alives find a cut one (the poll covers meanwhile).
      keepAlive: true,
    };
    return new PostgresEventStore(
      config,
      schema,
      options.poolSize ?? 10,
      options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
      BigInt(options.scanWindow ?? DEFAULT_SCAN_WINDOW),
      clientBoundMs,
      options.existingOnly ?? false,
    );
  }

  /** The store once its schema is migrated (the first process migrates, the others wait for it). */
  static async connect(connectionString: string, options?: PostgresEventStoreOptions): Promise<PostgresEventStore> {
    const store = PostgresEventStore.open(connectionString, options);
    try {
      await store.ready;
    } catch (error) {
      await store.close();
      throw error;
    }
    return store;
  }

  private async withClient<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await pool.connect();
    // A connection cut while checked out fails its queries, and emits 'error' besides, which the
    // pool listens to only while the connection is idle: unheard, it would end the process.
    const cut = () => undefined;
    client.on('error', cut);
    let givenUp: Error | undefined;
    try {
      return await work(client);
    } catch (error) {
      if (isGivenUp(error) || isTransientStoreError(error)) givenUp = error as Error;
      throw error;
    } finally {
      client.off('error', cut);
      // A connection left inside a transaction (its rollback failed), inside a statement given
      // up, or after a passing failure (among them one the server or the network ended) is
      // dropped, not handed on: an ended one still looks idle here (its last answer said so)
      // until its end is heard, and the next commit would fail on it.
      const status = client.getTransactionStatus();
      client.release(
        givenUp ?? (status === 'I' || status === null ? undefined : new Error(`left in transaction (${status})`)),
      );
    }
  }

  /**
   * A statement with the client's bound (node-postgres takes a statement's own query_timeout; its
   * types do not say so). Not the pool's own: a cursor (verifyIntegrity) must not be given up mid-scan.
   */
  private bounded<T extends pg.QueryConfig | pg.QueryArrayConfig>(statement: T): T {
    return { ...statement, query_timeout: this.clientBoundMs };
  }

  private async query<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>> {
    await this.ready;
    return this.pool.query<R>(this.bounded({ text, values }));
  }

  private async rows(text: string, values: unknown[]): Promise<EventRow[]> {
    await this.ready;
    const result = await this.pool.query<EventRow>(this.bounded({ text, values, rowMode: 'array' }));
    return result.rows;
  }

  /** The log id written into `log_head` with the schema, once, by whichever process migrated first. */
  identity(): Promise<string> {
    this.logId ??= this.query<{ log_id: string }>('select log_id from log_head').then(
      ({ rows }) => rows[0]!.log_id,
      (error: unknown) => {
        this.logId = undefined;
        throw error;
      },
    );
    return this.logId;
  }

  /**
   * Group commit, as the embedded store does: the appends that arrive while this store's previous
   * commit is under way are written together in the next one (postgres-group-commit.ts), one
   * transaction and one turn of the log's lock for all of them, each checked on its own (one
   * refused fails alone). Each append answers only once its commit has.
   */
  appendToStream(
    streamId: string,
    events: readonly NewEvent[],
    expected: ExpectedRevision,
    options?: AppendOptions,
  ): Promise<AppendResult> {
    return new Promise((resolve, reject) => {
      if (this.closed) throw new Error('the PostgreSQL event store is closed');
      // Serialised and measured here: an event that cannot be stored, or an append over
      // MAX_APPEND_BYTES, fails alone and is never sent.
      const texts = storableEvents(streamId, events);
      const stored = events.map((event, i) => ({ type: event.type, ...texts[i]! }));
      const bytes = texts.reduce((sum, text) => sum + text.data.length + text.metadata.length, 0);
      this.pending.push({
        append: { streamId, events: stored, expected, claim: options?.idempotency },
        bytes,
        resolve,
        reject,
      });
      if (this.pending.length === 1 && !this.committing) setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    if (this.committing || this.pending.length === 0) return;
    // A batch of appends up to a bound on their count and size (at least one append).
    let taken = 0;
    let bytes = 0;
    while (taken < this.pending.length && taken < MAX_BATCH_APPENDS) {
      bytes += this.pending[taken]!.bytes;
      if (taken > 0 && bytes > MAX_BATCH_CHARS) break;
      taken += 1;
    }
    const batch = this.pending.splice(0, taken);
    this.committing = this.commit(batch).finally(() => {
      this.committing = undefined;
      this.flush();
    });
  }

  private async commit(batch: readonly PendingAppend[]): Promise<void> {
    let outcomes: AppendOutcome[];
    try {
      await this.ready;
      outcomes = await this.withClient(this.writer, (client) =>
        commitBatch(
          client,
          batch.map((p) => p.append),
          this.channel,
        ),
      );
    } catch (error) {
      for (const waiting of batch) waiting.reject(error);
      return;
    }
    const written = outcomes.flatMap((outcome) => (outcome.ok ? [outcome.result.position] : []));
    if (written.length > 0) this.wakeFollowers(written.reduce((a, b) => (a > b ? a : b)));
    outcomes.forEach((outcome, i) => {
      const waiting = batch[i]!;
      if (outcome.ok) waiting.resolve(outcome.result);
      else waiting.reject(outcome.error);
    });
  }

  async readStream(streamId: string, range?: StreamRange): Promise<RecordedEvent[]> {
    const rows = range
      ? await this.rows(
          `select ${COLUMNS} from events where stream_id = $1 and revision >= $2 order by revision limit $3`,
          [streamId, range.fromRevision.toString(), range.maxCount],
        )
      : await this.rows(`select ${COLUMNS} from events where stream_id = $1 order by revision`, [streamId]);
    return rows.map(toRecorded);
  }

  async readLastEvent(streamId: string): Promise<RecordedEvent | undefined> {
    const rows = await this.rows(`select ${COLUMNS} from events where stream_id = $1 order by revision desc limit 1`, [
      streamId,
    ]);
    return rows[0] && toRecorded(rows[0]);
  }

  async headPosition(): Promise<bigint | undefined> {
    const { rows } = await this.query<{ position: string }>('select position from log_head');
    const position = BigInt(rows[0]!.position);
    return position === 0n ? undefined : position;
  }

  /**
   * Positions are given in commit order (see "Global order"), so every read sees a prefix of the
   * log: `position > from` misses nothing that commits later.
   */
  async readAll(from: bigint | undefined, maxCount: number, types?: ReadonlySet<string>): Promise<RecordedEvent[]> {
    if (maxCount <= 0) return [];
    const rows = types
      ? await this.rows(
          `select ${COLUMNS} from events where position > $1 and type = any($3::text[]) order by position limit $2`,
          [(from ?? 0n).toString(), maxCount, [...types]],
        )
      : await this.rows(`select ${COLUMNS} from events where position > $1 order by position limit $2`, [
          (from ?? 0n).toString(),
          maxCount,
        ]);
    return rows.map(toRecorded);
  }

  /**
   * The events of `types` after `from`, filtered by the server (`type = any(...)`, on the index of
   * (type, position)), window by window of `scanWindow` positions up to the log's end as it was
   * when the scan began: every position up to it is committed (positions are given in commit
   * order), so `scannedTo` is exact.
   */
  async scanAll(
    from: bigint | undefined,
    maxCount: number,
    types: ReadonlySet<string>,
    scanning?: (position: bigint) => Promise<void>,
  ): Promise<ScannedEvents> {
    const head = await this.headPosition();
    if (head === undefined || (from !== undefined && from >= head) || maxCount <= 0 || types.size === 0)
      return { events: [], scannedTo: from };
    const events: RecordedEvent[] = [];
    let after = from ?? 0n;
    while (after < head) {
      const to = after + this.scanWindow < head ? after + this.scanWindow : head;
      const rows = await this.rows(
        `select ${COLUMNS} from events where position > $1 and position <= $2 and type = any($3::text[])
         order by position limit $4`,
        [after.toString(), to.toString(), [...types], maxCount - events.length],
      );
      for (const row of rows) events.push(toRecorded(row));
      if (events.length >= maxCount) return { events, scannedTo: events.at(-1)!.position };
      after = to;
      if (events.length === 0 && after < head) await scanning?.(after);
    }
    return { events, scannedTo: head };
  }

  subscribeToAll(
    from: bigint | undefined,
    onEvent: (event: RecordedEvent) => Promise<void>,
    onError?: (error: unknown) => void,
  ): Subscription {
    const subscription = pollingSubscription({
      from,
      read: (after) => this.recent.after(after ?? 0n, subscriptionPageSize, (from, max) => this.readAll(from, max)),
      pageSize: subscriptionPageSize,
      pollIntervalMs: this.pollIntervalMs,
      listen: (wake) => {
        this.listeners.add(wake);
        this.listenForAppends();
        return () => this.listeners.delete(wake);
      },
      onEvent,
      onError,
      onClosed: () => this.subscriptions.delete(subscription),
    });
    this.subscriptions.add(subscription);
    return subscription;
  }

  /**
   * Appends committed, the log's head after them where known (this process's batch, a
   * notification's payload): the shared reads are told before the followers wake to read them.
   */
  private wakeFollowers(head?: bigint): void {
    if (!this.recent.committed(head)) return;
    for (const wake of this.listeners) wake();
  }

  /** From the first subscription on, appends of other processes (and of this one) wake the followers. */
  private listenForAppends(): void {
    if (this.notifications || this.closed) return;
    this.notifications = new LogNotifications(this.clientConfig, this.channel, (head) => this.wakeFollowers(head));
    this.notifications.start();
  }

  async readIdempotencyKey(ref: IdempotencyRef, now: number): Promise<IdempotencyRecord | undefined> {
    const { rows } = await this.query<IdempotencyRow>(
      `select fingerprint, owner, claimed_at, expires_at, write_stream, write_position, answer_status, answer_type,
         answer_body
       from idempotency_keys where scope = $1 and key = $2 and expires_at > $3`,
      [ref.scope, ref.key, now],
    );
    return rows[0] && idempotencyRecordOf(rows[0]);
  }

  async claimIdempotencyKey(
    claim: IdempotencyClaim,
    record: { readonly fingerprint: string; readonly now: number; readonly expiresAt: number },
    replacing?: string,
  ): Promise<boolean> {
    await this.sweepExpiredKeys(record.now);
    if (replacing !== undefined) {
      const { rowCount } = await this.query(
        `update idempotency_keys set owner = $1, claimed_at = $2
         where scope = $3 and key = $4 and owner = $5 and answer_status is null and expires_at > $2`,
        [claim.owner, record.now, claim.scope, claim.key, replacing],
      );
      return rowCount === 1;
    }
    // A record of this key that expired is replaced whole, swept or not.
    const { rowCount } = await this.query(
      `insert into idempotency_keys (scope, key, fingerprint, owner, claimed_at, expires_at)
       values ($1, $2, $3, $4, $5, $6)
       on conflict (scope, key) do update set
         fingerprint = excluded.fingerprint, owner = excluded.owner, claimed_at = excluded.claimed_at,
         expires_at = excluded.expires_at, write_stream = null, write_position = null,
         answer_status = null, answer_type = null, answer_body = null
       where idempotency_keys.expires_at <= excluded.claimed_at`,
      [claim.scope, claim.key, record.fingerprint, claim.owner, record.now, record.expiresAt],
    );
    return rowCount === 1;
  }

  /**
   * Expired keys are deleted by the claims that come after their time (expires_at is indexed), at
   * most once a minute of claim time per process and SWEEP_BATCH at once, so that no claim pays for
   * a day's keys: a full batch leaves the next claim to go on.
   */
  private async sweepExpiredKeys(now: number): Promise<void> {
    if (now - this.lastSweep < SWEEP_EVERY_MS) return;
    const { rowCount } = await this.query(
      `delete from idempotency_keys where (scope, key) in (
         select scope, key from idempotency_keys where expires_at <= $1 limit $2
       )`,
      [now, SWEEP_BATCH],
    );
    if ((rowCount ?? 0) < SWEEP_BATCH) this.lastSweep = now;
  }

  async completeIdempotencyKey(claim: IdempotencyClaim, answer: RememberedAnswer): Promise<boolean> {
    const { rowCount } = await this.query(
      `update idempotency_keys set answer_status = $1, answer_type = $2, answer_body = $3
       where scope = $4 and key = $5 and owner = $6 and answer_status is null`,
      [answer.status, answer.contentType, answer.body, claim.scope, claim.key, claim.owner],
    );
    return rowCount === 1;
  }

  async releaseIdempotencyKey(claim: IdempotencyClaim): Promise<void> {
    // One statement: a record without a write goes, one with a write is open to a takeover.
    await this.query(
      `with forgotten as (
         delete from idempotency_keys
         where scope = $1 and key = $2 and owner = $3 and write_stream is null and answer_status is null
         returning 1
       )
       update idempotency_keys set claimed_at = 0
       where scope = $1 and key = $2 and owner = $3 and answer_status is null
         and not exists (select from forgotten)`,
      [claim.scope, claim.key, claim.owner],
    );
  }

  async integrityHead(): Promise<ChainHead | undefined> {
    const { rows } = await this.query<{ position: string; hash: Buffer }>(
      'select position, hash from events order by position desc limit 1',
    );
    const row = rows[0];
    return row && { position: BigInt(row.position), hash: row.hash.toString('hex') };
  }

  async hashAt(position: bigint): Promise<string | undefined> {
    const { rows } = await this.query<{ hash: Buffer }>('select hash from events where position = $1', [
      position.toString(),
    ]);
    return rows[0]?.hash.toString('hex');
  }

  /** Recomputes the chain from the stored bytes, in log order, read through a cursor (one snapshot). */
  async verifyIntegrity(): Promise<ChainReport> {
    await this.ready;
    return this.withClient(this.pool, async (client) => {
      // One snapshot, read in pages: bounded as a whole, by its own bound (a failure leaves the
      // connection inside the transaction, and withClient drops it).
      await client.query('begin isolation level repeatable read read only');
      await client.query(`set local statement_timeout = ${VERIFY_BOUND_MS}`);
      await client.query(`set local idle_in_transaction_session_timeout = ${VERIFY_BOUND_MS}`);
      const cursor = client.query(
        new Cursor<[string, string, string, string, string, string, Buffer | null]>(
          `select ${COLUMNS}, hash from events order by position`,
          [],
          { rowMode: 'array' },
        ),
      );
      const check = new ChainCheck();
      const report = await (async () => {
        try {
          for (;;) {
            const rows = await cursor.read(VERIFY_BATCH);
            if (rows.length === 0) return check.report();
            for (const [position, streamId, revision, type, data, metadata, hash] of rows) {
              if (!check.add([BigInt(position), streamId, BigInt(revision), type, data, metadata, hash])) {
                return check.report();
              }
            }
          }
        } finally {
          await cursor.close();
        }
      })();
      await client.query('commit');
      return report;
    });
  }

  async ping(): Promise<void> {
    await withinMs(this.pool.query(this.bounded({ text: 'select 1' })), PING_DEADLINE_MS, notAnsweredInTime);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Subscriptions first, so that none of them reads through a closed pool.
    await Promise.all([...this.subscriptions].map((subscription) => subscription.close()));
    await this.notifications?.stop();
    // Appends already asked for are committed (or fail) before the pools close.
    this.flush();
    while (this.committing) await this.committing;
    await this.ready.catch(() => undefined);
    await Promise.all([this.pool.end(), this.writer.end()]);
  }
}

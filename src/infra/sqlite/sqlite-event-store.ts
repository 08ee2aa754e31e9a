import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { makePrivateDir, makePrivateFile, makeSqliteFilesPrivate } from '../../config/private-files';
import type { EventMetadata } from '../../domain/event';
import type {
  AppendOptions,
  AppendResult,
  EventStore,
  ExpectedRevision,
  NewEvent,
  RecordedEvent,
  StreamRange,
  Subscription,
} from '../../ports/event-store';
import { NoEventLogError, storableEvents } from '../../ports/event-store';
import type {
  IdempotencyClaim,
  IdempotencyKeys,
  IdempotencyRecord,
  IdempotencyRef,
  RememberedAnswer,
} from '../../ports/idempotency-keys';
import { pollingSubscription } from '../../projections/polling-subscription';
import type { ChainHead, ChainReport, LogIntegrity } from '../../ports/log-integrity';
import { chainHead, ensureHashColumn, storedHashAt, verifyChainInTurns } from './sqlite-hash-chain';
import { SqliteCommitThread } from './sqlite-commit-thread';
import type { StoredAppend } from '../stored-append';
import { idempotencyRecordOf, type IdempotencyRow } from '../idempotency-row';
import { sqliteBusyTimeoutMs, switchToWal } from './wal-mode';

const schema = `
  create table if not exists events (
    position integer primary key autoincrement,
    stream_id text not null,
    revision integer not null,
    type text not null,
    data text not null,
    metadata text not null,
    unique (stream_id, revision)
  );
  create table if not exists meta (key text primary key, value text not null);
  insert into meta (key, value) values ('log_id', lower(hex(randomblob(16)))) on conflict (key) do nothing;
  create table if not exists idempotency_keys (
    scope text not null,
    key text not null,
    fingerprint text not null,
    owner text not null,
    claimed_at integer not null,
    expires_at integer not null,
    write_stream text,
    write_position integer,
    answer_status integer,
    answer_type text,
    answer_body text,
    primary key (scope, key)
  );
  create index if not exists idempotency_keys_expiry on idempotency_keys (expires_at)`;

/** Another process (the operator CLI) may append to the same file; we only learn of it by polling. */
const pollIntervalMs = 200;
/**
 * How often a process with live subscriptions asks SQLite whether another connection committed
 * (`PRAGMA data_version`, a counter read without touching the log): a projector learns of an API
 * process's append within this, instead of at its next poll.
 */
const otherWritersCheckMs = 2;
const subscriptionPageSize = 256;

/** The columns of an event the port returns: not its hash, which only the chain's checks read. */
const COLUMNS = 'position, stream_id, revision, type, data, metadata';

type Row = {
  readonly position: bigint;
  readonly stream_id: string;
  readonly revision: bigint;
  readonly type: string;
  readonly data: string;
  readonly metadata: string;
};

/**
 * A row of `all`, as an array: the log's bulk read (a rebuild) spent a tenth of its reading time making row
 * objects.
 */
type RawRow = readonly [
  position: bigint,
  streamId: string,
  revision: bigint,
  type: string,
  data: string,
  metadata: string,
];

function rawToRecorded([position, streamId, revision, type, data, metadata]: RawRow): RecordedEvent {
  return {
    streamId,
    type,
    data: JSON.parse(data) as unknown,
    metadata: JSON.parse(metadata) as EventMetadata,
    revision,
    position,
  };
}

function toRecorded(row: Row): RecordedEvent {
  return {
    streamId: row.stream_id,
    type: row.type,
    data: JSON.parse(row.data) as unknown,
    metadata: JSON.parse(row.metadata) as EventMetadata,
    revision: row.revision,
    position: row.position,
  };
}

/**
 * `hashChain: false` appends without hashes: only for measuring what the chain costs
 * (bench/hash-chain.ts). `existingOnly`: a file that does not exist is NoEventLogError, not a new log.
 */
export type SqliteEventStoreOptions = { readonly hashChain?: boolean; readonly existingOnly?: boolean };

type PendingAppend = {
  readonly append: StoredAppend;
  readonly resolve: (result: AppendResult) => void;
  readonly reject: (error: unknown) => void;
};

/** The embedded event store: one SQLite file in WAL mode. */
export class SqliteEventStore implements EventStore, IdempotencyKeys, LogIntegrity {
  private readonly statements;
  private readonly idempotency;
  /** Wakes this instance's live subscriptions right after a commit, instead of at the next poll. */
  private readonly listeners = new Set<() => void>();
  private otherWriters: NodeJS.Timeout | undefined;
  /** data_version when last looked at by the watch of other writers (or after a commit of ours). */
  private othersSeen = 0n;
  /** Appends waiting for the next group commit. */
  private pending: PendingAppend[] = [];
  /** The group commit being written, if any: appends arriving meanwhile wait in `pending` for the next. */
  private committing: Promise<void> | undefined;
  private readonly subscriptions = new Set<Subscription>();
  private readonly logId: string;

  private constructor(
    private readonly db: Database.Database,
    private readonly commits: SqliteCommitThread,
  ) {
    // Positions and revisions are bigint in the port; a number would silently lose precision past 2^53.
    db.defaultSafeIntegers(true);
    const logId = db.prepare<[], { value: string }>(`select value from meta where key = 'log_id'`).get();
    this.logId = `sqlite:${logId?.value ?? 'unknown'}`;
    this.statements = {
      last: db.prepare<[string], Row>(
        `select ${COLUMNS} from events where stream_id = ? order by revision desc limit 1`,
      ),
      stream: db.prepare<[string], Row>(`select ${COLUMNS} from events where stream_id = ? order by revision`),
      streamRange: db.prepare<[string, bigint, number], Row>(
        `select ${COLUMNS} from events where stream_id = ? and revision >= ? order by revision limit ?`,
      ),
      head: db.prepare<[], { position: bigint | null }>('select max(position) as position from events'),
      all: db
        .prepare<[bigint, number], RawRow>(
          'select position, stream_id, revision, type, data, metadata from events where ' +
            'position > ? order by position limit ?',
        )
        .raw(true),
      allOfTypes: db
        .prepare<[bigint, string, number], RawRow>(
          `select position, stream_id, revision, type, data, metadata from events
           where position > ? and type in (select value from json_each(?)) order by position limit ?`,
        )
        .raw(true),
      // Prepared once: it is read every 2 ms while a subscription listens (db.pragma prepares anew).
      dataVersion: db.prepare('pragma data_version').pluck(),
    };
    this.idempotency = {
      get: db.prepare<[string, string, number], IdempotencyRow>(
        'select * from idempotency_keys where scope = ? and key = ? and expires_at > ?',
      ),
      purge: db.prepare<[number]>('delete from idempotency_keys where expires_at <= ?'),
      insert: db.prepare<[string, string, string, string, number, number]>(
        `insert into idempotency_keys (scope, key, fingerprint, owner, claimed_at, expires_at) values (?, ?, ?, ?, ?, ?)
         on conflict (scope, key) do nothing`,
      ),
      takeOver: db.prepare<[string, number, string, string, string]>(
        `update idempotency_keys set owner = ?, claimed_at = ?
         where scope = ? and key = ? and owner = ? and answer_status is null`,
      ),
      complete: db.prepare<[number, string | null, string, string, string, string]>(
        `update idempotency_keys set answer_status = ?, answer_type = ?, answer_body = ?
         where scope = ? and key = ? and owner = ? and answer_status is null`,
      ),
      deleteUnwritten: db.prepare<[string, string, string]>(
        'delete from idempotency_keys where scope = ? and key = ? and owner = ? and ' +
          'write_stream is null and answer_status is null',
      ),
      abandon: db.prepare<[string, string, string]>(
        'update idempotency_keys set claimed_at = 0 where scope = ? and key = ? and ' +
          'owner = ? and answer_status is null',
      ),
    };
  }

  static open(filePath: string, options?: SqliteEventStoreOptions): SqliteEventStore {
    if (options?.existingOnly && !fs.existsSync(filePath)) throw new NoEventLogError(path.resolve(filePath));
    makePrivateDir(path.dirname(filePath));
    makePrivateFile(filePath);
    // The timeout also covers the pragmas and the schema below, which take locks of their own.
    const db = new Database(filePath, { timeout: sqliteBusyTimeoutMs });
    try {
      db.pragma(`busy_timeout = ${sqliteBusyTimeoutMs}`);
      switchToWal(db, sqliteBusyTimeoutMs);
      makeSqliteFilesPrivate(filePath);
      // FULL syncs the WAL on every commit: an acknowledged append survives kill -9 and power loss.
      db.pragma('synchronous = FULL');
      db.exec(schema);
      ensureHashColumn(db);
      const commits = new SqliteCommitThread(filePath, {
        hashChain: options?.hashChain ?? true,
        busyTimeoutMs: sqliteBusyTimeoutMs,
      });
      return new SqliteEventStore(db, commits);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  /**
   * Group commit: the appends that arrive while the process is busy, or while the previous commit
   * waits for the disk, are written in one transaction, one fsync for all of them, each in its own
   * savepoint (an append whose expected revision fails rolls back alone). The commit runs on the
   * log's commit thread (SqliteCommitThread); each append answers only after its commit, so an
   * acknowledged append is durable. With one append at a time this is one transaction per append.
   */
  appendToStream(
    streamId: string,
    events: readonly NewEvent[],
    expected: ExpectedRevision,
    options?: AppendOptions,
  ): Promise<AppendResult> {
    return new Promise((resolve, reject) => {
      // Serialised and measured here: an event that cannot be stored, or an append over
      // MAX_APPEND_BYTES, fails alone and is never sent to the commit.
      const texts = storableEvents(streamId, events);
      const stored = events.map((event, i) => ({ type: event.type, ...texts[i]! }));
      this.pending.push({
        append: { streamId, events: stored, expected, claim: options?.idempotency },
        resolve,
        reject,
      });
      if (this.pending.length === 1 && !this.committing) setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    if (this.committing) return;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    this.committing = this.commits.commit(batch.map((p) => p.append)).then(
      (outcomes) => {
        if (outcomes.some((o) => o.ok)) {
          // The commit thread's commit moved data_version too: the watch of other writers need not
          // wake the subscriptions for it again. Read before waking them, so that anything another
          // process committed meanwhile is seen by the reads this wake starts.
          if (this.otherWriters) this.othersSeen = this.dataVersion();
          for (const wake of this.listeners) wake();
        }
        outcomes.forEach((outcome, i) => {
          const waiting = batch[i];
          if (!waiting) return;
          if (outcome.ok) waiting.resolve(outcome.result);
          else waiting.reject(outcome.error);
        });
      },
      (error: unknown) => {
        for (const waiting of batch) waiting.reject(error);
      },
    );
    void this.committing.finally(() => {
      this.committing = undefined;
      if (this.pending.length > 0) this.flush();
    });
  }

  async readIdempotencyKey(ref: IdempotencyRef, now: number): Promise<IdempotencyRecord | undefined> {
    const row = this.idempotency.get.get(ref.scope, ref.key, now);
    return row && idempotencyRecordOf(row);
  }

  async claimIdempotencyKey(
    claim: IdempotencyClaim,
    record: { readonly fingerprint: string; readonly now: number; readonly expiresAt: number },
    replacing?: string,
  ): Promise<boolean> {
    const claimNow = this.db.transaction((): boolean => {
      // Expired keys go on the first claim after their time (indexed by expiry).
      this.idempotency.purge.run(record.now);
      const changes =
        replacing === undefined
          ? this.idempotency.insert.run(
              claim.scope,
              claim.key,
              record.fingerprint,
              claim.owner,
              record.now,
              record.expiresAt,
            ).changes
          : this.idempotency.takeOver.run(claim.owner, record.now, claim.scope, claim.key, replacing).changes;
      return changes === 1;
    });
    return claimNow.immediate();
  }

  async completeIdempotencyKey(claim: IdempotencyClaim, answer: RememberedAnswer): Promise<boolean> {
    const { changes } = this.idempotency.complete.run(
      answer.status,
      answer.contentType,
      answer.body,
      claim.scope,
      claim.key,
      claim.owner,
    );
    return changes === 1;
  }

  async releaseIdempotencyKey(claim: IdempotencyClaim): Promise<void> {
    this.db
      .transaction(() => {
        if (this.idempotency.deleteUnwritten.run(claim.scope, claim.key, claim.owner).changes === 0) {
          this.idempotency.abandon.run(claim.scope, claim.key, claim.owner);
        }
      })
      .immediate();
  }

  async readStream(streamId: string, range?: StreamRange): Promise<RecordedEvent[]> {
    const rows = range
      ? this.statements.streamRange.all(streamId, range.fromRevision, range.maxCount)
      : this.statements.stream.all(streamId);
    return rows.map(toRecorded);
  }

  async readLastEvent(streamId: string): Promise<RecordedEvent | undefined> {
    const row = this.statements.last.get(streamId);
    return row && toRecorded(row);
  }

  async readAll(from: bigint | undefined, maxCount: number, types?: ReadonlySet<string>): Promise<RecordedEvent[]> {
    return this.readAllNow(from, maxCount, types);
  }

  async headPosition(): Promise<bigint | undefined> {
    return this.statements.head.get()?.position ?? undefined;
  }

  subscribeToAll(
    from: bigint | undefined,
    onEvent: (event: RecordedEvent) => Promise<void>,
    onError?: (error: unknown) => void,
  ): Subscription {
    const subscription = pollingSubscription({
      from,
      read: (after) => this.readAllNow(after ?? 0n, subscriptionPageSize),
      pageSize: subscriptionPageSize,
      pollIntervalMs,
      listen: (wake) => {
        this.listeners.add(wake);
        this.watchOtherWriters();
        return () => {
          this.listeners.delete(wake);
          if (this.listeners.size === 0) this.stopWatchingOtherWriters();
        };
      },
      onEvent,
      onError,
      onClosed: () => this.subscriptions.delete(subscription),
    });
    this.subscriptions.add(subscription);
    return subscription;
  }

  async integrityHead(): Promise<ChainHead | undefined> {
    return chainHead(this.db);
  }

  async hashAt(position: bigint): Promise<string | undefined> {
    return storedHashAt(this.db, position);
  }

  async verifyIntegrity(): Promise<ChainReport> {
    return verifyChainInTurns(this.db);
  }

  /** The log id the schema wrote into the file's meta table once, on its first open (whichever process came first). */
  identity(): Promise<string> {
    return Promise.resolve(this.logId);
  }

  async ping(): Promise<void> {
    this.db.prepare('select 1').get();
  }

  private watchOtherWriters(): void {
    if (this.otherWriters) return;
    this.othersSeen = this.dataVersion();
    this.otherWriters = setInterval(() => {
      if (!this.db.open) return;
      const now = this.dataVersion();
      if (now !== this.othersSeen) {
        this.othersSeen = now;
        for (const wake of this.listeners) wake();
      }
    }, otherWritersCheckMs);
    this.otherWriters.unref();
  }

  private stopWatchingOtherWriters(): void {
    clearInterval(this.otherWriters);
    this.otherWriters = undefined;
  }

  private dataVersion(): bigint {
    return this.statements.dataVersion.get() as bigint;
  }

  async close(): Promise<void> {
    this.stopWatchingOtherWriters();
    // Subscriptions first, so that none of them reads a closed database.
    await Promise.all([...this.subscriptions].map((subscription) => subscription.close()));
    // Appends already asked for are committed before the log closes.
    this.flush();
    while (this.committing) await this.committing;
    await this.commits.close();
    if (this.db.open) this.db.close();
  }

  private readAllNow(from: bigint | undefined, maxCount: number, types?: ReadonlySet<string>): RecordedEvent[] {
    // SQLite reads a negative LIMIT as "no limit".
    if (maxCount <= 0) return [];
    // The rows of other types are skipped inside SQLite, never made into strings and objects.
    const rows = types
      ? this.statements.allOfTypes.all(from ?? 0n, JSON.stringify([...types]), maxCount)
      : this.statements.all.all(from ?? 0n, maxCount);
    return rows.map(rawToRecorded);
  }
}

import { AsyncLocalStorage } from 'node:async_hooks';
import { MongoClient, MongoError } from 'mongodb';
import type {
  ClientSession,
  Collection,
  Db,
  Document,
  IndexDescription,
  ReadConcernLike,
  TransactionOptions,
  WriteConcernSettings,
} from 'mongodb';
import {
  DEFAULT_MONGO_QUERY_TIMEOUT_MS,
  MONGO_WRITE_TIMEOUT_MS,
  mongoClientOptions,
} from '../../config/mongo-client-options';
import type { Fence, Lease, LeaseStore } from '../../projections/projection-lease';
import { LeaseLostError } from '../../projections/projection-lease';
import type { ParkedEvent, ProjectionStore, ReadModelDigest } from '../../projections/read-model-projection';
import { canonicalDigest } from '../../projections/canonical-digest';
import { KeyedTurns } from '../keyed-turns';

type CheckpointDoc = { _id: string; position?: string; log?: string; version?: number };
type ParkedDoc = {
  _id: string;
  projection: string;
  position: string;
  streamId: string;
  type: string;
  error: string;
  failures: number;
  firstFailedAt: string;
  lastFailedAt: string;
};
const parkedId = (projection: string, position: bigint) => `${projection}:${position}`;
type LeaseDoc = { _id: string; holder: string; token: number; expiresAt: number };

/**
 * The server's clock, in milliseconds since the epoch, as an expression: a lease expires by the
 * clock of the one server every process writes to, never by the clocks of the processes, which
 * drift apart on three machines (a standby whose clock runs ahead would take a live lease over).
 */
const SERVER_NOW_MS: Document = { $toLong: '$$NOW' };
const serverNowPlus = (ttlMs: number): Document => ({ $add: [SERVER_NOW_MS, ttlMs] });

/**
 * The taking (or renewal) of a lease, as an update pipeline evaluated on the server against the
 * document as it is (none yet: a new lease). It is takeable when free, expired by the server's
 * clock, or already this holder's: then the same token for its holder, the next one for anyone
 * else (1 for a new lease), expiring `ttlMs` after the server's now; otherwise left as it is. One
 * atomic write: no token read beforehand that another process could change in between. The
 * decision is the pipeline's, not the filter's: the server refuses `$expr` in an upsert's filter
 * (QueryFeatureNotAllowed), and an upsert whose filter is the `_id` alone is retried by the server
 * when two processes insert the same lease at once. Pure, so a test can evaluate it.
 */
export function leaseTake(holder: string, ttlMs: number): Document[] {
  const mine = { $eq: ['$holder', holder] };
  const takeable = { $or: [mine, { $lte: [{ $ifNull: ['$expiresAt', 0] }, SERVER_NOW_MS] }] };
  return [
    { $set: { _takeable: takeable } },
    {
      $set: {
        token: {
          $cond: ['$_takeable', { $cond: [mine, '$token', { $add: [{ $ifNull: ['$token', 0] }, 1] }] }, '$token'],
        },
        holder: { $cond: ['$_takeable', { $literal: holder }, '$holder'] },
        expiresAt: { $cond: ['$_takeable', serverNowPlus(ttlMs), '$expiresAt'] },
      },
    },
    { $unset: '_takeable' },
  ];
}

/**
 * The fencing check and renewal of a commit: matches only while `fence` still names the lease's
 * holder and token, so a takeover (a new token) makes it miss; renews it from the server's now.
 * Pure, so a test can evaluate it.
 */
export function fenceWrite(fence: Fence): { filter: Document; update: Document[] } {
  return {
    filter: { _id: fence.projection, holder: fence.holder, token: Number(fence.token) },
    update: [{ $set: { expiresAt: serverNowPlus(fence.ttlMs) } }],
  };
}

/**
 * Whether the deployment answering `hello` runs multi-document transactions: a replica set member
 * names its set, a mongos says `isdbgrid`; a standalone server does neither.
 */
export function supportsTransactions(hello: Document): boolean {
  return (typeof hello.setName === 'string' && hello.setName !== '') || hello.msg === 'isdbgrid';
}

/**
 * How long a batch's transaction is tried before it is given up: no attempt of its work and no
 * retry of its commit starts later than this after it began (an attempt under way then ends by
 * its own bounds: reads' maxTimeMS, the commit's maxCommitTimeMS and wtimeoutMS, the socket
 * backstop). A batch is small (the runner's catch-up batch at most), so this only cuts off a
 * stuck deployment; the driver's `withTransaction` would retry a commit whose result is unknown
 * for 120 s (its fixed bound in driver 7.9, where `timeoutMS` has no effect), hence a loop of
 * our own over the session's documented calls.
 */
export const TRANSACTION_RETRY_MS = 15_000;
const TRANSACTION_OPTIONS: TransactionOptions = {
  readPreference: 'primary',
  readConcern: { level: 'snapshot' },
  // Acknowledged once a majority has it: a batch acknowledged to the runner is never rolled back.
  writeConcern: { w: 'majority', wtimeoutMS: MONGO_WRITE_TIMEOUT_MS },
  maxCommitTimeMS: MONGO_WRITE_TIMEOUT_MS,
};

/**
 * Checkpoints read outside a batch decide read-your-writes (a follower answers a write once the
 * checkpoint passed it) and where a new leader resumes: only what a majority holds counts, never a
 * batch a failover could still roll back (a privacy change undone after it was answered). Only on
 * a replica set or a sharded cluster: a standalone server has no rollback.
 */
const MAJORITY_READ: { readConcern: ReadConcernLike } = { readConcern: { level: 'majority' } };
const MAJORITY_WRITE: { writeConcern: WriteConcernSettings } = {
  writeConcern: { w: 'majority', wtimeoutMS: MONGO_WRITE_TIMEOUT_MS },
};

/** The driver's labels this adapter's transaction loop acts on (MongoErrorLabel). */
const TRANSIENT_TRANSACTION = 'TransientTransactionError';
const UNKNOWN_COMMIT_RESULT = 'UnknownTransactionCommitResult';
const MAX_TIME_MS_EXPIRED = 50;
const labelled = (error: unknown, label: string): boolean => error instanceof MongoError && error.hasErrorLabel(label);

/**
 * A batch's transaction still failing with errors worth retrying (a write conflict, an election,
 * a commit whose result is unknown) when its bound ran out; `cause` is the last of them, so the
 * runner treats it as the store's passing trouble and replays the batch from its checkpoint later.
 */
export class MongoTransactionGaveUpError extends Error {
  constructor(
    readonly afterMs: number,
    options: { cause: unknown },
  ) {
    super(`read-model transaction still failing after ${afterMs} ms`, options);
    this.name = 'MongoTransactionGaveUpError';
  }
}

/**
 * Why no projector leads on a standalone server: its fence is a write of its own, so a holder that
 * stalls past its lease can still land one batch beside the new holder's, and a deletion is not a
 * tombstone there (a stale batch could re-create a removed community's views). Run a replica set
 * (a single-node one will do, as docker-compose.yml does).
 */
export const STANDALONE_REFUSAL = 'MongoDB is a standalone server (no transactions): run it as a replica set';

/** The server-side bound of an operator's scan of whole collections (the digest), not of a request. */
const SCAN_TIMEOUT_MS = 60_000;

/**
 * The production read models' database. Bounded server selection, reads bounded on the server
 * (`readOptions()`) and a socket backstop (`mongoClientOptions`), so that an outage or a stuck
 * query answers readiness and requests with an error instead of hanging.
 */
export class MongoReadDb {
  /**
   * The batch being committed in this async context, when it runs in a transaction: its session,
   * and how many operations it has sent (each passes `sessionOption()`).
   */
  private readonly batch = new AsyncLocalStorage<{ session: ClientSession; operations: number }>();

  private constructor(
    private readonly client: MongoClient,
    readonly db: Db,
    /** Decided once at connect: a replica set or a sharded cluster commits each batch in one transaction. */
    readonly transactions: boolean,
    /** The server-side bound of every read (MONGO_QUERY_TIMEOUT_MS). */
    readonly queryTimeoutMs: number = DEFAULT_MONGO_QUERY_TIMEOUT_MS,
    /** A monotonic clock in milliseconds: how long a batch's transaction has been tried. */
    private readonly now: () => number = () => performance.now(),
    /**
     * Where records live that no event carries and that must outlast a generation of the read
     * models (a key's lastUsedAt): the database named in MONGODB_URL, generation 0's, which also
     * holds the generation pointer. `db` itself when it is that database.
     */
    readonly kept: Db = db,
    /** Waits `ms` milliseconds (on the clock of `now`): the pause before a transaction runs again. */
    private readonly wait: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  ) {}

  /**
   * The pause before the `attempt`th rerun of a transaction's work, as the drivers' convenient
   * transaction API makes it (driver 7.9 sessions.ts): a random share of 5 ms × 1.5^attempt,
   * at most 500 ms, never past `giveUpAt`. Rerun at once, a write conflict, an election or a
   * NoSuchTransaction after a failover would be sent again and again for the whole bound.
   */
  private async backOff(attempt: number, giveUpAt: number): Promise<void> {
    const bound = Math.min(5 * 1.5 ** attempt, 500);
    await this.wait(Math.max(0, Math.min(Math.random() * bound, giveUpAt - this.now())));
  }

  /**
   * `dbName` overrides the database named in the URL (one database per test run); `keptDbName`
   * names the database of records kept across generations (see `kept`), `dbName` by default.
   */
  static async connect(
    url: string,
    dbName?: string,
    queryTimeoutMs = DEFAULT_MONGO_QUERY_TIMEOUT_MS,
    keptDbName?: string,
  ): Promise<MongoReadDb> {
    const client = new MongoClient(url, { ignoreUndefined: true, ...mongoClientOptions(queryTimeoutMs) });
    await client.connect();
    try {
      const hello = await client.db('admin').command({ hello: 1 });
      const db = client.db(dbName);
      const kept = keptDbName === undefined ? db : client.db(keptDbName);
      return new MongoReadDb(client, db, supportsTransactions(hello), queryTimeoutMs, undefined, kept);
    } catch (error) {
      await client.close();
      throw error;
    }
  }

  /** True in the async context of a batch being committed in a transaction. */
  get inBatch(): boolean {
    return this.batch.getStore() !== undefined;
  }

  /**
   * The options every read-model write passes: inside a batch's transaction its session, so
   * the write is part of it; elsewhere none.
   */
  sessionOption(): { session?: ClientSession } {
    const batch = this.batch.getStore();
    if (!batch) return {};
    batch.operations += 1;
    return { session: batch.session };
  }

  /**
   * The options every read-model query passes (find, findOne, countDocuments, distinct,
   * aggregate): the batch's session as `sessionOption()`, so a read inside the transaction sees
   * its writes, and a server-side time bound, so a slow or stuck query fails (code 50,
   * MaxTimeMSExpired: transient, a 503) instead of holding the request. Allowed in a transaction.
   */
  readOptions(): { session?: ClientSession; maxTimeMS: number } {
    return { ...this.sessionOption(), maxTimeMS: this.queryTimeoutMs };
  }

  /**
   * A read of checkpoints: as `readOptions()`, and outside a batch, on a replica set, of what a
   * majority holds (MAJORITY_READ). Inside a batch the transaction's own read concern applies
   * (an operation of a transaction may not name one).
   */
  private checkpointReadOptions(): { session?: ClientSession; maxTimeMS: number; readConcern?: ReadConcernLike } {
    return this.transactions && !this.inBatch ? { ...this.readOptions(), ...MAJORITY_READ } : this.readOptions();
  }

  /** A write of checkpoints outside a batch: acknowledged once a majority has it, on a replica set. */
  private checkpointWriteOptions(): { writeConcern?: WriteConcernSettings } {
    return this.transactions ? MAJORITY_WRITE : {};
  }

  /**
   * Runs `work` in one transaction; operations that pass `sessionOption()` or `readOptions()`
   * join it. A transient transaction error (a write conflict, an election) runs `work` again,
   * so `work` must only fold events into the store; each attempt starts from the committed
   * state. A commit whose result is unknown (a network error, a majority not reached in time) is
   * committed again, which the server answers idempotently. Both stop at TRANSACTION_RETRY_MS:
   * MongoTransactionGaveUpError. The retry rules are those of the drivers' convenient
   * transaction API, with our bound in place of its 120 s.
   */
  async transaction<T>(work: () => Promise<T>): Promise<T> {
    const session = this.client.startSession();
    const giveUpAt = this.now() + TRANSACTION_RETRY_MS;
    const giveUp = (cause: unknown) => new MongoTransactionGaveUpError(TRANSACTION_RETRY_MS, { cause });
    try {
      for (let attempt = 0; ; attempt++) {
        if (attempt > 0) await this.backOff(attempt, giveUpAt);
        session.startTransaction(TRANSACTION_OPTIONS);
        let result: T;
        try {
          // Counted per attempt: a rerun starts from the committed state.
          result = await this.batch.run({ session, operations: 0 }, work);
        } catch (error) {
          if (session.inTransaction()) await session.abortTransaction();
          if (!labelled(error, TRANSIENT_TRANSACTION)) throw error;
          if (this.now() >= giveUpAt) throw giveUp(error);
          continue;
        }
        if (await this.commit(session, giveUpAt, giveUp)) return result;
      }
    } finally {
      await session.endSession();
    }
  }

  /** Commits; false when the whole transaction must run again (a transient error at commit). */
  private async commit(
    session: ClientSession,
    giveUpAt: number,
    giveUp: (cause: unknown) => MongoTransactionGaveUpError,
  ): Promise<boolean> {
    for (;;) {
      try {
        await session.commitTransaction();
        return true;
      } catch (error) {
        // A commit past its maxCommitTimeMS is not retried (the drivers' rule): the server is that slow.
        const unknown =
          labelled(error, UNKNOWN_COMMIT_RESULT) && (error as { code?: unknown }).code !== MAX_TIME_MS_EXPIRED;
        if (!unknown && !labelled(error, TRANSIENT_TRANSACTION)) throw error;
        if (this.now() >= giveUpAt) throw giveUp(error);
        if (!unknown) return false;
      }
    }
  }

  /**
   * This process's writes to one projection's lease and its batches, one at a time (as SQLite's
   * queue of transactions has them). A batch's transaction holds the lease document from its
   * fence to its commit, and a write outside that transaction waits on the server for it to end
   * (or for its own maxTimeMS, then fails): a renewal sent while the holder's own batch runs
   * would wait on that batch and, past its maxTimeMS, fail and demote the holder it was renewing.
   * Queued here, the renewal follows the batch (which renewed the lease itself) instead.
   */
  private readonly leaseTurns = new KeyedTurns();

  inTurn<T>(projection: string, work: () => Promise<T>): Promise<T> {
    return this.leaseTurns.inTurn(projection, work);
  }

  /** How many operations the batch being committed in this async context has sent so far (0 outside one). */
  batchOperations(): number {
    return this.batch.getStore()?.operations ?? 0;
  }

  async checkpoint(projection: string): Promise<bigint | undefined> {
    const doc = await this.db
      .collection<CheckpointDoc>('projection_checkpoints')
      .findOne({ _id: projection }, this.checkpointReadOptions());
    return doc?.position ? BigInt(doc.position) : undefined;
  }

  /** Every asked checkpoint in one query: what the followers' polls read (FollowerPolls). */
  async checkpoints(projections: readonly string[]): Promise<ReadonlyMap<string, bigint>> {
    const docs = await this.db
      .collection<CheckpointDoc>('projection_checkpoints')
      .find({ _id: { $in: [...projections] } }, this.checkpointReadOptions())
      .toArray();
    return new Map(docs.flatMap((doc) => (doc.position ? [[doc._id, BigInt(doc.position)] as const] : [])));
  }

  async checkpointLog(projection: string): Promise<string | undefined> {
    const doc = await this.db
      .collection<CheckpointDoc>('projection_checkpoints')
      .findOne({ _id: projection }, this.checkpointReadOptions());
    return doc?.log;
  }

  async readModelVersion(projection: string): Promise<number | undefined> {
    const doc = await this.db
      .collection<CheckpointDoc>('projection_checkpoints')
      .findOne({ _id: projection }, this.checkpointReadOptions());
    return doc?.version;
  }

  async setReadModelVersion(projection: string, version: number): Promise<void> {
    await this.db
      .collection<CheckpointDoc>('projection_checkpoints')
      .updateOne({ _id: projection }, { $set: { version } }, { upsert: true, ...this.checkpointWriteOptions() });
  }

  async setCheckpointLog(projection: string, log: string): Promise<void> {
    await this.db
      .collection<CheckpointDoc>('projection_checkpoints')
      .updateOne({ _id: projection }, { $set: { log } }, { upsert: true, ...this.checkpointWriteOptions() });
  }

  /**
   * Leases in MongoDB, expiring by the server's clock (`$$NOW`). With transactions the fence is
   * checked and renewed inside the batch's transaction: the lease document is then written by
   * that transaction, so a takeover either commits first (the fence misses and nothing is
   * written) or waits for the batch to end.
   * Without them the fence is checked before the writes; a holder that stalls between that check
   * and its writes can still write once, which the position guards on every document make harmless.
   * This process's own writes to a lease wait for its batches of that projection (`inTurn`).
   */
  readonly leases: LeaseStore = Object.defineProperty<LeaseStore>(
    {
      // nowMs unused: the server's clock decides (leaseTake).
      acquire: (projection, holder, ttlMs): Promise<Lease | null> =>
        this.inTurn(projection, async () => {
          const leases = this.db.collection<LeaseDoc>('projection_leases');
          const result = await leases.findOneAndUpdate({ _id: projection }, leaseTake(holder, ttlMs), {
            upsert: true,
            returnDocument: 'after',
            maxTimeMS: this.queryTimeoutMs,
          });
          return result && result.holder === holder ? { projection, holder, token: BigInt(result.token) } : null;
        }),
      release: (lease) =>
        this.inTurn(lease.projection, async () => {
          await this.db
            .collection<LeaseDoc>('projection_leases')
            .deleteOne({ _id: lease.projection, holder: lease.holder, token: Number(lease.token) });
        }),
    },
    'refusal',
    {
      // Decided at connect (`transactions`), read whenever a process would lead.
      get: (): string | undefined => (this.transactions ? undefined : STANDALONE_REFUSAL),
      enumerable: true,
    },
  );

  async fence(fence: Fence): Promise<void> {
    const { filter, update } = fenceWrite(fence);
    const result = await this.db.collection('projection_leases').updateOne(filter, update, this.sessionOption());
    if (result.matchedCount === 0) throw new LeaseLostError(fence.projection);
  }

  async writeCheckpoint(projection: string, position: bigint): Promise<void> {
    await this.db
      .collection<CheckpointDoc>('projection_checkpoints')
      .updateOne(
        { _id: projection },
        { $set: { position: position.toString() } },
        { upsert: true, ...this.sessionOption() },
      );
  }

  async clearCheckpoint(projection: string): Promise<void> {
    await this.db
      .collection<CheckpointDoc>('projection_checkpoints')
      .deleteOne({ _id: projection }, this.checkpointWriteOptions());
    await this.db.collection<ParkedDoc>('parked_events').deleteMany({ projection }, this.checkpointWriteOptions());
  }

  /** In a batch, part of its transaction; alone, acknowledged by a majority as checkpoints are. */
  private parkedWriteOptions(): { session?: ClientSession; writeConcern?: WriteConcernSettings } {
    return this.inBatch ? this.sessionOption() : this.checkpointWriteOptions();
  }

  async park(event: ParkedEvent): Promise<void> {
    const { readModel, position, ...rest } = event;
    const doc: ParkedDoc = {
      _id: parkedId(readModel, position),
      projection: readModel,
      position: `${position}`,
      ...rest,
    };
    await this.db
      .collection<ParkedDoc>('parked_events')
      .replaceOne({ _id: doc._id }, doc, { upsert: true, ...this.parkedWriteOptions() });
  }

  async parked(projection: string): Promise<ParkedEvent[]> {
    const docs = await this.db
      .collection<ParkedDoc>('parked_events')
      .find({ projection }, this.checkpointReadOptions())
      .toArray();
    return docs
      .map(({ _id, projection: readModel, position, ...rest }): ParkedEvent => ({
        ...rest,
        readModel,
        position: BigInt(position),
      }))
      .sort((a, b) => (a.position < b.position ? -1 : a.position > b.position ? 1 : 0));
  }

  async unpark(projection: string, position: bigint): Promise<boolean> {
    const result = await this.db
      .collection<ParkedDoc>('parked_events')
      .deleteOne({ _id: parkedId(projection, position) }, this.parkedWriteOptions());
    return result.deletedCount > 0;
  }

  /** Readiness: bounded by the query bound whatever the connection does (server selection included). */
  async ping(): Promise<void> {
    await this.db.command({ ping: 1 }, { signal: AbortSignal.timeout(this.queryTimeoutMs) });
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}

const NAMESPACE_NOT_FOUND = 26;
const notFound = (error: unknown) => (error as { code?: unknown }).code === NAMESPACE_NOT_FOUND;

/**
 * Empties a collection by dropping it and creating its indexes again: one operation whatever its
 * size, where deleting every document of a large view writes one oplog entry per document (and,
 * on a replica set, replicates each). A collection never created is left alone.
 */
async function recreate(collection: Collection): Promise<void> {
  const indexes = await collection.indexes().catch((error: unknown) => {
    if (notFound(error)) return [];
    throw error;
  });
  await collection.drop().catch((error: unknown) => {
    if (!notFound(error)) throw error;
  });
  const kept = indexes
    .filter((index) => index.name !== '_id_')
    .map(({ v: _version, ns: _namespace, ...index }) => index as IndexDescription);
  if (kept.length > 0) await collection.createIndexes(kept);
}

/**
 * The runner's side of a MongoDB read model. On a replica set or a sharded cluster a batch's
 * fence, writes and checkpoint are one transaction, as on SQLite: a crash or a refused fence
 * leaves nothing. On a standalone server they are ordered instead: the fence first, the
 * checkpoint last, and every store write guarded by event position (views before the document
 * carrying the position), so the events between the last checkpoint and a crash are applied
 * again and repair what a partial batch left.
 */
export function mongoProjectionStore(read: MongoReadDb, collections: readonly string[]): ProjectionStore {
  return {
    commit: (projection, position, work, fence) => {
      const batch = async () => {
        if (fence) await read.fence(fence);
        const reached = await work();
        // Renewed again as the work ends, in the same transaction: however long the work took, the
        // lease committed with the batch runs its whole TTL from here, and the commit after it is
        // bounded (maxCommitTimeMS) well below that TTL. Checked at the start, the fence also holds
        // the lease document from there, so nobody takes the lease over while the batch runs.
        if (fence && read.transactions) await read.fence(fence);
        await read.writeCheckpoint(projection, reached ?? position);
      };
      return read.inTurn(projection, () => (read.transactions ? read.transaction(batch) : batch()));
    },
    checkpoint: (projection) => read.checkpoint(projection),
    batchOperations: () => read.batchOperations(),
    checkpointSource: read,
    checkpointLog: (projection) => read.checkpointLog(projection),
    setCheckpointLog: (projection, log) => read.setCheckpointLog(projection, log),
    readModelVersion: (projection) => read.readModelVersion(projection),
    setReadModelVersion: (projection, version) => read.setReadModelVersion(projection, version),
    park: (event) => read.park(event),
    parked: (projection) => read.parked(projection),
    unpark: (projection, position) => read.unpark(projection, position),
    reset: async (projection) => {
      for (const name of collections) await recreate(read.db.collection(name));
      await read.clearCheckpoint(projection);
    },
    // An operator's scan of whole collections, not a request's query: a bound of its own.
    digest: async (): Promise<ReadModelDigest> =>
      canonicalDigest(
        await Promise.all(
          collections.map(async (name) => ({
            name,
            rows: await read.db.collection(name).find({}, { maxTimeMS: SCAN_TIMEOUT_MS }).sort({ _id: 1 }).toArray(),
          })),
        ),
      ),
  };
}

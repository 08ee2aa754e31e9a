/**
 * A stand-in for the few MongoDB calls the read-model adapters make, evaluated in process by
 * mingo, so that their contract suites run where no MongoDB answers. It models what those
 * adapters rely on — matching, projection, sort/skip/limit, `distinct` unwinding arrays, and an
 * upsert whose filter misses an existing _id failing with duplicate key 11000, `$inc` — and nothing else.
 * Every query (find, findOne, countDocuments, distinct, findOneAndUpdate) is recorded with its
 * options (`mingoReads`), so a test can check that each carries its time bound and read concern.
 *
 * With `transactions`, it also models a replica set, as far as the adapters rely on it (MongoDB
 * manual, "Transactions" and its "Production Considerations"; "Read Concern"; "Write Concern"):
 * - A transaction (startTransaction, commitTransaction, abortTransaction) is all or nothing, and a
 *   refused write aborts it: its commit then fails with NoSuchTransaction (251), labelled
 *   TransientTransactionError. Its reads see what was committed when it first read a collection,
 *   and its own writes; nobody else sees them before the commit.
 * - An operation from inside the batch's async context (MongoReadDb.inBatch) must carry the
 *   session: the check that no adapter operation escapes the batch's transaction. An operation
 *   from elsewhere (another runner's lease tick, a follower's poll, a request) runs beside it.
 * - A write outside the transaction to a document the transaction wrote waits until the
 *   transaction ends ("In-progress Transactions and Write Conflicts"), or fails with
 *   MaxTimeMSExpired (50) once its maxTimeMS has passed on the server's clock.
 * - Replication can be held (`mingoServer(read).holdReplication()`): writes are then visible to
 *   reads of concern "local" (the default), not to reads of concern "majority", which answer what
 *   a majority held when replication stopped; a write or commit with write concern "majority"
 *   waits for replication, failing after its wtimeoutMS with WriteConcernFailed (64) labelled
 *   UnknownTransactionCommitResult (the commit may have applied). `stepDown()` rolls back what
 *   no majority had, as a failover does ("Rollbacks During Replica Set Failover").
 * The stand-in's one server runs one transaction at a time.
 * It is not a substitute for the suites against a real server (describeMongo).
 */
import { Aggregator, Query, update } from 'mingo';
import { MongoServerError } from 'mongodb';
import type { Db, Document, TransactionOptions } from 'mongodb';
import { MongoReadDb } from '../../src/infra/mongo/mongo-read-db';

type Sort = Record<string, 1 | -1>;

class DuplicateKeyError extends Error {
  readonly code = 11000;
}

/** A server error as the driver hands it over: code, name and labels. */
const serverError = (code: number, codeName: string, errmsg: string, errorLabels: string[] = []) =>
  new MongoServerError({ ok: 0, code, codeName, errmsg, errorLabels });

/** Whether some `key: value` pair anywhere in a filter (inside `$or`, `$and`, arrays) satisfies `found`. */
function holds(filter: unknown, found: (key: string, value: unknown) => boolean): boolean {
  if (Array.isArray(filter)) return filter.some((inner) => holds(inner, found));
  if (typeof filter !== 'object' || filter === null) return false;
  return Object.entries(filter).some(([key, value]) => found(key, value) || holds(value, found));
}

/**
 * The server refuses a `$regex` holding a NUL byte: BadValue, "Regular expression cannot contain
 * an embedded null byte" (mongodb/mongo src/mongo/db/matcher/expression_leaf.cpp).
 */
function refuseNulInRegex(filter: unknown): void {
  if (holds(filter, (key, value) => key === '$regex' && typeof value === 'string' && value.includes('\0')))
    throw serverError(2, 'BadValue', 'Regular expression cannot contain an embedded null byte');
}

/**
 * The server parses an upsert's filter without `$expr`, anywhere in it (nested in `$or` too):
 * QueryFeatureNotAllowed, "$expr is not allowed in the query predicate for an upsert"
 * (mongodb/mongo src/mongo/db/ops/parsed_writes_common.h, jstests/core/expr.js).
 */
function refuseExprInUpsert(filter: Document, options: { upsert?: boolean }): void {
  if (options.upsert && holds(filter, (key) => key === '$expr'))
    throw serverError(224, 'QueryFeatureNotAllowed', '$expr is not allowed in the query predicate for an upsert');
}

/**
 * Documents hold only JSON values. Not structuredClone: under jest it builds objects of another
 * realm, which mingo does not take for plain objects (its $set then leaves them unchanged).
 */
const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/**
 * The stand-in server's clock. Tests move it (`pass`); a wait the server bounds (maxTimeMS,
 * wtimeoutMS) ends once the clock passes its bound. Without one, a stand-in reads `serverNow`
 * (the test's clock by default) and bounds waits by real timers.
 */
export class MingoClock {
  private readonly listeners = new Set<() => void>();

  constructor(private current: number) {}

  readonly now = (): number => this.current;

  pass(ms: number): void {
    this.current += ms;
    for (const listener of [...this.listeners]) listener();
  }

  /** Calls `fire` once the clock reads `ms` past now; answers how to cancel it. */
  after(ms: number, fire: () => void): () => void {
    const at = this.current + ms;
    const listener = () => {
      if (this.current < at) return;
      this.listeners.delete(listener);
      fire();
    };
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

type Clock = { readonly now: () => number; after(ms: number, fire: () => void): () => void };

const realTimers = (now: () => number): Clock => ({
  now,
  after: (ms, fire) => {
    const timer = setTimeout(fire, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
});

class MingoCursor {
  private order: Sort | undefined;
  private skipped = 0;
  private limited = 0;

  constructor(
    private readonly docs: () => Promise<Document[]>,
    private readonly filter: Document,
    private projection: Document | undefined,
  ) {}

  project(projection: Document): this {
    this.projection = projection;
    return this;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Document> {
    yield* await this.toArray();
  }

  async close(): Promise<void> {}

  sort(order: Sort): this {
    this.order = order;
    return this;
  }

  skip(n: number): this {
    this.skipped = n;
    return this;
  }

  limit(n: number): this {
    this.limited = n;
    return this;
  }

  /** The server's order of operations whatever the call order: sort, then skip, then limit (0: none). */
  async toArray(): Promise<Document[]> {
    let cursor = new Query(this.filter).find<Document>(
      await this.docs(),
      this.projection && Object.keys(this.projection).length > 0 ? this.projection : undefined,
    );
    if (this.order) cursor = cursor.sort(this.order);
    if (this.skipped > 0) cursor = cursor.skip(this.skipped);
    if (this.limited > 0) cursor = cursor.limit(this.limited);
    return clone(cursor.all());
  }
}

/**
 * '$$NOW' as the stand-in's server reads its clock, wherever a filter or a pipeline names it: the
 * server's time, which a test may set apart from the processes' (`serverNow`).
 */
function atServerTime<T>(value: T, nowMs: number): T {
  if (value === '$$NOW') return new Date(nowMs) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => atServerTime(v, nowMs)) as T;
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, atServerTime(v, nowMs)])) as T;
  return value;
}

/** An ObjectId in a filter as the stand-in stores it (documents hold JSON: its hex string). */
function asStored<T>(value: T): T {
  if (typeof value === 'object' && value !== null && 'toHexString' in value && typeof value.toHexString === 'function')
    return (value.toHexString as () => string)() as T;
  if (Array.isArray(value)) return value.map((v: unknown) => asStored(v)) as T;
  if (typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, asStored(v)])) as T;
  return value;
}

/** A document after an update pipeline (`$set` stages and the like), as the server runs it. */
function piped(doc: Document, pipeline: Document[], nowMs: number): Document {
  const [result] = new Aggregator(atServerTime(pipeline, nowMs)).run([clone(doc)]) as Document[];
  return clone({ ...result, _id: doc._id });
}

type Modifier =
  { $set?: Document; $setOnInsert?: Document; $inc?: Record<string, number>; $max?: Document } | Document[];

/** The fields an upsert copies from its filter into the new document: top-level equalities. */
function equalities(filter: Document): Document {
  return Object.fromEntries(
    Object.entries(filter).filter(
      ([key, value]) => !key.startsWith('$') && (typeof value !== 'object' || value === null || Array.isArray(value)),
    ),
  );
}

type Options = {
  session?: unknown;
  maxTimeMS?: number;
  readConcern?: { level?: string };
  writeConcern?: { w?: number | string; wtimeoutMS?: number };
};

/** One query the stand-in answered, with the options it was given. */
export type MingoRead = {
  readonly collection: string;
  readonly operation: 'find' | 'countDocuments' | 'distinct' | 'findOneAndUpdate';
  readonly options: Options;
  readonly filter: Document;
};

/** The documents a collection holds, keyed by collection: a view of the server's data at one time. */
type Snapshot = Map<MingoCollection, Document[]>;

/** A transaction open on the server: its own copy of what it read and wrote, and what it wrote. */
class OpenTransaction {
  aborted = false;
  private readonly working = new Map<MingoCollection, Document[]>();
  /** The _ids each collection's documents were written under: the documents this transaction holds. */
  readonly written = new Map<MingoCollection, Set<unknown>>();

  constructor(
    readonly session: MingoSession,
    readonly options: TransactionOptions,
  ) {}

  /** Each collection as committed when this transaction first looked at it: its snapshot. */
  private readonly snapshots = new Map<MingoCollection, Document[]>();

  /** The collection as this transaction sees it: committed when it first looked, and its own writes. */
  docs(collection: MingoCollection): Document[] {
    let docs = this.working.get(collection);
    if (!docs) {
      docs = clone(collection.committed);
      this.working.set(collection, docs);
      this.snapshots.set(collection, clone(collection.committed));
    }
    return docs;
  }

  /**
   * Whether a document this transaction is about to write was changed by a write outside it,
   * committed since its snapshot: the server then aborts the transaction with WriteConflict,
   * labelled TransientTransactionError (MongoDB manual, "In-progress Transactions and Write
   * Conflicts").
   */
  conflictsOn(collection: MingoCollection, id: unknown): boolean {
    if (this.holds(collection, id)) return false;
    const then = this.snapshots.get(collection)?.find((d) => d._id === id);
    const now = collection.committed.find((d) => d._id === id);
    return JSON.stringify(then ?? null) !== JSON.stringify(now ?? null);
  }

  wrote(collection: MingoCollection, id: unknown): void {
    let ids = this.written.get(collection);
    if (!ids) this.written.set(collection, (ids = new Set()));
    ids.add(id);
  }

  holds(collection: MingoCollection, id: unknown): boolean {
    return this.written.get(collection)?.has(id) ?? false;
  }

  /** Its writes, document by document, into what is committed: writes of others to other documents stay. */
  merge(): void {
    for (const [collection, ids] of this.written) {
      const mine = this.docs(collection);
      for (const id of ids) {
        const doc = mine.find((d) => d._id === id);
        const index = collection.committed.findIndex((d) => d._id === id);
        if (doc && index >= 0) collection.committed[index] = doc;
        else if (doc) collection.committed.push(doc);
        else if (index >= 0) collection.committed.splice(index, 1);
      }
    }
  }
}

/** The stand-in's one server: its databases, its clock, its open transaction and its replication. */
export class MingoServer {
  private readonly databases = new Map<string, MingoDb>();
  open: OpenTransaction | undefined;
  /** Called when the open transaction ends (each lock waiter's turn). */
  private readonly ended = new Set<() => void>();
  /** While replication is held: what a majority has, and the writes waiting for it. */
  private replication:
    { majority: Snapshot; waiting: Set<{ resolve: () => void; reject: (e: Error) => void }> } | undefined;
  /** Moves on each failover: a commit retried after one finds its transaction unknown. */
  term = 0;
  /** Every transaction's options, in the order they were started. */
  readonly transactionOptions: TransactionOptions[] = [];
  /** Every commit asked for (retries included), at the server's time. */
  readonly commits: number[] = [];
  /** The MongoReadDb whose batches this server's transactions run (the escape check asks it). */
  owners: MongoReadDb[] = [];

  constructor(
    readonly clock: Clock,
    /** The processes' monotonic clock, when the test moves time (a MingoClock): it times their transactions. */
    readonly processNow?: () => number,
  ) {}

  db(name: string): MingoDb {
    let db = this.databases.get(name);
    if (!db) this.databases.set(name, (db = new MingoDb(this, name)));
    return db;
  }

  private collections(): MingoCollection[] {
    return [...this.databases.values()].flatMap((db) => db.all());
  }

  begin(session: MingoSession, options: TransactionOptions): void {
    if (this.open) throw new Error('a transaction is already open (the stand-in runs one at a time)');
    this.transactionOptions.push(clone(options));
    this.open = new OpenTransaction(session, options);
  }

  end(): void {
    this.open = undefined;
    for (const turn of [...this.ended]) turn();
  }

  /** Waits until no open transaction holds `id` of `collection`, or fails after `maxTimeMS` on the server's clock. */
  async lockFree(collection: MingoCollection, id: unknown, maxTimeMS: number | undefined): Promise<void> {
    const started = this.clock.now();
    while (this.open?.holds(collection, id)) {
      const left = maxTimeMS === undefined ? undefined : maxTimeMS - (this.clock.now() - started);
      if (left !== undefined && left <= 0) throw serverError(50, 'MaxTimeMSExpired', 'operation exceeded time limit');
      await new Promise<void>((resolve) => {
        const cancel = left === undefined ? () => undefined : this.clock.after(left, () => done());
        const done = () => {
          cancel();
          this.ended.delete(done);
          resolve();
        };
        this.ended.add(done);
      });
    }
  }

  /** How a read of `concern` sees `collection` outside any transaction. */
  visible(collection: MingoCollection, concern: string | undefined): Document[] {
    if (concern === 'majority' && this.replication) return this.replication.majority.get(collection) ?? [];
    return collection.committed;
  }

  /** Stops replication: a majority keeps what it has now. */
  holdReplication(): void {
    this.replication ??= {
      majority: new Map(this.collections().map((c) => [c, clone(c.committed)])),
      waiting: new Set(),
    };
  }

  /** Replication catches up: a majority has everything, and the writes waiting for it are acknowledged. */
  releaseReplication(): void {
    const waiting = this.replication?.waiting ?? new Set();
    this.replication = undefined;
    for (const w of waiting) w.resolve();
  }

  /**
   * The primary steps down while replication is held: what no majority had is rolled back, an open
   * transaction is aborted, and the writes waiting for a majority learn their outcome is unknown.
   */
  stepDown(): void {
    const replication = this.replication;
    this.replication = undefined;
    this.term += 1;
    if (this.open) this.open.aborted = true;
    if (!replication) return;
    for (const collection of this.collections())
      collection.committed = clone(replication.majority.get(collection) ?? []);
    const interrupted = () =>
      serverError(11602, 'InterruptedDueToReplStateChange', 'operation was interrupted', [
        'UnknownTransactionCommitResult',
      ]);
    for (const w of replication.waiting) w.reject(interrupted());
  }

  /** A write of concern `w: majority` is acknowledged once a majority has it, or fails after wtimeoutMS. */
  async majority(writeConcern: Options['writeConcern']): Promise<void> {
    const replication = this.replication;
    if (writeConcern?.w !== 'majority' || !replication) return;
    await new Promise<void>((resolve, reject) => {
      const cancel =
        writeConcern.wtimeoutMS === undefined
          ? () => undefined
          : this.clock.after(writeConcern.wtimeoutMS, () => {
              replication.waiting.delete(waiter);
              reject(
                serverError(64, 'WriteConcernFailed', 'waiting for replication timed out', [
                  'UnknownTransactionCommitResult',
                ]),
              );
            });
      const waiter = {
        resolve: () => {
          cancel();
          resolve();
        },
        reject: (error: Error) => {
          cancel();
          reject(error);
        },
      };
      replication.waiting.add(waiter);
    });
  }

  /** How many writes wait now for the open transaction to release a document it holds. */
  get waitingOnLocks(): number {
    return this.ended.size;
  }

  /** Whether some write waits for a majority now. */
  get awaitingMajority(): boolean {
    return (this.replication?.waiting.size ?? 0) > 0;
  }
}

/** How an operation stands to the open transaction. */
type Place =
  { readonly tx: OpenTransaction; readonly inside: true } | { readonly tx?: OpenTransaction; readonly inside: false };

class MingoCollection {
  committed: Document[] = [];

  constructor(
    private readonly server: MingoServer,
    private readonly name: string,
    private readonly reads: MingoRead[],
  ) {}

  /**
   * Inside the open transaction (its session), beside it (another process, a timer, a request), or
   * refused: an operation of the batch's async context that does not carry its session.
   */
  private place(options: Options | undefined): Place {
    const tx = this.server.open;
    if (options?.session) {
      if (tx?.session !== options.session) throw new Error('a session passed with no transaction of it open');
      if (tx.aborted)
        throw serverError(251, 'NoSuchTransaction', 'an earlier error aborted the transaction', [
          'TransientTransactionError',
        ]);
      return { tx, inside: true };
    }
    if (tx && this.server.owners.some((owner) => owner.inBatch))
      throw new Error('an operation outside the open transaction: pass the batch session');
    return { tx, inside: false };
  }

  private read(operation: MingoRead['operation'], filter: Document, options: Options | undefined): Place {
    refuseNulInRegex(filter);
    const place = this.place(options);
    this.reads.push({ collection: this.name, operation, options: { ...options }, filter: clone(filter) });
    return place;
  }

  private docsAt(place: Place, options: Options | undefined): Document[] {
    return place.inside ? place.tx.docs(this) : this.server.visible(this, options?.readConcern?.level);
  }

  /**
   * A write: inside the transaction on its copy; beside it, once no transaction holds the document
   * (`_id` of the filter), on what is committed; then its write concern.
   */
  private async write<T>(filter: Document, options: Options | undefined, apply: (place: Place) => T): Promise<T> {
    let place = this.place(options);
    if (!place.inside && place.tx && filter._id !== undefined && typeof filter._id !== 'object') {
      await this.server.lockFree(this, asStored(filter._id), options?.maxTimeMS);
      place = this.place(options);
    }
    const result = apply(place);
    if (!place.inside) await this.server.majority(options?.writeConcern);
    return result;
  }

  /** As on the server, a refused write aborts the open transaction, even when the caller catches the error. */
  private refuse(place: Place, error: Error): never {
    if (place.inside) place.tx.aborted = true;
    throw error;
  }

  /** Top-level scalar equalities are checked in plain JS first: mingo only sees the few candidates. */
  private matching(docs: Document[], filter: Document): Document[] {
    const query = new Query(atServerTime(asStored(filter), this.server.clock.now()));
    // A quick look at top-level equalities first; a dotted path is left to mingo, as the server resolves it.
    const scalars = Object.entries(equalities(filter)).filter(
      ([key, value]) => !Array.isArray(value) && !key.includes('.'),
    );
    return docs.filter(
      (doc) => scalars.every(([key, value]) => doc[key] === value || Array.isArray(doc[key])) && query.test(doc),
    );
  }

  private writable(place: Place): Document[] {
    return place.inside ? place.tx.docs(this) : this.committed;
  }

  private wrote(place: Place, id: unknown): void {
    if (!place.inside) return;
    if (place.tx.conflictsOn(this, id))
      this.refuse(
        place,
        serverError(112, 'WriteConflict', 'Write conflict during plan execution and yielding is disabled', [
          'TransientTransactionError',
        ]),
      );
    place.tx.wrote(this, id);
  }

  private insert(place: Place, doc: Document): void {
    if (doc._id === undefined) throw new Error('the stand-in needs an explicit _id');
    const docs = this.writable(place);
    if (docs.some((d) => d._id === doc._id))
      this.refuse(place, new DuplicateKeyError(`E11000 duplicate key: ${String(doc._id)}`));
    docs.push(doc);
    this.wrote(place, doc._id);
  }

  async insertOne(doc: Document, options?: Options): Promise<{ insertedId: unknown }> {
    return this.write(doc, options, (place) => {
      this.insert(place, clone(doc));
      return { insertedId: doc._id };
    });
  }

  /** findOne is a find of one document, as in the driver: recorded as a find. */
  find(filter: Document = {}, options: { projection?: Document } & Options = {}): MingoCursor {
    const place = this.read('find', filter, options);
    const asServerReads = atServerTime(asStored(filter), this.server.clock.now());
    return new MingoCursor(
      async () => this.matching(this.docsAt(place, options), filter),
      asServerReads,
      options.projection,
    );
  }

  async findOne(filter: Document, options: { projection?: Document } & Options = {}): Promise<Document | null> {
    const [found] = await this.find(filter, options).limit(1).toArray();
    return found ?? null;
  }

  async updateOne(
    filter: Document,
    modifier: Modifier,
    options: { upsert?: boolean } & Options = {},
  ): Promise<{ matchedCount: number; upsertedCount: number }> {
    refuseExprInUpsert(filter, options);
    return this.write(filter, options, (place) => {
      const [found] = this.matching(this.writable(place), filter);
      if (found) {
        this.modify(place, found, modifier);
        return { matchedCount: 1, upsertedCount: 0 };
      }
      if (!options.upsert) return { matchedCount: 0, upsertedCount: 0 };
      this.insert(place, this.upserted(filter, modifier));
      return { matchedCount: 0, upsertedCount: 1 };
    });
  }

  /** An update of a found document: operators, or a pipeline. */
  private modify(place: Place, found: Document, modifier: Modifier): void {
    this.wrote(place, found._id);
    if (Array.isArray(modifier)) {
      const docs = this.writable(place);
      docs[docs.indexOf(found)] = piped(found, modifier, this.server.clock.now());
      return;
    }
    if (modifier.$set) update(found, { $set: clone(modifier.$set) });
    if (modifier.$inc) update(found, { $inc: clone(modifier.$inc) });
    if (modifier.$max) update(found, { $max: clone(modifier.$max) });
  }

  /** The document an upsert inserts: the filter's equalities, then the operators or the pipeline over them. */
  private upserted(filter: Document, modifier: Modifier): Document {
    if (Array.isArray(modifier)) return piped(equalities(filter), modifier, this.server.clock.now());
    return clone({
      ...equalities(filter),
      ...modifier.$setOnInsert,
      ...modifier.$set,
      ...modifier.$inc,
      ...modifier.$max,
    });
  }

  /** As the lease's acquire calls it: `returnDocument: 'after'`, the upsert as updateOne's. */
  async findOneAndUpdate(
    filter: Document,
    modifier: Modifier,
    options: { upsert?: boolean } & Options = {},
  ): Promise<Document | null> {
    refuseExprInUpsert(filter, options);
    // A query too (it finds before it writes): recorded, with its time bound.
    this.read('findOneAndUpdate', filter, options);
    return this.write(filter, options, (place) => {
      const [found] = this.matching(this.writable(place), filter);
      if (found) {
        this.modify(place, found, modifier);
        const [after] = this.matching(this.writable(place), { _id: found._id });
        return clone(after ?? null);
      }
      if (!options.upsert) return null;
      const inserted = this.upserted(filter, modifier);
      this.insert(place, inserted);
      return clone(inserted);
    });
  }

  async replaceOne(
    filter: Document,
    replacement: Document,
    options: { upsert?: boolean } & Options = {},
  ): Promise<void> {
    refuseExprInUpsert(filter, options);
    await this.write(filter, options, (place) => {
      const docs = this.writable(place);
      const [found] = this.matching(docs, filter);
      if (found) {
        docs[docs.indexOf(found)] = clone({ _id: found._id, ...replacement });
        this.wrote(place, found._id);
        return;
      }
      if (options.upsert) this.insert(place, clone({ ...equalities(filter), ...replacement }));
    });
  }

  /** As the driver's, the count of what it deleted (0 or 1). */
  async deleteOne(filter: Document, options?: Options): Promise<{ deletedCount: number }> {
    return this.write(filter, options, (place) => {
      const docs = this.writable(place);
      const [found] = this.matching(docs, filter);
      if (!found) return { deletedCount: 0 };
      docs.splice(docs.indexOf(found), 1);
      this.wrote(place, found._id);
      return { deletedCount: 1 };
    });
  }

  async deleteMany(filter: Document, options?: Options): Promise<void> {
    await this.write(filter, options, (place) => {
      const docs = this.writable(place);
      const gone = new Set(this.matching(docs, filter));
      for (const doc of gone) {
        docs.splice(docs.indexOf(doc), 1);
        this.wrote(place, doc._id);
      }
    });
  }

  async countDocuments(filter: Document = {}, options?: Options): Promise<number> {
    const place = this.read('countDocuments', filter, options);
    return this.matching(this.docsAt(place, options), filter).length;
  }

  /** Like the server: an array field contributes each element; values compared by their BSON-ish JSON. */
  async distinct(field: string, filter: Document = {}, options?: Options): Promise<unknown[]> {
    const place = this.read('distinct', filter, options);
    const seen = new Map<string, unknown>();
    for (const doc of this.matching(this.docsAt(place, options), filter)) {
      const value = field.split('.').reduce<unknown>((at, key) => (at as Document | null | undefined)?.[key], doc);
      for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) seen.set(JSON.stringify(v), v);
    }
    return [...seen.values()];
  }

  /** The indexes asked for, as listIndexes would answer them (with the _id index a collection always has). */
  indexSpecs: Document[] = [];

  async createIndexes(indexes: readonly Document[]): Promise<string[]> {
    for (const index of indexes) {
      const name = (index.name as string | undefined) ?? `index_${this.indexSpecs.length}`;
      this.indexSpecs = [...this.indexSpecs.filter((i) => i.name !== name), { v: 2, ...clone(index), name }];
    }
    return indexes.map((index, i) => (index.name as string | undefined) ?? `index_${i}`);
  }

  async indexes(): Promise<Document[]> {
    return [{ v: 2, key: { _id: 1 }, name: '_id_' }, ...clone(this.indexSpecs)];
  }

  /** Documents and indexes gone, as a dropped collection's (the next write creates it anew). Not in a transaction. */
  async drop(): Promise<boolean> {
    if (this.server.open) throw new Error('drop while a transaction is open: not modelled');
    this.committed = [];
    this.indexSpecs = [];
    return true;
  }

  async createIndex(): Promise<string> {
    return 'index';
  }
}

class MingoDb {
  private readonly collections = new Map<string, MingoCollection>();
  /** Every query answered, in order. */
  readonly reads: MingoRead[] = [];

  constructor(
    private readonly server: MingoServer,
    readonly databaseName: string,
  ) {}

  /** The client this database belongs to: `db.client.db(name)`, another database of the same server. */
  get client(): { db: (name: string) => MingoDb } {
    return { db: (name) => this.server.db(name) };
  }

  collection(name: string): MingoCollection {
    let found = this.collections.get(name);
    if (!found) this.collections.set(name, (found = new MingoCollection(this.server, name, this.reads)));
    return found;
  }

  all(): MingoCollection[] {
    return [...this.collections.values()];
  }

  async dropDatabase(): Promise<boolean> {
    for (const collection of this.all()) await collection.drop();
    return true;
  }
}

/** A session, as MongoReadDb.transaction drives it (the driver's documented ClientSession calls). */
class MingoSession {
  /** Its last commit, while it may be asked again (a retried commit): the term and the write concern. */
  private committed: { term: number; writeConcern: Options['writeConcern'] } | undefined;

  constructor(private readonly server: MingoServer) {}

  startTransaction(options: TransactionOptions = {}): void {
    this.committed = undefined;
    this.server.begin(this, options);
  }

  inTransaction(): boolean {
    return this.server.open?.session === this;
  }

  async commitTransaction(): Promise<void> {
    const server = this.server;
    server.commits.push(server.clock.now());
    const tx = server.open?.session === this ? server.open : undefined;
    if (!tx) {
      // A commit asked again: committed already, it waits for its write concern again, unless
      // a failover rolled it back since (the new primary knows no such transaction).
      if (this.committed?.term === server.term) return server.majority(this.committed.writeConcern);
      throw serverError(251, 'NoSuchTransaction', 'no such transaction', ['TransientTransactionError']);
    }
    if (tx.aborted) {
      server.end();
      throw serverError(251, 'NoSuchTransaction', 'the transaction was aborted', ['TransientTransactionError']);
    }
    tx.merge();
    server.end();
    this.committed = { term: server.term, writeConcern: tx.options.writeConcern as Options['writeConcern'] };
    await server.majority(this.committed.writeConcern);
  }

  async abortTransaction(): Promise<void> {
    if (this.inTransaction()) this.server.end();
  }

  async endSession(): Promise<void> {
    await this.abortTransaction();
  }
}

/** The client calls MongoReadDb makes: sessions, and closing. */
class MingoClient {
  constructor(private readonly server: MingoServer) {}

  /** Nothing to release in process; closing is what every owner of a client does last. */
  async close(): Promise<void> {}

  startSession(): MingoSession {
    return new MingoSession(this.server);
  }
}

/** MongoReadDb's private constructor. */
type ReadDbConstructor = new (
  client: unknown,
  db: Db,
  transactions: boolean,
  queryTimeoutMs?: number,
  now?: () => number,
  kept?: Db,
  wait?: (ms: number) => Promise<void>,
) => MongoReadDb;

const servers = new WeakMap<MongoReadDb, MingoServer>();

/**
 * A MongoReadDb whose database is the mingo stand-in; its checkpoints and leases use the stand-in
 * too; its `$$NOW` reads `serverNow` (the server's clock, by default the test's), or `clock`, which
 * also bounds the server's waits and times the adapter's transactions. `transactions`: as on a
 * replica set, each batch commits in one transaction; otherwise as on a standalone server, the
 * ordered writes. `server`: another process's connection to that stand-in's server; `dbName` and
 * `keptDbName` name its database and the one of records kept across generations.
 */
export function mingoReadDb(
  options: {
    transactions?: boolean;
    queryTimeoutMs?: number;
    serverNow?: () => number;
    clock?: MingoClock;
    server?: MongoReadDb;
    dbName?: string;
    keptDbName?: string;
  } = {},
): MongoReadDb {
  const shared = options.server && servers.get(options.server);
  const server =
    shared ?? new MingoServer(options.clock ?? realTimers(options.serverNow ?? Date.now), options.clock?.now);
  const dbName = options.dbName ?? 'reads';
  const read = new (MongoReadDb as unknown as ReadDbConstructor)(
    new MingoClient(server),
    server.db(dbName) as unknown as Db,
    options.transactions ?? shared?.owners[0]?.transactions ?? false,
    options.queryTimeoutMs,
    server.processNow,
    server.db(options.keptDbName ?? dbName) as unknown as Db,
    (ms: number) => new Promise<void>((resolve) => server.clock.after(ms, resolve)),
  );
  server.owners = [...server.owners, read];
  servers.set(read, server);
  return read;
}

/** The stand-in server behind a MongoReadDb made by `mingoReadDb`: its replication, transactions and commits. */
export function mingoServer(read: MongoReadDb): MingoServer {
  const server = servers.get(read);
  if (!server) throw new Error('not a stand-in made by mingoReadDb');
  return server;
}

/** The queries a stand-in made by `mingoReadDb` has answered, each with the options it was given. */
export function mingoReads(read: MongoReadDb): readonly MingoRead[] {
  return (read.db as unknown as MingoDb).reads;
}

/** The queries that reached the stand-in without a server-side time bound (`maxTimeMS`). */
export function unboundedReads(read: MongoReadDb): readonly MingoRead[] {
  return mingoReads(read).filter((r) => !(typeof r.options.maxTimeMS === 'number' && r.options.maxTimeMS > 0));
}

/**
 * A stand-in for the few MongoDB calls the read-model adapters make, evaluated in process by
 * mingo, so that their contract suites run where no MongoDB answers. It models what those
 * adapters rely on — matching, projection, sort/skip/limit, `distinct` unwinding arrays, and an
 * upsert whose filter misses an existing _id failing with duplicate key 11000, `$inc` — and nothing else.
 * With `transactions`, it also models a replica set's transaction as far as the adapters rely on
 * it: all or nothing, and an error aborts it. Every operation while one is open must carry its
 * session, the check that no adapter operation escapes the batch's transaction. Every query
 * (find, findOne, countDocuments, distinct) is recorded with its options (`mingoReads`), so a test
 * can check that each carries its time bound.
 * It is not a substitute for the suites against a real server (describeMongo).
 */
import { Aggregator, Query, update } from 'mingo';
import type { Db, Document } from 'mongodb';
import { MongoReadDb } from '../../src/infra/mongo/mongo-read-db';

type Sort = Record<string, 1 | -1>;

class DuplicateKeyError extends Error {
  readonly code = 11000;
}

/**
 * Documents hold only JSON values. Not structuredClone: under jest it builds objects of another
 * realm, which mingo does not take for plain objects (its $set then leaves them unchanged).
 */
const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

class MingoCursor {
  private order: Sort | undefined;
  private skipped = 0;
  private limited = 0;

  constructor(
    private readonly docs: (filter: Document) => Document[],
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
      this.docs(this.filter),
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

type Modifier = { $set?: Document; $setOnInsert?: Document; $inc?: Record<string, number> } | Document[];

/** The fields an upsert copies from its filter into the new document: top-level equalities. */
function equalities(filter: Document): Document {
  return Object.fromEntries(
    Object.entries(filter).filter(
      ([key, value]) => !key.startsWith('$') && (typeof value !== 'object' || value === null || Array.isArray(value)),
    ),
  );
}

type Options = { session?: unknown; maxTimeMS?: number };

/** One query the stand-in answered, with the options it was given. */
export type MingoRead = {
  readonly collection: string;
  readonly operation: 'find' | 'countDocuments' | 'distinct' | 'findOneAndUpdate';
  readonly options: Options;
  readonly filter: Document;
};

/** The open transaction of the stand-in's one client, if any. */
class MingoTransactions {
  open: { session: unknown; aborted?: boolean } | undefined;

  /** An operation issued while a transaction is open but without its session would bypass it. */
  check(options: Options | undefined): void {
    if (this.open && options?.session !== this.open.session)
      throw new Error('an operation outside the open transaction: pass the batch session');
    if (this.open?.aborted) throw new Error('NoSuchTransaction: an earlier error aborted the transaction');
    if (!this.open && options?.session) throw new Error('a session passed with no transaction open');
  }
}

class MingoCollection {
  docs: Document[] = [];

  constructor(
    private readonly name: string,
    private readonly transactions: MingoTransactions,
    private readonly reads: MingoRead[],
    private readonly serverNow: () => number,
  ) {}

  private read(operation: MingoRead['operation'], filter: Document, options: Options | undefined): void {
    this.transactions.check(options);
    this.reads.push({ collection: this.name, operation, options: { ...options }, filter: clone(filter) });
  }

  /** As on the server, a refused write aborts the open transaction, even when the caller catches the error. */
  private refuse(error: Error): never {
    if (this.transactions.open) this.transactions.open.aborted = true;
    throw error;
  }

  /** Top-level scalar equalities are checked in plain JS first: mingo only sees the few candidates. */
  private matching(filter: Document): Document[] {
    const query = new Query(atServerTime(asStored(filter), this.serverNow()));
    // A quick look at top-level equalities first; a dotted path is left to mingo, as the server resolves it.
    const scalars = Object.entries(equalities(filter)).filter(
      ([key, value]) => !Array.isArray(value) && !key.includes('.'),
    );
    return this.docs.filter(
      (doc) => scalars.every(([key, value]) => doc[key] === value || Array.isArray(doc[key])) && query.test(doc),
    );
  }

  private insert(doc: Document): void {
    if (doc._id === undefined) throw new Error('the stand-in needs an explicit _id');
    if (this.docs.some((d) => d._id === doc._id))
      this.refuse(new DuplicateKeyError(`E11000 duplicate key: ${String(doc._id)}`));
    this.docs.push(doc);
  }

  async insertOne(doc: Document, options?: Options): Promise<{ insertedId: unknown }> {
    this.transactions.check(options);
    this.insert(clone(doc));
    return { insertedId: doc._id };
  }

  /** findOne is a find of one document, as in the driver: recorded as a find. */
  find(filter: Document = {}, options: { projection?: Document } & Options = {}): MingoCursor {
    this.read('find', filter, options);
    const asServerReads = atServerTime(asStored(filter), this.serverNow());
    return new MingoCursor((f) => this.matching(f), asServerReads, options.projection);
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
    this.transactions.check(options);
    const [found] = this.matching(filter);
    if (found) {
      this.modify(found, modifier);
      return { matchedCount: 1, upsertedCount: 0 };
    }
    if (!options.upsert) return { matchedCount: 0, upsertedCount: 0 };
    this.insert(this.upserted(filter, modifier));
    return { matchedCount: 0, upsertedCount: 1 };
  }

  /** An update of a found document: operators, or a pipeline. */
  private modify(found: Document, modifier: Modifier): void {
    if (Array.isArray(modifier)) {
      const index = this.docs.indexOf(found);
      this.docs[index] = piped(found, modifier, this.serverNow());
      return;
    }
    if (modifier.$set) update(found, { $set: clone(modifier.$set) });
    if (modifier.$inc) update(found, { $inc: clone(modifier.$inc) });
  }

  /** The document an upsert inserts: the filter's equalities, then the operators or the pipeline over them. */
  private upserted(filter: Document, modifier: Modifier): Document {
    if (Array.isArray(modifier)) return piped(equalities(filter), modifier, this.serverNow());
    return clone({ ...equalities(filter), ...modifier.$setOnInsert, ...modifier.$set, ...modifier.$inc });
  }

  /** As the lease's acquire calls it: `returnDocument: 'after'`, the upsert as updateOne's. */
  async findOneAndUpdate(
    filter: Document,
    modifier: Modifier,
    options: { upsert?: boolean } & Options = {},
  ): Promise<Document | null> {
    // A query too (it finds before it writes): recorded, with its time bound.
    this.read('findOneAndUpdate', filter, options);
    const [found] = this.matching(filter);
    if (found) {
      this.modify(found, modifier);
      const [after] = this.matching({ _id: found._id });
      return clone(after ?? null);
    }
    if (!options.upsert) return null;
    const inserted = this.upserted(filter, modifier);
    this.insert(inserted);
    return clone(inserted);
  }

  async replaceOne(
    filter: Document,
    replacement: Document,
    options: { upsert?: boolean } & Options = {},
  ): Promise<void> {
    this.transactions.check(options);
    const [found] = this.matching(filter);
    if (found) {
      const index = this.docs.indexOf(found);
      this.docs[index] = clone({ _id: found._id, ...replacement });
      return;
    }
    if (options.upsert) this.insert(clone({ ...equalities(filter), ...replacement }));
  }

  async deleteOne(filter: Document, options?: Options): Promise<void> {
    this.transactions.check(options);
    const [found] = this.matching(filter);
    if (found) this.docs = this.docs.filter((d) => d !== found);
  }

  async deleteMany(filter: Document, options?: Options): Promise<void> {
    this.transactions.check(options);
    const gone = new Set(this.matching(filter));
    this.docs = this.docs.filter((d) => !gone.has(d));
  }

  async countDocuments(filter: Document = {}, options?: Options): Promise<number> {
    this.read('countDocuments', filter, options);
    return this.matching(filter).length;
  }

  /** Like the server: an array field contributes each element; values compared by their BSON-ish JSON. */
  async distinct(field: string, filter: Document = {}, options?: Options): Promise<unknown[]> {
    this.read('distinct', filter, options);
    const seen = new Map<string, unknown>();
    for (const doc of this.matching(filter)) {
      const value = field.split('.').reduce<unknown>((at, key) => (at as Document | null | undefined)?.[key], doc);
      for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) seen.set(JSON.stringify(v), v);
    }
    return [...seen.values()];
  }

  /** The indexes asked for, as listIndexes would answer them (with the _id index a collection always has). */
  private indexSpecs: Document[] = [];

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

  /** Documents and indexes gone, as a dropped collection's (the next write creates it anew). */
  async drop(): Promise<boolean> {
    this.transactions.check(undefined);
    this.docs = [];
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
    readonly transactions: MingoTransactions,
    private readonly serverNow: () => number,
  ) {}

  collection(name: string): MingoCollection {
    let found = this.collections.get(name);
    if (!found) {
      found = new MingoCollection(name, this.transactions, this.reads, this.serverNow);
      this.collections.set(name, found);
    }
    return found;
  }

  /** Every collection's documents, to restore when a transaction aborts (stores keep their collection objects). */
  snapshot(): () => void {
    const saved = new Map([...this.collections].map(([name, collection]) => [name, clone(collection.docs)]));
    return () => {
      for (const [name, collection] of this.collections) collection.docs = saved.get(name) ?? [];
    };
  }
}

/** The client calls MongoReadDb.transaction makes: a session whose withTransaction is all or nothing. */
class MingoClient {
  constructor(private readonly db: MingoDb) {}

  /** Nothing to release in process; closing is what every owner of a client does last. */
  async close(): Promise<void> {}

  startSession() {
    const db = this.db;
    const session = {
      async withTransaction<T>(fn: (s: unknown) => Promise<T>): Promise<T> {
        if (db.transactions.open) throw new Error('a transaction is already open');
        const restore = db.snapshot();
        db.transactions.open = { session };
        try {
          const result = await fn(session);
          if (db.transactions.open.aborted)
            throw new Error('NoSuchTransaction: the commit found the transaction aborted');
          return result;
        } catch (error) {
          restore();
          throw error;
        } finally {
          db.transactions.open = undefined;
        }
      },
      async endSession(): Promise<void> {},
    };
    return session;
  }
}

/** MongoReadDb's private constructor. */
type ReadDbConstructor = new (client: unknown, db: Db, transactions: boolean, queryTimeoutMs?: number) => MongoReadDb;

/**
 * A MongoReadDb whose database is the mingo stand-in; its checkpoints and leases use the stand-in
 * too; its `$$NOW` reads `serverNow` (the server's clock, by default the test's). `transactions`:
 * as on a replica set, each batch commits in one transaction; otherwise as on a standalone
 * server, the ordered writes.
 */
export function mingoReadDb(
  options: { transactions?: boolean; queryTimeoutMs?: number; serverNow?: () => number } = {},
): MongoReadDb {
  const db = new MingoDb(new MingoTransactions(), options.serverNow ?? Date.now);
  return new (MongoReadDb as unknown as ReadDbConstructor)(
    new MingoClient(db),
    db as unknown as Db,
    options.transactions ?? false,
    options.queryTimeoutMs,
  );
}

/** The queries a stand-in made by `mingoReadDb` has answered, each with the options it was given. */
export function mingoReads(read: MongoReadDb): readonly MingoRead[] {
  return (read.db as unknown as MingoDb).reads;
}

/** The queries that reached the stand-in without a server-side time bound (`maxTimeMS`). */
export function unboundedReads(read: MongoReadDb): readonly MingoRead[] {
  return mingoReads(read).filter((r) => !(typeof r.options.maxTimeMS === 'number' && r.options.maxTimeMS > 0));
}

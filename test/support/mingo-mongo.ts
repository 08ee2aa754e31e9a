/**
 * A stand-in for the few MongoDB calls the read-model adapters make, evaluated in process by
 * mingo, so that their contract suites run where no MongoDB answers. It models what those
 * adapters rely on — matching, projection, sort/skip/limit, `distinct` unwinding arrays, and an
 * upsert whose filter misses an existing _id failing with duplicate key 11000 — and nothing else.
 * It is not a substitute for the suites against a real server (describeMongo).
 */
import { Query, update } from 'mingo';
import type { Db, Document } from 'mongodb';
import { MongoReadDb } from '../../src/infra/read-models/mongo-read-db';

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
    private readonly projection: Document | undefined,
  ) {}

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
    let cursor = new Query(this.filter).find<Document>(this.docs(this.filter), this.projection && Object.keys(this.projection).length > 0 ? this.projection : undefined);
    if (this.order) cursor = cursor.sort(this.order);
    if (this.skipped > 0) cursor = cursor.skip(this.skipped);
    if (this.limited > 0) cursor = cursor.limit(this.limited);
    return clone(cursor.all());
  }
}

/** The fields an upsert copies from its filter into the new document: top-level equalities. */
function equalities(filter: Document): Document {
  return Object.fromEntries(
    Object.entries(filter).filter(([key, value]) => !key.startsWith('$') && (typeof value !== 'object' || value === null || Array.isArray(value))),
  );
}

class MingoCollection {
  private docs: Document[] = [];

  /** Top-level scalar equalities are checked in plain JS first: mingo only sees the few candidates. */
  private matching(filter: Document): Document[] {
    const query = new Query(filter);
    const scalars = Object.entries(equalities(filter)).filter(([, value]) => !Array.isArray(value));
    return this.docs.filter((doc) => scalars.every(([key, value]) => doc[key] === value || Array.isArray(doc[key])) && query.test(doc));
  }

  private insert(doc: Document): void {
    if (doc._id === undefined) throw new Error('the stand-in needs an explicit _id');
    if (this.docs.some((d) => d._id === doc._id)) throw new DuplicateKeyError(`E11000 duplicate key: ${String(doc._id)}`);
    this.docs.push(doc);
  }

  find(filter: Document = {}, options: { projection?: Document } = {}): MingoCursor {
    return new MingoCursor((f) => this.matching(f), filter, options.projection);
  }

  async findOne(filter: Document, options: { projection?: Document } = {}): Promise<Document | null> {
    const [found] = await this.find(filter, options).limit(1).toArray();
    return found ?? null;
  }

  async updateOne(filter: Document, modifier: { $set?: Document; $setOnInsert?: Document }, options: { upsert?: boolean } = {}): Promise<void> {
    const [found] = this.matching(filter);
    if (found) {
      if (modifier.$set) update(found, { $set: clone(modifier.$set) });
      return;
    }
    if (options.upsert) this.insert(clone({ ...equalities(filter), ...modifier.$setOnInsert, ...modifier.$set }));
  }

  async replaceOne(filter: Document, replacement: Document, options: { upsert?: boolean } = {}): Promise<void> {
    const [found] = this.matching(filter);
    if (found) {
      const index = this.docs.indexOf(found);
      this.docs[index] = clone({ _id: found._id, ...replacement });
      return;
    }
    if (options.upsert) this.insert(clone({ ...equalities(filter), ...replacement }));
  }

  async deleteOne(filter: Document): Promise<void> {
    const [found] = this.matching(filter);
    if (found) this.docs = this.docs.filter((d) => d !== found);
  }

  async deleteMany(filter: Document): Promise<void> {
    const gone = new Set(this.matching(filter));
    this.docs = this.docs.filter((d) => !gone.has(d));
  }

  async countDocuments(filter: Document = {}): Promise<number> {
    return this.matching(filter).length;
  }

  /** Like the server: an array field contributes each element; values compared by their BSON-ish JSON. */
  async distinct(field: string, filter: Document = {}): Promise<unknown[]> {
    const seen = new Map<string, unknown>();
    for (const doc of this.matching(filter)) {
      const value: unknown = doc[field];
      for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) seen.set(JSON.stringify(v), v);
    }
    return [...seen.values()];
  }

  async createIndexes(indexes: readonly { name?: string }[]): Promise<string[]> {
    return indexes.map((index, i) => index.name ?? `index_${i}`);
  }
}

class MingoDb {
  private readonly collections = new Map<string, MingoCollection>();

  collection(name: string): MingoCollection {
    let found = this.collections.get(name);
    if (!found) {
      found = new MingoCollection();
      this.collections.set(name, found);
    }
    return found;
  }
}

/** MongoReadDb's private constructor: no client, as on a standalone server (no transactions). */
type ReadDbConstructor = new (client: unknown, db: Db, transactions: boolean) => MongoReadDb;

/** A MongoReadDb whose database is the mingo stand-in; its checkpoints use the stand-in too. */
export function mingoReadDb(): MongoReadDb {
  return new (MongoReadDb as unknown as ReadDbConstructor)(undefined, new MingoDb() as unknown as Db, false);
}

import { MongoClient } from 'mongodb';
import type { Db, Document, Collection as MongoCollection, Filter as MongoFilter } from 'mongodb';
import { orderDistinct } from './memory-read-store';
import type { Collection, Doc, Filter, FindOptions, IndexSpec, Page, ReadStore } from './read-store';

/** The production adapter: read models live in MongoDB and survive restarts (durable = true). */
export class MongoReadStore implements ReadStore {
  readonly durable = true;

  private constructor(
    private readonly client: MongoClient,
    private readonly db: Db,
  ) {}

  /** `dbName` overrides the database named in the URL (e.g. one database per test run). */
  static async connect(url: string, dbName?: string): Promise<MongoReadStore> {
    // Fields holding `undefined` are left out rather than stored as null, as the embedded adapter does.
    const client = new MongoClient(url, { ignoreUndefined: true });
    await client.connect();
    return new MongoReadStore(client, client.db(dbName));
  }

  collection<T extends Doc>(name: string): Collection<T> {
    return new MongoReadCollection<T>(this.db.collection<Doc>(name));
  }

  async ensureIndexes(specs: readonly IndexSpec[]): Promise<void> {
    for (const spec of specs) {
      await this.db
        .collection(spec.collection)
        .createIndex(spec.keys, spec.unique ? { name: spec.name, unique: true } : { name: spec.name });
    }
  }

  async dropAll(): Promise<void> {
    const collections = await this.db.listCollections({}, { nameOnly: true }).toArray();
    for (const { name } of collections) {
      if (!name.startsWith('system.')) await this.db.dropCollection(name);
    }
  }

  async ping(): Promise<void> {
    await this.db.command({ ping: 1 });
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}

type Facets<T> = { count: { n: number }[]; list: T[] };

class MongoReadCollection<T extends Doc> implements Collection<T> {
  constructor(private readonly collection: MongoCollection<Doc>) {}

  async findOne(filter: Filter): Promise<T | null> {
    return (await this.collection.findOne(asFilter(filter))) as T | null;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    // The driver reads a negative limit as "one batch of |limit|"; the port has no such meaning.
    if (options.limit !== undefined && options.limit < 0) throw new RangeError('read store: limit must be >= 0');
    const cursor = this.collection.find(asFilter(filter));
    if (options.sort !== undefined && Object.keys(options.sort).length > 0) cursor.sort(options.sort);
    if (options.skip !== undefined) cursor.skip(options.skip);
    if (options.limit !== undefined) cursor.limit(options.limit);
    return (await cursor.toArray()) as T[];
  }

  async findPage(filter: Filter, options: FindOptions & { skip: number; limit: number }): Promise<Page<T>> {
    // $match then $sort before $facet: the server serves both from one index (a $sort inside
    // $facet could not use one), and one round trip gives the total and the page, so the two
    // cannot disagree under concurrent writes.
    const pipeline: Document[] = [{ $match: filter }];
    if (options.sort !== undefined && Object.keys(options.sort).length > 0) pipeline.push({ $sort: options.sort });
    pipeline.push({ $facet: { count: [{ $count: 'n' }], list: [{ $skip: options.skip }, { $limit: options.limit }] } });
    const [result] = await this.collection.aggregate<Facets<T>>(pipeline).toArray();
    return { count: result?.count[0]?.n ?? 0, list: result?.list ?? [] };
  }

  async count(filter: Filter): Promise<number> {
    return this.collection.countDocuments(asFilter(filter));
  }

  async distinct(field: string, filter: Filter): Promise<unknown[]> {
    // The server's distinct neither sorts nor drops null; ordering here keeps both adapters alike.
    return orderDistinct(await this.collection.distinct(field, asFilter(filter)));
  }

  async upsert(doc: T): Promise<void> {
    await this.collection.replaceOne({ _id: doc._id }, doc, { upsert: true });
  }

  async deleteOne(filter: Filter): Promise<void> {
    await this.collection.deleteOne(asFilter(filter));
  }

  async deleteMany(filter: Filter): Promise<number> {
    return (await this.collection.deleteMany(asFilter(filter))).deletedCount;
  }
}

// The port's filters are untyped MongoDB query documents; the server is their validator.
function asFilter(filter: Filter): MongoFilter<Doc> {
  return filter as MongoFilter<Doc>;
}

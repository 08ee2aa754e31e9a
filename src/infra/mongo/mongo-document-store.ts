import type { Collection, Document as MongoDocument, IndexDescription } from 'mongodb';
import { canonicalDigest } from '../../projections/canonical-digest';
import {
  compareCodePoints,
  indexOf,
  keysetAlternatives,
  type CollectionDeclaration,
  type Document,
  type DocumentId,
  type DocumentStore,
  type IndexQuery,
  type Scalar,
} from '../../projections/document-store';
import type { PageResponse } from '../../projections/paging';
import type { ProjectionStore, ReadModelDigest } from '../../projections/read-model-projection';
import { applyGuardedUpsert, guardedUpsert, positionOf } from './mongo-guarded-write';
import { mongoProjectionStore, type MongoReadDb } from './mongo-read-db';

/** An operator's scan of whole collections, not a request's query: a bound of its own (as the runner's digest). */
const SCAN_TIMEOUT_MS = 60_000;

export const documentCollection = (collection: string): string => `doc_${collection}`;

/** Each stored document is `{ _id, doc, position }`: the read model's fields never meet ours. */
const at = (field: string): string => `doc.${field}`;

export function indexesOf({ indexes }: CollectionDeclaration): IndexDescription[] {
  return Object.entries(indexes).map(([name, index]) => ({
    name,
    key: Object.fromEntries([
      ...index.equal.map((f) => [at(f), 1] as const),
      ...index.order.map(([f, direction]) => [at(f), direction] as const),
    ]),
  }));
}

/**
 * Every document read model on MongoDB: a collection per declared collection, its indexes created
 * as it opens; writes guarded by position and sent in the batch's session, reads bounded in time.
 */
export class MongoDocumentStore implements DocumentStore {
  readonly projectionStore: ProjectionStore;

  private constructor(
    private readonly read: MongoReadDb,
    private readonly collections: readonly CollectionDeclaration[],
  ) {
    const names = collections.map((c) => documentCollection(c.name));
    this.projectionStore = { ...mongoProjectionStore(read, names), digest: () => this.digest(names) };
  }

  static async open(read: MongoReadDb, collections: readonly CollectionDeclaration[]): Promise<MongoDocumentStore> {
    for (const collection of collections) {
      const indexes = indexesOf(collection);
      if (indexes.length > 0) await read.db.collection(documentCollection(collection.name)).createIndexes(indexes);
    }
    return new MongoDocumentStore(read, collections);
  }

  private collection(name: string): Collection<MongoDocument> {
    return this.read.db.collection(documentCollection(name));
  }

  async load(collection: string, id: DocumentId): Promise<{ document: Document | null; position: bigint } | null> {
    const stored = await this.collection(collection).findOne({ _id: id as never }, this.read.readOptions());
    return stored ? { document: (stored.doc as Document | null) ?? null, position: positionOf(stored.position) } : null;
  }

  async save(collection: string, id: DocumentId, document: Document | null, position: bigint): Promise<void> {
    await applyGuardedUpsert(
      this.collection(collection),
      guardedUpsert(id, position, { doc: document }),
      this.read.sessionOption().session,
    );
  }

  async get(collection: string, id: DocumentId): Promise<Document | null> {
    return (await this.load(collection, id))?.document ?? null;
  }

  async loadMany(
    collection: string,
    ids: readonly DocumentId[],
  ): Promise<{ id: DocumentId; document: Document | null; position: bigint }[]> {
    if (ids.length === 0) return [];
    const found = await this.collection(collection)
      .find({ _id: { $in: [...new Set(ids)] } as never }, this.read.readOptions())
      .toArray();
    return found.map((d) => ({
      id: d._id as unknown as DocumentId,
      document: (d.doc as Document | null) ?? null,
      position: positionOf(d.position),
    }));
  }

  async page(collection: string, { index: name, equal, page, after }: IndexQuery): Promise<PageResponse<Document>> {
    const index = indexOf(this.collections, collection, name);
    const filter = { doc: { $ne: null }, ...Object.fromEntries(index.equal.map((f, i) => [at(f), equal[i]])) };
    const count = await this.collection(collection).countDocuments(filter, this.read.readOptions());
    // take 0 must not reach the server: limit(0) there means "no limit".
    if (page.take === 0 || count === 0) return { count, list: [] };
    const afterKey = after
      ? {
          $or: keysetAlternatives(index, after).map(({ equal: same, beyond: [f, direction, value] }) => ({
            ...Object.fromEntries(same.map(([g, v]) => [at(g), v])),
            [at(f)]: { [direction === 1 ? '$gt' : '$lt']: value },
          })),
        }
      : {};
    const docs = await this.collection(collection)
      .find({ ...filter, ...afterKey }, { projection: { _id: 0, doc: 1 }, ...this.read.readOptions() })
      .sort(Object.fromEntries(index.order.map(([f, direction]) => [at(f), direction])))
      .skip(page.skip)
      .limit(page.take)
      .toArray();
    return { count, list: docs.map((d) => d.doc as Document) };
  }

  async find(collection: string, name: string, equal: readonly Scalar[]): Promise<Document[]> {
    const index = indexOf(this.collections, collection, name);
    const filter = { doc: { $ne: null }, ...Object.fromEntries(index.equal.map((f, i) => [at(f), equal[i]])) };
    const found = this.collection(collection).find(filter, {
      projection: { _id: 0, doc: 1 },
      ...this.read.readOptions(),
    });
    if (index.order.length > 0) found.sort(Object.fromEntries(index.order.map(([f, direction]) => [at(f), direction])));
    return (await found.toArray()).map((d) => d.doc as Document);
  }

  async distinct(collection: string, field: string, equal: Readonly<Record<string, Scalar>>): Promise<string[]> {
    const filter = { doc: { $ne: null }, ...Object.fromEntries(Object.entries(equal).map(([f, v]) => [at(f), v])) };
    const values: unknown[] = await this.collection(collection).distinct(at(field), filter, this.read.readOptions());
    return [...new Set(values.filter((v): v is string => typeof v === 'string'))].sort(compareCodePoints);
  }

  /** Rows as `{ id, document, position }` in id order: the same rows the SQLite adapter digests. */
  private async digest(names: readonly string[]): Promise<ReadModelDigest> {
    return canonicalDigest(
      await Promise.all(
        names.map(async (name) => ({
          name,
          rows: (
            await this.read.db.collection(name).find({}, { maxTimeMS: SCAN_TIMEOUT_MS }).sort({ _id: 1 }).toArray()
          ).map((d) => ({ id: d._id, document: d.doc ?? null, position: Number(positionOf(d.position)) })),
        })),
      ),
    );
  }
}

/**
 * The read store port: a small, MongoDB-shaped subset. Filters, sorts and index specs are
 * MongoDB documents, so one query text serves the production adapter (MongoDB) and the
 * embedded one (in-memory collections evaluated with mingo). Documents out of the store are
 * plain copies: mutating one never changes what is stored.
 */
export type Doc = { _id: string } & Record<string, unknown>;

/** A MongoDB query document, e.g. `{ viewKey: 'c:1', audience: { $in: ['public'] } }`. */
export type Filter = Record<string, unknown>;

/** A MongoDB sort document, e.g. `{ postDate: -1, resourceId: -1 }`. */
export type Sort = Record<string, 1 | -1>;

export type FindOptions = {
  readonly sort?: Sort;
  readonly skip?: number;
  readonly limit?: number;
};

export type Page<T> = { readonly count: number; readonly list: T[] };

export type IndexSpec = {
  readonly collection: string;
  readonly keys: Record<string, 1 | -1>;
  readonly name: string;
  readonly unique?: boolean;
};

export interface Collection<T extends Doc> {
  findOne(filter: Filter): Promise<T | null>;
  find(filter: Filter, options?: FindOptions): Promise<T[]>;
  /** The total matching `filter` and one page of them, answered by a single query. */
  findPage(filter: Filter, options: FindOptions & { skip: number; limit: number }): Promise<Page<T>>;
  count(filter: Filter): Promise<number>;
  /** Distinct values of a field (array fields contribute each element), sorted ascending. */
  distinct(field: string, filter: Filter): Promise<unknown[]>;
  /** Inserts the document, or replaces the stored one with the same _id. */
  upsert(doc: T): Promise<void>;
  deleteOne(filter: Filter): Promise<void>;
  deleteMany(filter: Filter): Promise<number>;
}

export interface ReadStore {
  collection<T extends Doc>(name: string): Collection<T>;
  /** Creates the indexes (idempotent). The embedded adapter records them and uses none. */
  ensureIndexes(specs: readonly IndexSpec[]): Promise<void>;
  /** Drops every collection: used before a projection rebuild from position 0. */
  dropAll(): Promise<void>;
  /** True when the data outlives the process (a rebuild at start is then not needed). */
  readonly durable: boolean;
  ping(): Promise<void>;
  close(): Promise<void>;
}

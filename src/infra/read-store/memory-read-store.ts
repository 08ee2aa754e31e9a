import { types } from 'node:util';
import { Query } from 'mingo';
import type { Collection, Doc, Filter, FindOptions, IndexSpec, Page, ReadStore, Sort } from './read-store';

/**
 * Thrown when an upsert or a new unique index would give two documents the same key. It carries
 * MongoDB's code and message prefix so a caller can treat both adapters' errors alike.
 */
export class DuplicateKeyError extends Error {
  readonly code = 11000;
  constructor(collection: string, index: string, id: string) {
    super(`E11000 duplicate key error collection: ${collection} index: ${index} (document _id: ${id})`);
    this.name = 'DuplicateKeyError';
  }
}

/** Stands for an empty array in a sort or index key: MongoDB orders it below null and missing. */
const EMPTY_ARRAY: unique symbol = Symbol('empty array');

/** MongoDB's cross-type order (BSON canonical type ranks), so mixed-type fields sort as there. */
function typeRank(value: unknown): number {
  if (value === EMPTY_ARRAY) return 0;
  if (value === null || value === undefined) return 1;
  switch (typeof value) {
    case 'number':
    case 'bigint':
      return 2;
    case 'string':
      return 3;
    case 'boolean':
      return 8;
    case 'object':
      if (Array.isArray(value)) return 5;
      if (types.isUint8Array(value)) return 6;
      if (types.isDate(value)) return 9;
      if (types.isRegExp(value)) return 11;
      return 4;
    default:
      return 12;
  }
}

/**
 * MongoDB compares strings by their UTF-8 bytes, i.e. by code point. JavaScript's `<` compares
 * UTF-16 units, which disagrees when a surrogate meets a unit at or above U+E000; shifting the
 * surrogates above that range at the first difference restores code point order.
 */
function compareStrings(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      x += x >= 0xe000 ? -0x800 : 0x2000;
      y += y >= 0xe000 ? -0x800 : 0x2000;
    }
    return x < y ? -1 : 1;
  }
  return Math.sign(a.length - b.length);
}

function compareNumbers(a: number | bigint, b: number | bigint): number {
  // MongoDB orders NaN below every other number and equal to itself.
  const aNaN = typeof a === 'number' && Number.isNaN(a);
  const bNaN = typeof b === 'number' && Number.isNaN(b);
  if (aNaN || bNaN) return aNaN && bNaN ? 0 : aNaN ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareEntries(a: [string, unknown][], b: [string, unknown][]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const [ka, va] = a[i] as [string, unknown];
    const [kb, vb] = b[i] as [string, unknown];
    const c = Math.sign(typeRank(va) - typeRank(vb)) || compareStrings(ka, kb) || compareValues(va, vb);
    if (c !== 0) return c;
  }
  return Math.sign(a.length - b.length);
}

/** Orders two values as MongoDB's sort does (type rank first, then value). */
export function compareValues(a: unknown, b: unknown): number {
  const rank = typeRank(a);
  const other = typeRank(b);
  if (rank !== other) return rank < other ? -1 : 1;
  switch (rank) {
    case 2:
      return compareNumbers(a as number | bigint, b as number | bigint);
    case 3:
      return compareStrings(a as string, b as string);
    case 4:
      return compareEntries(Object.entries(a as object), Object.entries(b as object));
    case 5:
      return compareEntries(
        (a as unknown[]).map((v, i) => [String(i), v]),
        (b as unknown[]).map((v, i) => [String(i), v]),
      );
    case 6: {
      const x = a as Uint8Array;
      const y = b as Uint8Array;
      return Math.sign(x.length - y.length) || Buffer.compare(x, y);
    }
    case 8:
      return Number(a) - Number(b);
    case 9:
      return Math.sign((a as Date).getTime() - (b as Date).getTime());
    case 11: {
      const x = a as RegExp;
      const y = b as RegExp;
      return compareStrings(x.source, y.source) || compareStrings(x.flags, y.flags);
    }
    default:
      return 0;
  }
}

// Realm-independent on purpose: structuredClone and a test runner's sandbox each bring their own
// Object.prototype, so `instanceof` and prototype identity would misjudge copied documents.
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === null || Object.getPrototypeOf(proto) === null;
}

/**
 * The values a dotted path reaches, as MongoDB sees them for sorting, indexing and distinct:
 * arrays met on the way are traversed, an array at the end contributes its elements, a missing
 * field reads as null, and an empty array at the end as EMPTY_ARRAY.
 */
function valuesAt(root: unknown, path: string): unknown[] {
  const parts = path.split('.');
  const out: unknown[] = [];
  const walk = (value: unknown, i: number): void => {
    if (i === parts.length) {
      if (!Array.isArray(value)) out.push(value ?? null);
      else if (value.length === 0) out.push(EMPTY_ARRAY);
      else out.push(...value);
      return;
    }
    const part = parts[i] as string;
    if (Array.isArray(value)) {
      if (/^\d+$/.test(part)) {
        walk(value[Number(part)], i + 1);
        return;
      }
      // Nested arrays are not traversed implicitly, and scalars have no fields.
      const objects = value.filter(isPlainObject);
      if (objects.length === 0) out.push(null);
      for (const element of objects) walk(element, i);
      return;
    }
    walk(isPlainObject(value) ? value[part] : undefined, i + 1);
  };
  walk(root, 0);
  return out;
}

/** MongoDB sorts an array field by its smallest element ascending and its largest descending. */
function sortKey(doc: Doc, path: string, direction: 1 | -1): unknown {
  const values = valuesAt(doc, path);
  const present = values.filter((v) => v !== EMPTY_ARRAY);
  if (present.length === 0) return values.length > 0 ? EMPTY_ARRAY : null;
  return present.reduce((best, v) => (compareValues(v, best) * direction < 0 ? v : best));
}

function sortDocs<T extends Doc>(docs: T[], sort: Sort | undefined): T[] {
  const fields = Object.entries(sort ?? {});
  if (fields.length === 0) return docs;
  for (const [field, direction] of fields) {
    if (direction !== 1 && direction !== -1) throw new RangeError(`read store: sort on ${field} must be 1 or -1`);
  }
  const keyed = docs.map((doc) => ({ doc, keys: fields.map(([field, direction]) => sortKey(doc, field, direction)) }));
  keyed.sort((x, y) => {
    for (let i = 0; i < fields.length; i++) {
      const c = compareValues(x.keys[i], y.keys[i]) * (fields[i] as [string, 1 | -1])[1];
      if (c !== 0) return c;
    }
    return 0;
  });
  return keyed.map((k) => k.doc);
}

function assertCount(name: string, value: number | undefined, min: number): void {
  if (value !== undefined && (!Number.isInteger(value) || value < min)) {
    throw new RangeError(`read store: ${name} must be an integer >= ${min}, got ${value}`);
  }
}

/** Drops null and missing values, then sorts ascending and removes duplicates. */
export function orderDistinct(values: readonly unknown[]): unknown[] {
  const sorted = values.filter((v) => v !== null && v !== undefined).sort(compareValues);
  return sorted.filter((v, i) => i === 0 || compareValues(sorted[i - 1], v) !== 0);
}

/**
 * A copy the store can own. Fields holding `undefined` are dropped, as the MongoDB adapter's
 * `ignoreUndefined` does, so both adapters answer `$exists` alike.
 */
function copyIn<T extends Doc>(doc: T): T {
  const copy = structuredClone(doc);
  const strip = (value: unknown): void => {
    if (Array.isArray(value)) {
      value.forEach((v, i) => (v === undefined ? (value[i] = null) : strip(v)));
    } else if (isPlainObject(value)) {
      for (const [k, v] of Object.entries(value)) {
        if (v === undefined) delete value[k];
        else strip(v);
      }
    }
  };
  strip(copy);
  return copy;
}

/** A value's identity in a unique index: equal under compareValues means equal key text. */
function keyText(value: unknown): string {
  if (value === EMPTY_ARRAY) return 'e';
  if (value === null || value === undefined) return 'n';
  switch (typeof value) {
    case 'number':
      return `d${Object.is(value, -0) ? 0 : value}`;
    case 'bigint':
      return `d${value}`;
    case 'string':
      return `s${JSON.stringify(value)}`;
    case 'boolean':
      return `b${value}`;
    case 'object':
      if (Array.isArray(value)) return `[${value.map(keyText).join(',')}]`;
      if (types.isUint8Array(value)) return `x${Buffer.from(value).toString('hex')}`;
      if (types.isDate(value)) return `t${value.getTime()}`;
      if (types.isRegExp(value)) return `r${String(value)}`;
      return `{${Object.entries(value)
        .map(([k, v]) => `${JSON.stringify(k)}:${keyText(v)}`)
        .join(',')}}`;
    default:
      return `?${String(value)}`;
  }
}

/** Every key a document puts in a (possibly compound, possibly multikey) index. */
function indexKeys(doc: Doc, keys: Record<string, 1 | -1>): Set<string> {
  let tuples: string[] = [''];
  for (const field of Object.keys(keys)) {
    const texts = [...new Set(valuesAt(doc, field).map(keyText))];
    tuples = tuples.flatMap((prefix) => texts.map((t) => `${prefix}|${t}`));
  }
  return new Set(tuples);
}

type Index = {
  readonly spec: IndexSpec;
  /** For a unique index: each key in use and the _id holding it. */
  readonly owners?: Map<string, string>;
};

function sameSpec(a: IndexSpec, b: IndexSpec): boolean {
  const ka = Object.entries(a.keys);
  const kb = Object.entries(b.keys);
  return (
    ka.length === kb.length &&
    ka.every(([f, d], i) => kb[i]?.[0] === f && kb[i]?.[1] === d) &&
    (a.unique ?? false) === (b.unique ?? false)
  );
}

function assertValidSpec(spec: IndexSpec): void {
  const fields = Object.entries(spec.keys);
  if (!spec.name || !spec.collection || fields.length === 0 || fields.some(([, d]) => d !== 1 && d !== -1)) {
    throw new RangeError(`read store: invalid index spec ${JSON.stringify(spec)}`);
  }
}

/** Collections and their unique-index bookkeeping, shared by the store and its collection views. */
/** A query value an equality lookup can answer: a scalar, or `{$in: [scalars]}`. */
function lookupKeys(condition: unknown): string[] | undefined {
  const scalar = (v: unknown) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
  if (scalar(condition)) return [keyText(condition)];
  if (isPlainObject(condition) && Object.keys(condition).length === 1 && Array.isArray(condition.$in)) {
    return condition.$in.every(scalar) ? condition.$in.map(keyText) : undefined;
  }
  return undefined;
}

class MemoryState {
  private readonly collections = new Map<string, Map<string, Doc>>();
  private readonly indexesByCollection = new Map<string, Map<string, Index>>();
  /**
   * Per collection, per leading field of a declared index: key text -> _ids. It only narrows
   * the documents a filter is tested against (the full filter still decides), so that lookups
   * by an indexed field cost what they would in MongoDB rather than a collection scan.
   */
  private readonly lookups = new Map<string, Map<string, Map<string, Set<string>>>>();

  /** The stored documents a filter can match: by _id, by an indexed field, or all of them. */
  candidates(collection: string, filter: Filter): Iterable<Doc> {
    const docs = this.collections.get(collection);
    if (docs === undefined) return [];
    if (typeof filter._id === 'string') {
      const doc = docs.get(filter._id);
      return doc === undefined ? [] : [doc];
    }
    let best: Set<string> | undefined;
    for (const [field, buckets] of this.lookups.get(collection) ?? []) {
      const keys = lookupKeys(filter[field]);
      if (keys === undefined) continue;
      const ids = new Set<string>();
      for (const key of keys) for (const id of buckets.get(key) ?? []) ids.add(id);
      if (best === undefined || ids.size < best.size) best = ids;
    }
    if (best === undefined) return docs.values();
    // Insertion order, as a scan would give, so unsorted reads do not depend on the index.
    return [...docs.values()].length <= best.size * 4
      ? [...docs.values()].filter((d) => best.has(d._id))
      : [...best].map((id) => docs.get(id)).filter((d): d is Doc => d !== undefined);
  }

  private addLookupField(collection: string, field: string): void {
    const byField = this.lookups.get(collection) ?? new Map<string, Map<string, Set<string>>>();
    this.lookups.set(collection, byField);
    if (byField.has(field)) return;
    const buckets = new Map<string, Set<string>>();
    byField.set(field, buckets);
    for (const doc of this.docs(collection)) this.lookupAdd(buckets, field, doc);
  }

  private lookupAdd(buckets: Map<string, Set<string>>, field: string, doc: Doc): void {
    for (const key of new Set(valuesAt(doc, field).map(keyText))) {
      const ids = buckets.get(key) ?? new Set<string>();
      ids.add(doc._id);
      buckets.set(key, ids);
    }
  }

  private lookupRemove(collection: string, doc: Doc): void {
    for (const [field, buckets] of this.lookups.get(collection) ?? []) {
      for (const key of new Set(valuesAt(doc, field).map(keyText))) {
        const ids = buckets.get(key);
        ids?.delete(doc._id);
        if (ids?.size === 0) buckets.delete(key);
      }
    }
  }

  /** The stored documents themselves: whoever hands one out copies it first. */
  docs(collection: string): Iterable<Doc> {
    return this.collections.get(collection)?.values() ?? [];
  }

  specs(): IndexSpec[] {
    return [...this.indexesByCollection.values()].flatMap((byName) =>
      [...byName.values()].map((index) => structuredClone(index.spec)),
    );
  }

  ensureIndex(spec: IndexSpec): void {
    const byName = this.indexesByCollection.get(spec.collection) ?? new Map<string, Index>();
    const existing = byName.get(spec.name);
    if (existing !== undefined) {
      if (sameSpec(existing.spec, spec)) return;
      throw new Error(`read store: index ${spec.name} on ${spec.collection} exists with different keys or options`);
    }
    // MongoDB refuses a second index on the same keys under another name; so does this adapter.
    for (const other of byName.values()) {
      if (JSON.stringify(Object.entries(other.spec.keys)) === JSON.stringify(Object.entries(spec.keys))) {
        throw new Error(`read store: index ${other.spec.name} on ${spec.collection} already has these keys`);
      }
    }
    const index: Index = spec.unique ? { spec, owners: new Map() } : { spec };
    if (index.owners !== undefined) {
      for (const doc of this.docs(spec.collection)) {
        for (const key of indexKeys(doc, spec.keys)) {
          if (index.owners.has(key)) throw new DuplicateKeyError(spec.collection, spec.name, doc._id);
          index.owners.set(key, doc._id);
        }
      }
    }
    byName.set(spec.name, index);
    this.indexesByCollection.set(spec.collection, byName);
    const leading = Object.keys(spec.keys)[0];
    if (leading !== undefined && leading !== '_id') this.addLookupField(spec.collection, leading);
  }

  clear(): void {
    this.collections.clear();
    this.indexesByCollection.clear();
    this.lookups.clear();
  }

  /** Checks every unique index before changing anything, so a rejected write leaves no trace. */
  put(collection: string, doc: Doc): void {
    const planned = this.uniqueIndexes(collection).map((index) => {
      const keys = indexKeys(doc, index.spec.keys);
      for (const key of keys) {
        const owner = index.owners.get(key);
        if (owner !== undefined && owner !== doc._id) throw new DuplicateKeyError(collection, index.spec.name, doc._id);
      }
      return { owners: index.owners, keys };
    });
    let docs = this.collections.get(collection);
    if (docs === undefined) {
      docs = new Map();
      this.collections.set(collection, docs);
    }
    const previous = docs.get(doc._id);
    if (previous !== undefined) {
      this.unindex(collection, previous);
      this.lookupRemove(collection, previous);
    }
    for (const { owners, keys } of planned) for (const key of keys) owners.set(key, doc._id);
    docs.set(doc._id, doc);
    for (const [field, buckets] of this.lookups.get(collection) ?? []) this.lookupAdd(buckets, field, doc);
  }

  remove(collection: string, doc: Doc): void {
    this.unindex(collection, doc);
    this.lookupRemove(collection, doc);
    this.collections.get(collection)?.delete(doc._id);
  }

  private uniqueIndexes(collection: string): { spec: IndexSpec; owners: Map<string, string> }[] {
    const out: { spec: IndexSpec; owners: Map<string, string> }[] = [];
    for (const { spec, owners } of this.indexesByCollection.get(collection)?.values() ?? []) {
      if (owners !== undefined) out.push({ spec, owners });
    }
    return out;
  }

  private unindex(collection: string, doc: Doc): void {
    for (const { spec, owners } of this.uniqueIndexes(collection)) {
      for (const key of indexKeys(doc, spec.keys)) {
        if (owners.get(key) === doc._id) owners.delete(key);
      }
    }
  }
}

/**
 * The embedded adapter: collections held in process memory and queried with mingo, so the same
 * filter documents serve here and against MongoDB. Lost on exit (durable = false): the read
 * models are rebuilt from the event store at start.
 */
export class MemoryReadStore implements ReadStore {
  readonly durable = false;
  private readonly state = new MemoryState();

  collection<T extends Doc>(name: string): Collection<T> {
    return new MemoryCollection<T>(this.state, name);
  }

  /** The index specs recorded so far. */
  indexes(): readonly IndexSpec[] {
    return this.state.specs();
  }

  async ensureIndexes(specs: readonly IndexSpec[]): Promise<void> {
    for (const spec of specs) {
      assertValidSpec(spec);
      this.state.ensureIndex(structuredClone(spec));
    }
  }

  /** Like dropping MongoDB collections, this drops their indexes too. */
  async dropAll(): Promise<void> {
    this.state.clear();
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {}
}

class MemoryCollection<T extends Doc> implements Collection<T> {
  constructor(
    private readonly state: MemoryState,
    private readonly name: string,
  ) {}

  async findOne(filter: Filter): Promise<T | null> {
    const query = compile(filter);
    for (const doc of this.state.candidates(this.name, filter)) {
      if (query.test(doc)) return structuredClone(doc) as T;
    }
    return null;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    assertCount('skip', options.skip, 0);
    assertCount('limit', options.limit, 0);
    const skip = options.skip ?? 0;
    // As with MongoDB, a limit of 0 means no limit.
    const end = options.limit ? skip + options.limit : undefined;
    return this.sorted(filter, options.sort).slice(skip, end).map((d) => structuredClone(d));
  }

  async findPage(filter: Filter, options: FindOptions & { skip: number; limit: number }): Promise<Page<T>> {
    assertCount('skip', options.skip, 0);
    // MongoDB's $limit stage refuses 0: a page always has room for something.
    assertCount('limit', options.limit, 1);
    const all = this.sorted(filter, options.sort);
    const list = all.slice(options.skip, options.skip + options.limit).map((d) => structuredClone(d));
    return { count: all.length, list };
  }

  async count(filter: Filter): Promise<number> {
    return this.matching(filter).length;
  }

  async distinct(field: string, filter: Filter): Promise<unknown[]> {
    const values = this.matching(filter).flatMap((doc) => valuesAt(doc, field));
    return orderDistinct(values.filter((v) => v !== EMPTY_ARRAY)).map((v) => structuredClone(v));
  }

  async upsert(doc: T): Promise<void> {
    if (typeof doc._id !== 'string') throw new TypeError('read store: a document needs a string _id');
    this.state.put(this.name, copyIn(doc));
  }

  async deleteOne(filter: Filter): Promise<void> {
    const [doc] = this.matching(filter, 1);
    if (doc !== undefined) this.state.remove(this.name, doc);
  }

  async deleteMany(filter: Filter): Promise<number> {
    const docs = this.matching(filter);
    for (const doc of docs) this.state.remove(this.name, doc);
    return docs.length;
  }

  /** Stored documents themselves, not copies: callers copy whatever leaves the store. */
  private matching(filter: Filter, atMost = Infinity): T[] {
    const query = compile(filter);
    const out: T[] = [];
    for (const doc of this.state.candidates(this.name, filter)) {
      if (out.length >= atMost) break;
      if (query.test(doc)) out.push(doc as T);
    }
    return out;
  }

  private sorted(filter: Filter, sort: Sort | undefined): T[] {
    return sortDocs(this.matching(filter), sort);
  }
}

// Scripts ($where, $function) are off: filters are data, and must never run code in-process.
function compile(filter: Filter): Query {
  return new Query(filter, { scriptEnabled: false });
}

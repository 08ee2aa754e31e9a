import type { Document, IndexDescription } from 'mongodb';
import type { DirectoryChange, DirectoryRecord, DirectoryTable } from '../../directory/directory-records';
import { DIRECTORY_TABLES } from '../../directory/directory-records';
import { guardedUpsert, type GuardedUpsert, type SortOrder } from './mongo-guarded-write';

/**
 * The documents and queries of the MongoDB directory read model, as pure functions so that tests
 * evaluate them without a server. One collection per record kind; each document is the record's
 * fields, flat, plus `position` and `removed`.
 */

const snake = (field: string) => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

export const directoryCollection = (table: DirectoryTable): string => `dir_${snake(table)}`;

export const DIRECTORY_COLLECTIONS: readonly string[] = (Object.keys(DIRECTORY_TABLES) as DirectoryTable[]).map(
  directoryCollection,
);

/** A single key is the _id itself; a composite key joins its ids, in the table's key order. */
export function directoryId(table: DirectoryTable, key: DirectoryRecord): number | string {
  const fields = DIRECTORY_TABLES[table].key;
  const ids = fields.map((field) => {
    const value = key[field];
    if (typeof value !== 'number') throw new TypeError(`${table}: key field ${field} is not a number`);
    return value;
  });
  const [only] = ids;
  return ids.length === 1 && only !== undefined ? only : ids.join(':');
}

function keyFields(table: DirectoryTable, record: DirectoryRecord): Document {
  return Object.fromEntries(DIRECTORY_TABLES[table].key.map((field) => [field, record[field]]));
}

/**
 * A put sets every field of the record: the feed's schemas are strict and every field is present
 * (absent optionals are normalised), so setting them all replaces the record, as an upsert must.
 * A removal only marks the document: like the SQLite tombstone it keeps the position, so an
 * older put replayed later cannot resurrect the record.
 */
export function directoryWrite(change: DirectoryChange, position: bigint): GuardedUpsert {
  const id = directoryId(change.table, change.record);
  return change.op === 'put'
    ? guardedUpsert(id, position, { ...change.record, removed: false })
    : guardedUpsert(id, position, { removed: true }, keyFields(change.table, change.record));
}

/** What a reader gets back: the record as the feed gave it. */
export const RECORD_PROJECTION: Document = { _id: 0, position: 0, removed: 0 };

export const liveById = (id: number | string): Document => ({ _id: id, removed: false });

export const liveByIds = (ids: readonly number[]): Document => ({ _id: { $in: [...new Set(ids)] }, removed: false });

type LookupTable = {
  [T in DirectoryTable]: (typeof DIRECTORY_TABLES)[T] extends { lookup: string } ? T : never;
}[DirectoryTable];

/** The live records whose lookup field (a user's memberships, a project's links) has this value. */
export function lookupFilter(table: LookupTable, value: number): Document {
  return { [DIRECTORY_TABLES[table].lookup]: value, removed: false };
}

/** Key order within one lookup value, so that answers do not depend on insertion order. */
export function lookupSort(table: DirectoryTable): SortOrder {
  return Object.fromEntries(DIRECTORY_TABLES[table].key.map((field) => [field, 1]));
}

export const communityProjectOfFilter = (projectId: number, communityId: number): Document => ({
  projectId,
  communityId,
  removed: false,
});

export const COMMUNITY_PROJECT_OF_SORT: SortOrder = { communityProjectId: 1 };

/**
 * Lookups by user or by project, partial on live records so that tombstones cost nothing. The
 * communityProjects index also carries communityId for `communityProjectOf`.
 */
export function directoryIndexes(table: DirectoryTable): IndexDescription[] {
  const spec = DIRECTORY_TABLES[table];
  if (!('lookup' in spec)) return [];
  const rest = spec.key.filter((field) => field !== spec.lookup);
  const fields = table === 'communityProjects' ? [spec.lookup, 'communityId', ...rest] : [spec.lookup, ...rest];
  return [
    {
      name: `${directoryCollection(table)}_by_${snake(spec.lookup)}`,
      key: Object.fromEntries(fields.map((field) => [field, 1])),
      partialFilterExpression: { removed: false },
    },
  ];
}

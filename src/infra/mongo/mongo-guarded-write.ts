import type { ClientSession, Collection, Document } from 'mongodb';

/** A sort document with plain directions, which the driver and mingo both take. */
export type SortOrder = Record<string, 1 | -1>;

/** A filter and an update document for one `updateOne(..., {upsert: true})`. */
export type GuardedUpsert = { readonly filter: Document; readonly update: Document };

/**
 * Positions are stored as numbers so that the guard compares them numerically. A global position
 * stays far below 2^53 in practice; past it the guard would compare rounded values, so refuse.
 */
export function storedPosition(position: bigint): number {
  const value = Number(position);
  if (!Number.isSafeInteger(value)) throw new RangeError(`event position ${position} does not fit a double exactly`);
  return value;
}

/** Reads back a stored position, whatever numeric type the driver returned (number, Long, Int32). */
export function positionOf(stored: unknown): bigint {
  if (typeof stored === 'bigint') return stored;
  if (typeof stored === 'number') return BigInt(stored);
  return BigInt(String(stored));
}

export const byId = (id: number | string): Document => ({ _id: id });

/** Matches the document with this id only when it holds no position yet or an older one. */
export function olderThan(id: unknown, position: bigint): Document {
  return { _id: id, $or: [{ position: { $lt: storedPosition(position) } }, { position: { $exists: false } }] };
}

/**
 * The write of one event to one document: applied when the document is older than the event or
 * absent. `set` holds the fields the event decides; `setOnInsert` the fields a fresh document
 * needs but an existing one keeps (a tombstone keeps what it tombstones).
 */
export function guardedUpsert(id: unknown, position: bigint, set: Document, setOnInsert?: Document): GuardedUpsert {
  const update: Document = { $set: { ...set, position: storedPosition(position) } };
  if (setOnInsert && Object.keys(setOnInsert).length > 0) update.$setOnInsert = setOnInsert;
  return { filter: olderThan(id, position), update };
}

const DUPLICATE_KEY = 11000;

export function isDuplicateKey(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === DUPLICATE_KEY;
}

/**
 * The insert half of a guarded upsert, for when its guard missed: inserts the document the upsert
 * would have inserted (the filter's top-level equalities, `$setOnInsert`, then `$set`) and leaves
 * an existing one, which then holds this event or a later one, as it is. It never fails on a
 * duplicate key, since its filter is the _id alone.
 */
export function insertIfAbsent(write: GuardedUpsert): GuardedUpsert {
  const { _id, ...equalities } = Object.fromEntries(
    Object.entries(write.filter).filter(
      ([key, value]) => !key.startsWith('$') && (typeof value !== 'object' || value === null || Array.isArray(value)),
    ),
  );
  const { $set, $setOnInsert, ...others } = write.update as { $set?: Document; $setOnInsert?: Document };
  if (Object.keys(others).length > 0)
    throw new Error(`a guarded upsert holds only $set and $setOnInsert, not ${Object.keys(others).join(', ')}`);
  return { filter: { _id }, update: { $setOnInsert: { ...equalities, ...$setOnInsert, ...$set } } };
}

/**
 * When the guard does not match because the stored document is already at this position or a
 * later one, the upsert tries to insert a second document with the same _id and the server
 * refuses it with a duplicate-key error: that refusal is the "already newer" answer, nothing else is.
 *
 * Inside a transaction that refusal would abort the whole batch, so there the guarded update
 * runs without upsert and, when it matched nothing, `insertIfAbsent` follows: one more round trip
 * for a new document, none for the usual update.
 */
export async function applyGuardedUpsert(
  collection: Collection<Document>,
  write: GuardedUpsert,
  session?: ClientSession,
): Promise<void> {
  if (session) {
    const { matchedCount } = await collection.updateOne(write.filter, write.update, { session });
    if (matchedCount === 0) {
      const insert = insertIfAbsent(write);
      await collection.updateOne(insert.filter, insert.update, { upsert: true, session });
    }
    return;
  }
  try {
    await collection.updateOne(write.filter, write.update, { upsert: true });
  } catch (error) {
    if (!isDuplicateKey(error)) throw error;
  }
}

import type { RecordedEvent } from '../ports/event-store';
import { readScope } from './read-scopes';
import type { PageRequest, PageResponse } from './paging';
import {
  selecting,
  type EventSelection,
  type ProjectionStore,
  type ReadModelProjection,
} from './read-model-projection';

/** A read model's document: plain JSON (no bigint, no Date), stored whole. */
export type Document = { readonly [field: string]: unknown };
export type DocumentId = number | string;
/** A field value an index is asked for by equality. */
export type Scalar = string | number | boolean;

/**
 * A named index over document fields: `equal` are asked by equality, `order` gives the order
 * of the answer (1 ascending, -1 descending; strings in code-point order on every database).
 */
export type IndexDeclaration = {
  readonly equal: readonly string[];
  readonly order: readonly (readonly [field: string, direction: 1 | -1])[];
};

/** One kind of document of a read model (a table on SQLite, a collection on MongoDB) and its indexes. */
export type CollectionDeclaration = {
  readonly name: string;
  readonly indexes: Readonly<Record<string, IndexDeclaration>>;
};

/**
 * A read model as a pure fold: the events it handles, the documents each event touches, and
 * `evolve`, which turns the document as it stands (null: none yet) into the next one (null:
 * none any more). The runner loads, guards by position, saves: no read model writes that again.
 */
export type DocumentReadModel<E extends { readonly type: string; readonly data: unknown }> = {
  readonly name: string;
  readonly canHandle: EventSelection;
  readonly collections: readonly CollectionDeclaration[];
  readonly documentsOf: (event: E) => readonly { readonly collection: string; readonly id: DocumentId }[];
  readonly evolve: (collection: string, document: Document | null, event: E) => Document | null;
  /**
   * The read scope (src/projections/read-scopes.ts) every write of the model changes, where other
   * answers remembered from it must be dropped when it does; by default the model's own
   * (`readScope.documents(name)`). The store's `version` follows it.
   */
  readonly scope?: string;
};

/** A page of one collection along one declared index, the leading `equal` fields given. */
export type IndexQuery = {
  readonly index: string;
  readonly equal: readonly Scalar[];
  readonly page: PageRequest;
  /**
   * Keyset paging: only the documents after one whose `order` fields hold these values (whether
   * or not it is still stored), then `page` as usual. The count stays the whole list's. An index
   * paged so ends its order with a field no two documents share.
   */
  readonly after?: readonly Scalar[] | null;
};

/** The one port every read model of this kind is stored through, whatever the database. */
export interface DocumentStore {
  readonly projectionStore: ProjectionStore;
  /** The document and the position of the event that last wrote it. */
  load(collection: string, id: DocumentId): Promise<{ document: Document | null; position: bigint } | null>;
  /** Writes the document (null: a tombstone) unless the stored one is at `position` or later. */
  save(collection: string, id: DocumentId, document: Document | null, position: bigint): Promise<void>;
  get(collection: string, id: DocumentId): Promise<Document | null>;
  /** `load` of many ids in one query: those stored (tombstones too), in no particular order. */
  loadMany(
    collection: string,
    ids: readonly DocumentId[],
  ): Promise<{ id: DocumentId; document: Document | null; position: bigint }[]>;
  /** The documents matching the index's equal fields: how many, and one page in the index's order. */
  page(collection: string, query: IndexQuery): Promise<PageResponse<Document>>;
  /**
   * Every document matching the index's equal fields, in its order, uncounted: one read, for a
   * lookup by a field no two documents share or a list known to be short.
   */
  find(collection: string, index: string, equal: readonly Scalar[]): Promise<Document[]>;
  /** The distinct string values of `field` (array elements unwound) among the matching documents, code-point order. */
  distinct(collection: string, field: string, equal: Readonly<Record<string, Scalar>>): Promise<string[]>;
  /**
   * A token that moves with every write to the read model's documents (its scope), this process's
   * or another's, so an answer read from them may be remembered while the token stands; null while
   * nothing may be (inside a write transaction). Only where every process hears of every commit
   * (the embedded database's and PostgreSQL's change feeds); absent elsewhere (MongoDB), where
   * every read goes to the database.
   */
  readonly version?: () => string | null;
}

/** The read scope a document read model's writes change: the one it declares, or its own. */
export const scopeOf = (model: { readonly name: string; readonly scope?: string }): string =>
  model.scope ?? readScope.documents(model.name);

/** The stored documents of `ids`, in one query (`loadMany`): absent ones and tombstones left out, in no order. */
export async function getMany(
  store: DocumentStore,
  collection: string,
  ids: readonly DocumentId[],
): Promise<Document[]> {
  return (await store.loadMany(collection, ids)).flatMap(({ document }) => (document === null ? [] : [document]));
}

/**
 * Code-point order, as the databases order strings: SQLite's default collation and MongoDB compare
 * UTF-8 bytes, PostgreSQL's "C" collation too. JavaScript's `<` compares UTF-16 code units, which
 * puts a character past U+FFFF (a surrogate pair) before U+E000 to U+FFFF: one surrogate against
 * a character that is none is decided by the surrogate's side.
 */
export function compareCodePoints(a: string, b: string): number {
  const shorter = Math.min(a.length, b.length);
  for (let i = 0; i < shorter; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const xSurrogate = x >= 0xd800 && x <= 0xdfff;
    const ySurrogate = y >= 0xd800 && y <= 0xdfff;
    if (xSurrogate !== ySurrogate) return xSurrogate ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

/** A document's values of an index's `order` fields: where a keyset page after it starts. */
export function orderKeyOf(index: IndexDeclaration, document: Document): Scalar[] {
  return index.order.map(([field]) => document[field] as Scalar);
}

/**
 * "After `key` in the index's order" as alternatives, one per order field: the fields before it
 * equal, that one beyond the key in its direction. Every adapter writes these in its own terms.
 */
export function keysetAlternatives(
  index: IndexDeclaration,
  key: readonly Scalar[],
): { readonly equal: readonly (readonly [string, Scalar])[]; readonly beyond: readonly [string, 1 | -1, Scalar] }[] {
  if (key.length !== index.order.length) throw new Error('a keyset page needs one value per order field');
  return index.order.map(([field, direction], i) => ({
    equal: index.order.slice(0, i).map(([f], j) => [f, key[j] as Scalar] as const),
    beyond: [field, direction, key[i] as Scalar] as const,
  }));
}

/** The index `name` of a collection, or a programming error naming what is missing. */
export function indexOf(collections: readonly CollectionDeclaration[], collection: string, name: string) {
  const index = collections.find((c) => c.name === collection)?.indexes[name];
  if (!index) throw new Error(`no index ${name} declared on ${collection}`);
  return index;
}

type Stored = { readonly document: Document | null; readonly position: bigint };

/** A document's key among a batch's: 1 and "1" are different documents. */
const keyOf = (collection: string, id: DocumentId): string => `${collection}\u0000${JSON.stringify(id)}`;

/**
 * The runner's side of a document read model: each event it handles loads the documents it
 * touches, skips those already at its position or later (so replaying any range changes nothing),
 * evolves the others and saves them with the event's position, inside the store's commit. A
 * batch's documents are read ahead, one query per collection, and kept as the batch evolves
 * them, so folding an event costs its writes only.
 */
export function documentProjection<E extends { readonly type: string; readonly data: unknown }>(
  model: DocumentReadModel<E>,
  store: DocumentStore,
): ReadModelProjection {
  const { handles, eventTypes } = selecting(model.canHandle);
  const eventOf = (recorded: RecordedEvent) => ({ type: recorded.type, data: recorded.data }) as E;
  /** `batch`: the batch's documents as they stand, where the batch read them ahead. */
  const fold = async (recorded: RecordedEvent, batch?: Map<string, Stored | null>): Promise<void> => {
    if (!handles(recorded)) return;
    const event = eventOf(recorded);
    for (const { collection, id } of model.documentsOf(event)) {
      const key = keyOf(collection, id);
      const stored = batch?.has(key) ? batch.get(key) : await store.load(collection, id);
      if (stored && stored.position >= recorded.position) continue;
      const next = model.evolve(collection, stored?.document ?? null, event);
      if (next === null && !stored) continue;
      await store.save(collection, id, next, recorded.position);
      batch?.set(key, { document: next, position: recorded.position });
    }
  };
  /** The last batch read ahead: its very events, and its documents as they stand. */
  let ahead: { events: ReadonlySet<RecordedEvent>; documents: Map<string, Stored | null> } | undefined;
  return {
    name: model.name,
    store: store.projectionStore,
    handles,
    eventTypes,
    apply: (recorded) => fold(recorded, ahead?.events.has(recorded) ? ahead.documents : undefined),
    async readAhead(events) {
      ahead = undefined;
      const wanted = new Map<string, Set<DocumentId>>();
      for (const recorded of events) {
        if (!handles(recorded)) continue;
        for (const { collection, id } of model.documentsOf(eventOf(recorded))) {
          const ids = wanted.get(collection) ?? new Set<DocumentId>();
          wanted.set(collection, ids.add(id));
        }
      }
      const documents = new Map<string, Stored | null>();
      for (const [collection, ids] of wanted) {
        for (const id of ids) documents.set(keyOf(collection, id), null);
        for (const { id, document, position } of await store.loadMany(collection, [...ids]))
          documents.set(keyOf(collection, id), { document, position });
      }
      ahead = { events: new Set(events), documents };
    },
  };
}

/**
 * The document-store port's contract, run against every adapter: SQLite always, the MongoDB
 * adapter on the in-process mingo stand-in always, and on a real MongoDB when one answers. Every
 * read model declared as a pure fold is stored through it, so what holds here holds for each.
 */
import { MongoDocumentStore } from '../../src/infra/mongo/mongo-document-store';
import { PostgresDocumentStore } from '../../src/infra/postgres/postgres-document-store';
import { SqliteDocumentStore } from '../../src/infra/sqlite/sqlite-document-store';
import { SqliteReadDb } from '../../src/infra/sqlite/sqlite-read-db';
import {
  documentProjection,
  getMany,
  type CollectionDeclaration,
  type Document,
  type DocumentReadModel,
  type DocumentStore,
  indexOf,
  orderKeyOf,
  type Scalar,
} from '../../src/projections/document-store';
import type { RecordedEvent } from '../../src/ports/event-store';
import { readScope } from '../../src/projections/read-scopes';
import { mingoReadDb } from '../support/mingo-mongo';
import {
  describeOnEveryReadDb,
  describeOnPostgres,
  type OpenedStore,
  withFreshStore,
} from '../support/read-db-adapters';
import { seeded, walkFaults, walkWhileChanging } from '../support/keyset-walk';

const NOTES = 'notes';
const SCOPE = readScope.documents('notes');
const COLLECTIONS: readonly CollectionDeclaration[] = [
  {
    name: NOTES,
    indexes: {
      by_id: { equal: ['board'], order: [['id', 1]] },
      by_pinned: { equal: ['board', 'pinned'], order: [] },
      by_recent: {
        equal: ['board'],
        order: [
          ['at', -1],
          ['id', -1],
        ],
      },
      pinned_by_id: { equal: ['pinned'], order: [['id', 1]] },
    },
  },
];

const note = (id: number, over: Partial<Document> = {}): Document => ({
  id,
  board: 1,
  at: '2025-01-01T00:00:00.000Z',
  tags: [],
  colour: null,
  pinned: false,
  ...over,
});

type NoteEvent =
  | { type: 'NoteWritten'; data: { id: number; board: number; text: string } }
  | { type: 'NoteErased'; data: { id: number } };

/** A small read model of the port's kind: a note per id, each written event counting its edits. */
const notesModel = (evolved: string[] = []): DocumentReadModel<NoteEvent> => ({
  name: 'notes',
  canHandle: { types: new Set(['NoteWritten', 'NoteErased']) },
  collections: COLLECTIONS,
  documentsOf: (event) => [{ collection: NOTES, id: event.data.id }],
  evolve: (_collection, document, event) => {
    evolved.push(`${event.type} ${event.data.id}`);
    if (event.type === 'NoteErased') return null;
    return { ...event.data, edits: ((document?.edits as number | undefined) ?? 0) + 1 };
  },
});

const recorded = (position: number, type: NoteEvent['type'], data: NoteEvent['data']): RecordedEvent => ({
  streamId: `note-${data.id}`,
  type,
  data,
  metadata: { actor: { userId: 1, credential: 'session' }, correlationId: 'contract', at: '2025-01-01T00:00:00.000Z' },
  revision: 0n,
  position: BigInt(position),
});

export function describeDocumentStoreContract(name: string, open: () => Promise<OpenedStore<DocumentStore>>): void {
  describe(`${name} honours the DocumentStore contract`, () => {
    let store: DocumentStore;
    withFreshStore(open, (opened) => (store = opened));

    it('given a saved document, when an older or equal save arrives, then nothing changes; a newer one replaces it whole', async () => {
      await store.save(NOTES, 1, note(1, { colour: 'red', tags: ['a'] }), 5n);
      await store.save(NOTES, 1, note(1, { colour: 'blue' }), 4n);
      await store.save(NOTES, 1, note(1, { colour: 'blue' }), 5n);
      expect(await store.load(NOTES, 1)).toEqual({ document: note(1, { colour: 'red', tags: ['a'] }), position: 5n });

      await store.save(NOTES, 1, note(1), 6n);
      expect(await store.get(NOTES, 1)).toEqual(note(1));
      expect(await store.load(NOTES, 2)).toBeNull();
      expect(await store.get(NOTES, 2)).toBeNull();
    });

    it('given a tombstone, when read, paged or asked for values, then the document is gone, and an older save does not bring it back', async () => {
      await store.save(NOTES, 1, note(1, { colour: 'red' }), 1n);
      await store.save(NOTES, 1, null, 3n);
      await store.save(NOTES, 1, note(1, { colour: 'red' }), 2n);

      expect(await store.load(NOTES, 1)).toEqual({ document: null, position: 3n });
      expect(await store.page(NOTES, { index: 'by_id', equal: [1], page: { skip: 0, take: 10 } })).toEqual({
        count: 0,
        list: [],
      });
      expect(await store.distinct(NOTES, 'colour', { board: 1 })).toEqual([]);
    });

    it('given documents and a tombstone, when several ids are asked at once, then the stored ones, each once, numbers and strings apart; loaded, the tombstone too', async () => {
      await store.save(NOTES, 1, note(1), 1n);
      await store.save(NOTES, 2, note(2), 2n);
      await store.save(NOTES, 3, note(3), 3n);
      await store.save(NOTES, 3, null, 4n);
      await store.save(NOTES, 'x', note(9, { colour: 'x' }), 5n);

      const ids = async (asked: (number | string)[]) =>
        (await getMany(store, NOTES, asked)).map((n) => n.id as number).sort((a, b) => a - b);
      expect(await ids([2, 404, 1, 2, 3])).toEqual([1, 2]);
      expect(await ids(['x', '1'])).toEqual([9]);
      expect(await getMany(store, NOTES, [])).toEqual([]);
      const loaded = await store.loadMany(NOTES, [3, 1, 404]);
      expect(loaded.sort((a, b) => Number(a.id) - Number(b.id))).toEqual([
        { id: 1, document: note(1), position: 1n },
        { id: 3, document: null, position: 4n },
      ]);
    });

    it('given documents and a tombstone, when many callers ask for them at the same moment, then each gets what it would alone', async () => {
      for (let id = 1; id <= 6; id++) await store.save(NOTES, id, note(id, { colour: `c${id}` }), BigInt(id));
      await store.save(NOTES, 4, null, 10n);
      await store.save(NOTES, '2', note(20), 11n);

      const asked = await Promise.all([
        store.get(NOTES, 1),
        store.load(NOTES, 4),
        store.get(NOTES, 404),
        store.get(NOTES, '2'),
        store.get(NOTES, 2),
        getMany(store, NOTES, [5, 6, 404, 4]),
        store.loadMany(NOTES, [3, '2']),
        store.get(NOTES, 1),
      ]);

      expect(asked[0]).toEqual(note(1, { colour: 'c1' }));
      expect(asked[1]).toEqual({ document: null, position: 10n });
      expect(asked[2]).toBeNull();
      expect(asked[3]).toEqual(note(20));
      expect(asked[4]).toEqual(note(2, { colour: 'c2' }));
      expect((asked[5] as Document[]).map((n) => n.id).sort()).toEqual([5, 6]);
      expect((asked[6] as { id: unknown }[]).map((n) => String(n.id)).sort()).toEqual(['2', '3']);
      expect(asked[7]).toEqual(note(1, { colour: 'c1' }));
    });

    it('given documents, when paged along a declared index, then only the equal ones, in its order, with their count', async () => {
      const notes = [
        note(3, { at: '2025-01-02T00:00:00.000Z' }),
        note(1, { at: '2025-01-03T00:00:00.000Z' }),
        note(2, { at: '2025-01-02T00:00:00.000Z' }),
        note(4, { board: 2 }),
      ];
      for (const [i, n] of notes.entries()) await store.save(NOTES, n.id as number, n, BigInt(i + 1));
      const ids = async (index: string, skip: number, take: number) =>
        (await store.page(NOTES, { index, equal: [1], page: { skip, take } })).list.map((n) => n.id);

      expect(await ids('by_id', 0, 10)).toEqual([1, 2, 3]);
      expect(await ids('by_recent', 0, 10)).toEqual([1, 3, 2]);
      expect(await ids('by_recent', 1, 1)).toEqual([3]);
      expect(await store.page(NOTES, { index: 'by_id', equal: [1], page: { skip: 0, take: 0 } })).toEqual({
        count: 3,
        list: [],
      });
      expect(await store.page(NOTES, { index: 'by_id', equal: [9], page: { skip: 0, take: 10 } })).toEqual({
        count: 0,
        list: [],
      });
    });

    it('given documents, when found along a declared index, then only the equal ones (a boolean too), in its order, uncounted', async () => {
      const notes = [
        note(3, { at: '2025-01-02T00:00:00.000Z', pinned: true }),
        note(1, { at: '2025-01-03T00:00:00.000Z' }),
        note(2, { at: '2025-01-02T00:00:00.000Z' }),
        note(4, { board: 2, pinned: true }),
      ];
      for (const [i, n] of notes.entries()) await store.save(NOTES, n.id as number, n, BigInt(i + 1));
      await store.save(NOTES, 5, null, 9n);

      expect((await store.find(NOTES, 'by_recent', [1])).map((n) => n.id)).toEqual([1, 3, 2]);
      expect(await store.find(NOTES, 'by_pinned', [1, true])).toEqual([notes[0]]);
      expect((await store.find(NOTES, 'by_pinned', [1, false])).map((n) => n.id).sort()).toEqual([1, 2]);
      expect(await store.find(NOTES, 'by_id', [9])).toEqual([]);
    });

    it('given documents, when paged after a key, then the documents past it in the index order, the count still the whole list', async () => {
      const notes = [
        note(1, { at: '2025-01-03T00:00:00.000Z' }),
        note(2, { at: '2025-01-02T00:00:00.000Z' }),
        note(3, { at: '2025-01-02T00:00:00.000Z' }),
        note(5, { at: '2025-01-01T00:00:00.000Z' }),
        note(6, { board: 2 }),
      ];
      for (const [i, n] of notes.entries()) await store.save(NOTES, n.id as number, n, BigInt(i + 1));
      const after = async (index: string, key: readonly Scalar[], take = 10) => {
        const page = await store.page(NOTES, { index, equal: [1], page: { skip: 0, take }, after: key });
        return { count: page.count, ids: page.list.map((n) => n.id) };
      };

      expect(await after('by_id', [2])).toEqual({ count: 4, ids: [3, 5] });
      // A key whose document is gone still places the page: 4 was never stored.
      expect(await after('by_id', [4])).toEqual({ count: 4, ids: [5] });
      expect(await after('by_recent', ['2025-01-02T00:00:00.000Z', 3])).toEqual({ count: 4, ids: [2, 5] });
      expect(await after('by_recent', ['2025-01-03T00:00:00.000Z', 1], 1)).toEqual({ count: 4, ids: [3] });
      expect(await after('by_recent', ['2025-01-01T00:00:00.000Z', 5])).toEqual({ count: 4, ids: [] });
    });

    it.each(['by_id', 'by_recent'])(
      'given a list changing between pages, when walked %s after each page last key, then every document that stayed is seen exactly once',
      async (indexName) => {
        const index = indexOf(COLLECTIONS, NOTES, indexName);
        const random = seeded(indexName.length);
        const at = () => `2025-01-0${1 + Math.floor(random() * 5)}T00:00:00.000Z`;
        const live = new Set<number>();
        const used = new Set<number>();
        let position = 0n;
        // Ids anywhere in the range, so that new ones land before and after the walk's place in either order.
        const insert = async () => {
          let id = 0;
          while (id === 0 || used.has(id)) id = 1 + Math.floor(random() * 1000);
          used.add(id);
          live.add(id);
          await store.save(NOTES, id, note(id, { at: at() }), ++position);
        };
        for (let i = 0; i < 40; i++) await insert();
        const stayed = new Set(live);
        const walk = await walkWhileChanging({
          page: (after: readonly Scalar[] | null) =>
            store.page(NOTES, { index: indexName, equal: [1], page: { skip: 0, take: 4 }, after }),
          idOf: (n) => n.id as number,
          keyOf: (n) => orderKeyOf(index, n),
          live: () => live.size,
          change: async () => {
            await insert();
            await insert();
            const gone = [...live][Math.floor(random() * live.size)] as number;
            live.delete(gone);
            stayed.delete(gone);
            await store.save(NOTES, gone, null, ++position);
          },
        });

        expect(walkFaults(walk, stayed)).toEqual({ missedOrRepeated: [], repeated: [] });
        expect(walk.counts.every((c) => c.answered === c.live)).toBe(true);
      },
    );

    it('given documents, when paged or asked for values by a boolean field, then only those holding that value', async () => {
      await store.save(NOTES, 1, note(1, { pinned: true, colour: 'red' }), 1n);
      await store.save(NOTES, 2, note(2, { pinned: false, colour: 'blue' }), 2n);
      await store.save(NOTES, 3, note(3, { pinned: false }), 3n);
      await store.save(NOTES, 4, note(4, { colour: 'green', pinned: true }), 4n);
      const ids = async (pinned: boolean, after: readonly Scalar[] | null = null) =>
        (
          await store.page(NOTES, { index: 'pinned_by_id', equal: [pinned], page: { skip: 0, take: 10 }, after })
        ).list.map((n) => n.id);

      expect(await ids(false)).toEqual([2, 3]);
      expect(await ids(false, [2])).toEqual([3]);
      expect(await ids(true)).toEqual([1, 4]);
      expect(await store.distinct(NOTES, 'colour', { pinned: false })).toEqual(['blue']);
    });

    it('given documents, when distinct values are asked, then strings only, array elements unwound, in code-point order', async () => {
      // A character past U+FFFF sorts after U+FF21 by code point (as the databases order), before it by UTF-16 units.
      await store.save(NOTES, 1, note(1, { tags: ['b', 'ä', '\u{1F600}'], colour: 'red' }), 1n);
      await store.save(NOTES, 2, note(2, { tags: ['Z', 'b', '\uFF21'], colour: null }), 2n);
      await store.save(NOTES, 3, note(3, { board: 2, tags: ['other'], colour: 'blue' }), 3n);

      expect(await store.distinct(NOTES, 'tags', { board: 1 })).toEqual(['Z', 'b', 'ä', '\uFF21', '\u{1F600}']);
      expect(await store.distinct(NOTES, 'colour', { board: 1 })).toEqual(['red']);
      expect(await store.distinct(NOTES, 'colour', {})).toEqual(['blue', 'red']);
    });

    it('given a projection folding through the store, when any range is replayed, then evolve sees each event once and the digest is unchanged', async () => {
      const evolved: string[] = [];
      const projection = documentProjection(notesModel(evolved), store);
      const events = [
        recorded(1, 'NoteWritten', { id: 1, board: 1, text: 'a' }),
        recorded(2, 'NoteWritten', { id: 1, board: 1, text: 'b' }),
        recorded(3, 'NoteWritten', { id: 2, board: 1, text: 'c' }),
        recorded(4, 'NoteErased', { id: 2 }),
      ];
      await store.projectionStore.commit('notes', 4n, async () => {
        for (const event of events) await projection.apply(event);
      });
      const once = await store.projectionStore.digest();

      for (const event of [...events, ...events.slice(1, 3)]) await projection.apply(event);

      expect(evolved).toEqual(['NoteWritten 1', 'NoteWritten 1', 'NoteWritten 2', 'NoteErased 2']);
      expect(await store.get(NOTES, 1)).toEqual({ id: 1, board: 1, text: 'b', edits: 2 });
      expect(await store.get(NOTES, 2)).toBeNull();
      expect(await store.projectionStore.digest()).toEqual(once);
      expect(await store.projectionStore.checkpoint('notes')).toBe(4n);
    });

    it('given a batch read ahead, when folded, then each document evolves from what the batch made of it, and a replay of it changes nothing', async () => {
      const evolved: string[] = [];
      const projection = documentProjection(notesModel(evolved), store);
      await store.save(NOTES, 3, note(3), 9n);
      const batch = [
        recorded(10, 'NoteWritten', { id: 1, board: 1, text: 'a' }),
        recorded(11, 'NoteWritten', { id: 1, board: 1, text: 'b' }),
        recorded(12, 'NoteErased', { id: 1 }),
        recorded(13, 'NoteWritten', { id: 1, board: 1, text: 'c' }),
        recorded(5, 'NoteWritten', { id: 3, board: 1, text: 'older' }),
      ];
      const fold = async () =>
        store.projectionStore.commit('notes', 13n, async () => {
          await projection.readAhead?.(batch);
          for (const event of batch) await projection.apply(event);
        });

      await fold();
      const once = await store.projectionStore.digest();
      await fold();

      expect(evolved).toEqual(['NoteWritten 1', 'NoteWritten 1', 'NoteErased 1', 'NoteWritten 1']);
      expect(await store.load(NOTES, 1)).toEqual({
        document: { id: 1, board: 1, text: 'c', edits: 1 },
        position: 13n,
      });
      expect(await store.get(NOTES, 3)).toEqual(note(3));
      expect(await store.projectionStore.digest()).toEqual(once);
    });

    it('given documents and a checkpoint, when reset, then nothing remains', async () => {
      await store.projectionStore.commit('notes', 2n, async () => {
        await store.save(NOTES, 1, note(1), 1n);
        await store.save(NOTES, 2, note(2), 2n);
      });

      await store.projectionStore.reset('notes');

      expect(await store.projectionStore.checkpoint('notes')).toBeUndefined();
      expect(await store.get(NOTES, 1)).toBeNull();
      expect(Object.values((await store.projectionStore.digest()).counts)).toEqual([0]);
    });
  });
}

describeOnEveryReadDb(describeDocumentStoreContract, {
  sqlite: ['SqliteDocumentStore', (read) => new SqliteDocumentStore(read, COLLECTIONS, SCOPE)],
  mongo: ['MongoDocumentStore', (read) => MongoDocumentStore.open(read, COLLECTIONS)],
  postgres: ['PostgresDocumentStore', (read) => PostgresDocumentStore.open(read, COLLECTIONS, SCOPE)],
});

// A generation built from the whole log: the documents are held in the process from the reset on,
// a batch's saves sent as it commits; it answers as above.
describeOnPostgres(
  describeDocumentStoreContract,
  'PostgresDocumentStore',
  async (read) => {
    const store = await PostgresDocumentStore.open(read, COLLECTIONS, SCOPE);
    await store.projectionStore.reset('notes');
    return store;
  },
  { bulkLoad: true },
);

describe('the document store on SQLite and on MongoDB', () => {
  it('given the same writes, when digested, then both answer the same digest', async () => {
    const sqliteRead = SqliteReadDb.open(':memory:');
    const stores = [
      new SqliteDocumentStore(sqliteRead, COLLECTIONS, SCOPE),
      await MongoDocumentStore.open(mingoReadDb(), COLLECTIONS),
    ];
    for (const store of stores) {
      await store.save(NOTES, 2, note(2, { tags: ['b', 'a'], colour: 'red' }), 7n);
      await store.save(NOTES, 1, note(1), 8n);
      await store.save(NOTES, 3, null, 9n);
    }

    const [sqlite, mongo] = await Promise.all(stores.map((store) => store.projectionStore.digest()));

    expect(sqlite).toEqual(mongo);
    expect(sqlite?.counts).toEqual({ doc_notes: 3 });
    sqliteRead.close();
  });
});

describe('the document store on SQLite, whose change feed every process reads', () => {
  it("given the read model's documents, when a write changes one, then their version moves; an older write leaves it standing", async () => {
    const read = SqliteReadDb.open(':memory:');
    const store = new SqliteDocumentStore(read, COLLECTIONS, SCOPE);
    await store.save(NOTES, 1, note(1), 5n);
    const before = store.version();
    expect(before).not.toBeNull();

    await store.save(NOTES, 1, note(1, { colour: 'red' }), 4n);
    expect(store.version()).toBe(before);
    await store.save(NOTES, 1, note(1, { colour: 'red' }), 6n);
    expect(store.version()).not.toBe(before);
    read.close();
  });
});

/**
 * The MongoDB resources read model counts a list from counters kept with its views (in the
 * batch's transaction), not by counting the admitted range of the view per request. On the mingo
 * stand-in: which queries a list makes, that a failed batch leaves the counters as they were,
 * that emptied counters go, and that a read model written before there were counters gets them
 * once at open. The answers themselves are the contract suite's (test/contract).
 */
import { MongoResourceViewStore } from '../../src/infra/mongo/mongo-resource-view-store';
import { READ_MODEL_UPGRADES, RESOURCE_VIEW_COUNTS } from '../../src/infra/mongo/mongo-resource-view-counts';
import type { MongoReadDb } from '../../src/infra/mongo/mongo-read-db';
import {
  O,
  D,
  PARAGRAPH,
  ViewModel,
  naivePage,
  principals,
  query,
  resource,
} from '../resources/resource-view-fixtures';
import { mingoReadDb, mingoReads } from '../support/mingo-mongo';

class CrashMidway extends Error {}

const counted = (read: MongoReadDb) => mingoReads(read).filter((r) => r.operation === 'countDocuments');

async function seeded(read: MongoReadDb) {
  const store = await MongoResourceViewStore.open(read);
  const model = new ViewModel();
  for (let id = 1; id <= 6; id++) {
    const r = resource(id, { paragraphId: id % 2 ? PARAGRAPH : null });
    await store.putResource(id, r, BigInt(id), model.put(r, [O, D]));
  }
  return { store, model };
}

const lists = [
  query(),
  query({ audience: principals('public') }),
  query({ audience: principals('public'), paragraphId: PARAGRAPH, take: 0 }),
];

describe('MongoDB list counts from counters', () => {
  it('given a view, when it is listed without a search, then the count comes from the counters: no count of the view reaches the server', async () => {
    const read = mingoReadDb();
    const { store, model } = await seeded(read);

    for (const q of lists) expect(await store.page(q)).toEqual(naivePage(model.all(), q));
    expect(counted(read)).toEqual([]);
  });

  it('given a free-text search, when it is listed, then its matches are counted on the server', async () => {
    const read = mingoReadDb();
    const { store, model } = await seeded(read);
    const q = query({ concept: 'resource 3' });

    expect(await store.page(q)).toEqual(naivePage(model.all(), q));
    expect(counted(read).map((r) => r.collection)).toEqual(['resource_views']);
  });

  it('given a batch that fails after moving counters, when it aborts, then the counts are those before it', async () => {
    const read = mingoReadDb({ transactions: true });
    const { store, model } = await seeded(read);
    const before = await Promise.all(lists.map((q) => store.page(q)));

    await expect(
      store.projectionStore.commit('resources', 7n, async () => {
        const r = resource(7);
        await store.putResource(7, r, 7n, new ViewModel().put(r, [O, D]));
        await store.putResource(1, null, 8n, []);
        throw new CrashMidway();
      }),
    ).rejects.toBeInstanceOf(CrashMidway);

    expect(await Promise.all(lists.map((q) => store.page(q)))).toEqual(before);
    for (const q of lists) expect(await store.page(q)).toEqual(naivePage(model.all(), q));
  });

  it('given every resource deleted, then no counter is left (a live read model and its rebuild hold the same documents)', async () => {
    const read = mingoReadDb();
    const { store } = await seeded(read);
    for (let id = 1; id <= 6; id++) await store.putResource(id, null, BigInt(10 + id), []);

    expect((await store.projectionStore.digest()).counts[RESOURCE_VIEW_COUNTS]).toBe(0);
    expect((await store.page(query())).count).toBe(0);
  });

  it('given a read model written before it kept counters, when it is opened, then its counters are built once from its views', async () => {
    const read = mingoReadDb();
    const { model } = await seeded(read);
    await read.db.collection(RESOURCE_VIEW_COUNTS).deleteMany({});
    await read.db.collection(READ_MODEL_UPGRADES).deleteMany({});

    const reopened = await MongoResourceViewStore.open(read);

    for (const q of lists) expect(await reopened.page(q)).toEqual(naivePage(model.all(), q));
    const r = resource(9);
    await reopened.putResource(9, r, 9n, model.put(r, [O]));
    await MongoResourceViewStore.open(read);
    for (const q of lists) expect(await reopened.page(q)).toEqual(naivePage(model.all(), q));
  });
});

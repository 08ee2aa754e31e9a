/**
 * A read model's reset empties its collections by dropping them, one operation whatever their size
 * (deleting every document writes an oplog entry per document), and keeps their indexes: a
 * generation rebuilt after a reset must answer lists from the same indexes. On the mingo stand-in,
 * and on a real MongoDB where one answers.
 */
import { MongoReadDb } from '../../src/infra/mongo/mongo-read-db';
import { MongoResourceViewStore } from '../../src/infra/mongo/mongo-resource-view-store';
import { RESOURCE_COLLECTIONS } from '../../src/infra/mongo/mongo-resource-view-queries';
import { O, ViewModel, query, resource } from '../resources/resource-view-fixtures';
import { mingoReadDb } from '../support/mingo-mongo';
import { describeMongo } from '../support/mongo-target';

async function resetKeepsIndexes(read: MongoReadDb): Promise<void> {
  const store = await MongoResourceViewStore.open(read);
  const model = new ViewModel();
  for (let id = 1; id <= 5; id++) {
    const r = resource(id);
    await store.putResource(id, r, BigInt(id), model.put(r, [O]));
  }
  await store.projectionStore.commit('resources', 5n, async () => undefined);
  const indexesOf = async () =>
    Promise.all(
      RESOURCE_COLLECTIONS.map(async (name) =>
        (await read.db.collection(name).indexes()).map((i) => ({ name: i.name, key: i.key })),
      ),
    );
  const before = await indexesOf();

  await store.projectionStore.reset('resources');

  expect(await indexesOf()).toEqual(before);
  expect(before.flat().length).toBeGreaterThan(RESOURCE_COLLECTIONS.length);
  expect(await store.page(query())).toEqual({ count: 0, list: [] });
  expect(await store.stored(1)).toBeNull();
  expect(await store.projectionStore.checkpoint('resources')).toBeUndefined();
  expect(Object.values((await store.projectionStore.digest()).counts)).toEqual(RESOURCE_COLLECTIONS.map(() => 0));
}

describe('reset of a MongoDB read model', () => {
  it('given a read model with documents, when reset, then its collections are empty and keep their indexes (stand-in)', async () => {
    await resetKeepsIndexes(mingoReadDb());
  });
});

describeMongo('reset of a MongoDB read model', (mongo) => {
  it('given a read model with documents, when reset, then its collections are empty and keep their indexes', async () => {
    const read = await MongoReadDb.connect(mongo().url, mongo().dbName());
    try {
      await resetKeepsIndexes(read);
    } finally {
      await read.db.dropDatabase();
      await read.close();
    }
  });
});

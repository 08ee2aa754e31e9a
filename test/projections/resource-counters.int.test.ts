/**
 * The SQLite resource views gather a batch's counter changes and write them at the end of the
 * batch's transaction (src/infra/read-models/sqlite-resource-view-store.ts): a list's count must
 * still be exactly the rows committed, whatever batches failed on the way.
 */
import { SqliteReadDb } from '../../src/infra/read-models/sqlite-read-db';
import { SqliteResourceViewStore } from '../../src/infra/read-models/sqlite-resource-view-store';
import { viewRecords } from '../../src/projections/resources/resource-projection';
import { everything, projectView, resource } from '../contract/resource-view-fixtures';

const put = (store: SqliteResourceViewStore, resourceId: number, position: bigint) =>
  store.putResource(resourceId, resource(resourceId), position, viewRecords(resource(resourceId), []));

const countOf = async (store: SqliteResourceViewStore) =>
  (await store.page({ ...projectView(), audience: everything, paragraphId: null, concept: null, tags: [], orderBy: 0, skip: 0, take: 10 })).count;

describe('resource view counters across batches', () => {
  it('given a batch that failed after writing a resource, when the next batch commits, then the count holds only what committed', async () => {
    // given
    const store = new SqliteResourceViewStore(SqliteReadDb.open(':memory:'));
    await expect(
      store.projection.commit('resources', 1n, async () => {
        await put(store, 1, 1n);
        throw new Error('the projection failed midway');
      }),
    ).rejects.toThrow(Error);
    // when
    await store.projection.commit('resources', 2n, () => put(store, 2, 2n));
    // then
    expect(await countOf(store)).toBe(1);
  });

  it('given resources committed in several batches, when one is deleted, then the count follows every batch', async () => {
    // given
    const store = new SqliteResourceViewStore(SqliteReadDb.open(':memory:'));
    await store.projection.commit('resources', 2n, async () => {
      await put(store, 1, 1n);
      await put(store, 2, 2n);
    });
    await store.projection.commit('resources', 3n, () => put(store, 3, 3n));
    // when
    await store.projection.commit('resources', 4n, () => store.putResource(2, null, 4n, []));
    // then
    expect(await countOf(store)).toBe(2);
  });
});

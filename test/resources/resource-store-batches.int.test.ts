/**
 * What the SQLite resource views keep in memory across a batch of the projection
 * (src/infra/sqlite/sqlite-resource-view-store.ts): the resources it found not stored, and each
 * project's communities, read once a batch; and what the view index counts, kept in step through
 * the change feed only by batches that commit. A list's count must still be exactly the rows committed,
 * whatever batches failed on the way, and a batch must see the links committed before it began.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SqliteReadDb } from '../../src/infra/sqlite/sqlite-read-db';
import { SqliteResourceViewStore } from '../../src/infra/sqlite/sqlite-resource-view-store';
import { viewRecords } from '../../src/resources/resource-projection';
import { D, O, P, everything, projectView, resource } from './resource-view-fixtures';

const put = (store: SqliteResourceViewStore, resourceId: number, position: bigint) =>
  store.putResource(resourceId, resource(resourceId), position, viewRecords(resource(resourceId), []));

const countOf = async (store: SqliteResourceViewStore) =>
  (
    await store.page({
      ...projectView(),
      audience: everything,
      paragraphId: null,
      concept: null,
      tags: [],
      orderBy: 0,
      skip: 0,
      take: 10,
    })
  ).count;

let dir: string;
beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'resource-batches-'))));
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('resource view counts across batches', () => {
  it('given a batch that failed after writing a resource, when the next batch commits, then the count holds only what committed', async () => {
    // given
    const store = new SqliteResourceViewStore(SqliteReadDb.open(':memory:'));
    await expect(
      store.projectionStore.commit('resources', 1n, async () => {
        await put(store, 1, 1n);
        throw new Error('the projection failed midway');
      }),
    ).rejects.toThrow(Error);
    // when
    await store.projectionStore.commit('resources', 2n, () => put(store, 2, 2n));
    // then
    expect(await countOf(store)).toBe(1);
  });

  it('given resources committed in several batches, when one is deleted, then the count follows every batch', async () => {
    // given
    const store = new SqliteResourceViewStore(SqliteReadDb.open(':memory:'));
    await store.projectionStore.commit('resources', 2n, async () => {
      await put(store, 1, 1n);
      await put(store, 2, 2n);
    });
    await store.projectionStore.commit('resources', 3n, () => put(store, 3, 3n));
    // when
    await store.projectionStore.commit('resources', 4n, () => store.putResource(2, null, 4n, []));
    // then
    expect(await countOf(store)).toBe(2);
  });

  it('given a bulk load whose batches committed around one that failed, when the load ends, then the generation counts exactly what committed', async () => {
    // given
    const file = path.join(dir, 'read-models.g1.sqlite');
    const read = SqliteReadDb.open(file, { bulkLoad: true });
    const store = new SqliteResourceViewStore(read);
    await store.projectionStore.commit('resources', 2n, async () => {
      await put(store, 1, 1n);
      await put(store, 2, 2n);
    });
    await expect(
      store.projectionStore.commit('resources', 3n, async () => {
        await put(store, 3, 3n);
        throw new Error('the projection failed midway');
      }),
    ).rejects.toThrow(Error);
    await store.projectionStore.commit('resources', 4n, () => put(store, 4, 4n));
    await store.projectionStore.commit('resources', 5n, () => store.putResource(1, null, 5n, []));
    // when
    read.finishBulkLoad();
    read.close();
    // then: read as the processes that switch to the generation read it
    expect(await countOf(new SqliteResourceViewStore(SqliteReadDb.open(file)))).toBe(2);
  });
});

describe('a resource found not stored within a batch', () => {
  it('given a batch that found resource 1 not stored, when another process stores it, then the next batch replaces its views', async () => {
    // given
    const file = path.join(dir, 'read-models.sqlite');
    const projector = new SqliteResourceViewStore(SqliteReadDb.open(file));
    const other = new SqliteResourceViewStore(SqliteReadDb.open(file));
    await projector.projectionStore.commit('resources', 1n, async () => {
      expect(await projector.stored(1)).toBeNull();
    });
    // when
    await other.projectionStore.commit('resources', 2n, () => put(other, 1, 2n));
    await projector.projectionStore.commit('resources', 3n, () => put(projector, 1, 3n));
    // then
    expect(await countOf(projector)).toBe(1);
    expect((await projector.viewsOfResource(1)).map((v) => v.viewKey)).toEqual([projectView().viewKey]);
  });

  it('given a batch that found resource 1 not stored and stored it, when the same batch writes it again, then it has its views once', async () => {
    // given
    const store = new SqliteResourceViewStore(SqliteReadDb.open(':memory:'));
    // when
    await store.projectionStore.commit('resources', 2n, async () => {
      expect(await store.stored(1)).toBeNull();
      await put(store, 1, 1n);
      await put(store, 1, 2n);
    });
    // then
    expect(await countOf(store)).toBe(1);
  });
});

describe("a project's communities within a batch", () => {
  it('given a batch that read the communities of P, when another process links P to another community, then the next batch sees that link', async () => {
    // given
    const file = path.join(dir, 'read-models.sqlite');
    const projector = new SqliteResourceViewStore(SqliteReadDb.open(file));
    const other = new SqliteResourceViewStore(SqliteReadDb.open(file));
    await other.writeProjectLink({ communityProjectId: 1, communityId: O, projectId: P }, false, 1n);
    let first: number[] = [];
    await projector.projectionStore.commit('resources', 1n, async () => {
      first = await projector.projectCommunities(P);
    });
    // when
    await other.writeProjectLink({ communityProjectId: 2, communityId: D, projectId: P }, false, 2n);
    let second: number[] = [];
    await projector.projectionStore.commit('resources', 2n, async () => {
      second = await projector.projectCommunities(P);
    });
    // then
    expect(first).toEqual([O]);
    expect(second).toEqual([O, D].sort((a, b) => a - b));
  });

  it('given a batch that read the communities of P, when the same batch links P to another community, then its later reads see the link', async () => {
    // given
    const store = new SqliteResourceViewStore(SqliteReadDb.open(':memory:'));
    await store.writeProjectLink({ communityProjectId: 1, communityId: O, projectId: P }, false, 1n);
    const seen: number[][] = [];
    // when
    await store.projectionStore.commit('resources', 2n, async () => {
      seen.push(await store.projectCommunities(P));
      await store.writeProjectLink({ communityProjectId: 2, communityId: D, projectId: P }, false, 2n);
      seen.push(await store.projectCommunities(P));
    });
    // then
    expect(seen).toEqual([[O], [O, D].sort((a, b) => a - b)]);
  });

  it('given a bulk load whose batch linked P to a community and then failed, when the next batch reads the communities of P, then the link is not there', async () => {
    // given
    const store = new SqliteResourceViewStore(SqliteReadDb.open(':memory:', { bulkLoad: true }));
    await store.projectionStore.commit('resources', 1n, () =>
      store.writeProjectLink({ communityProjectId: 1, communityId: O, projectId: P }, false, 1n),
    );
    await expect(
      store.projectionStore.commit('resources', 2n, async () => {
        await store.writeProjectLink({ communityProjectId: 2, communityId: D, projectId: P }, false, 2n);
        expect(await store.projectCommunities(P)).toEqual([O, D].sort((a, b) => a - b));
        throw new Error('the projection failed midway');
      }),
    ).rejects.toThrow(Error);
    // when
    let seen: number[] = [];
    await store.projectionStore.commit('resources', 2n, async () => {
      seen = await store.projectCommunities(P);
    });
    // then
    expect(seen).toEqual([O]);
  });
});

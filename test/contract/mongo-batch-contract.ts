/**
 * How a MongoDB read model commits a runner batch, run on the mingo stand-in (with and without
 * its transaction model) and on a real MongoDB when one answers. Whatever the deployment, a
 * replay from the checkpoint after a batch that failed midway repairs the read model, and a
 * stale lease holder's batch writes nothing; where the deployment runs transactions, the failed
 * batch also leaves nothing behind.
 */
import { DIRECTORY_STREAM } from '../../src/directory/directory-events';
import type { RecordedEvent } from '../../src/ports/event-store';
import type { MongoReadDb } from '../../src/infra/mongo/mongo-read-db';
import { MongoResourceViewStore } from '../../src/infra/mongo/mongo-resource-view-store';
import { LeaseLostError } from '../../src/projections/projection-lease';
import type { ReadModelProjection } from '../../src/projections/read-model-projection';
import { resourceProjection } from '../../src/resources/resource-projection';
import { D, O, P, createdData } from '../resources/resource-view-fixtures';

export type OpenedReadDb = { read: MongoReadDb; dispose: () => Promise<void> };

const metadata = {
  actor: { userId: 1, credential: 'session' as const },
  correlationId: 'c',
  at: '2025-01-01T00:00:00.000Z',
};
const recorded = (position: bigint, streamId: string, type: string, data: object): RecordedEvent => ({
  streamId,
  type,
  data,
  metadata,
  revision: 0n,
  position,
});
const created = (position: bigint, resourceId: number) =>
  recorded(position, `resource-${resourceId}`, 'ResourceCreated', createdData(resourceId));
const deleted = (position: bigint, resourceId: number) =>
  recorded(position, `resource-${resourceId}`, 'ResourceDeleted', {
    resourceId,
    resourceUrl: 'https://example.org/a.pdf',
  });
/** The directory's link events, on the stream the directory feed appends them to. */
const link = (position: bigint, type: 'CommunityProjectUpserted' | 'CommunityProjectRemoved', data: object) =>
  recorded(position, DIRECTORY_STREAM, type, data);

/** Two batches: the second re-projects views (a link), deletes a resource and creates one. */
const first = [
  created(1n, 1),
  created(2n, 2),
  link(3n, 'CommunityProjectUpserted', { communityProjectId: 100, communityId: O, projectId: P }),
];
const second = [
  link(4n, 'CommunityProjectUpserted', { communityProjectId: 101, communityId: D, projectId: P }),
  deleted(5n, 2),
  created(6n, 3),
  link(7n, 'CommunityProjectRemoved', { communityProjectId: 100 }),
];

const NAME = 'resources';
/** How far a real server's clock may stand from this test's. */
const CLOCK_SLACK_MS = 2000;

async function commit(
  projection: ReadModelProjection,
  batch: readonly RecordedEvent[],
  options: { failAfter?: number; fence?: Parameters<ReadModelProjection['store']['commit']>[3] } = {},
) {
  const last = batch.at(-1);
  if (!last) throw new Error('empty batch');
  await projection.store.commit(
    NAME,
    last.position,
    async () => {
      for (const [i, event] of batch.entries()) {
        await projection.apply(event);
        if (i + 1 === options.failAfter) throw new Error('crash midway through the batch');
      }
    },
    options.fence,
  );
}

export function describeMongoBatchContract(name: string, open: () => Promise<OpenedReadDb>): void {
  describe(`${name}: a runner batch on MongoDB`, () => {
    const opened: OpenedReadDb[] = [];
    const openProjection = async () => {
      const db = await open();
      opened.push(db);
      const store = await MongoResourceViewStore.open(db.read);
      return { read: db.read, store, projection: resourceProjection(store) };
    };
    afterEach(async () => {
      for (const db of opened.splice(0)) await db.dispose();
    });

    /** The read model after both batches committed cleanly. */
    const reference = async () => {
      const { store, projection } = await openProjection();
      await commit(projection, first);
      await commit(projection, second);
      return store.projectionStore.digest();
    };

    it('given a batch that throws midway, when the batch is replayed from the checkpoint, then the read model is as if it never failed; with transactions the failed batch left nothing', async () => {
      const expected = await reference();
      const { read, store, projection } = await openProjection();
      await commit(projection, first);
      const afterFirst = await store.projectionStore.digest();

      await expect(commit(projection, second, { failAfter: 3 })).rejects.toThrow('crash midway');

      expect(await store.projectionStore.checkpoint(NAME)).toBe(3n);
      // Without transactions the batch's first events are written: the replay is what repairs them.
      if (read.transactions) expect(await store.projectionStore.digest()).toEqual(afterFirst);
      else expect(await store.projectionStore.digest()).not.toEqual(afterFirst);
      await commit(projection, second);
      expect(await store.projectionStore.digest()).toEqual(expected);
      expect(await store.projectionStore.checkpoint(NAME)).toBe(7n);
    });

    it('given a committed batch, when it is committed again, then nothing changes and nothing fails (no write is refused inside the transaction)', async () => {
      const expected = await reference();
      const { store, projection } = await openProjection();
      await commit(projection, first);
      await commit(projection, second);

      await commit(projection, [...first, ...second]);
      // Writes the projection itself would skip: an upsert whose guard misses an existing, newer document.
      await store.projectionStore.commit(NAME, 7n, async () => {
        await store.writeProjectLink({ communityProjectId: 100, communityId: O, projectId: P }, false, 3n);
        await store.writeProjectLink({ communityProjectId: 101, communityId: D, projectId: P }, false, 4n);
      });

      expect(await store.projectionStore.digest()).toEqual(expected);
    });

    it("given the lease passed to another holder, when the stale holder commits a batch, then it is refused and writes nothing, and the lease stays the new holder's", async () => {
      const { read, store, projection } = await openProjection();
      await commit(projection, first);
      const before = await store.projectionStore.digest();
      const leases = read.db.collection('projection_leases');
      await leases.updateOne(
        { _id: NAME } as object,
        { $set: { holder: 'b', token: 2, expiresAt: 9000 } },
        { upsert: true },
      );

      const stale = { projection: NAME, holder: 'a', token: 1n, ttlMs: 1000, nowMs: 8500 };
      await expect(commit(projection, second, { fence: stale })).rejects.toBeInstanceOf(LeaseLostError);

      expect(await store.projectionStore.digest()).toEqual(before);
      expect(await store.projectionStore.checkpoint(NAME)).toBe(3n);
      expect(await leases.findOne({ _id: NAME } as object, { projection: { _id: 0 } })).toEqual({
        holder: 'b',
        token: 2,
        expiresAt: 9000,
      });
    });

    it("given the lease held, when its holder commits a batch, then the batch and the checkpoint are written and the lease is renewed from the server's now", async () => {
      const { read, store, projection } = await openProjection();
      const leases = read.db.collection('projection_leases');
      await leases.updateOne(
        { _id: NAME } as object,
        { $set: { holder: 'a', token: 3, expiresAt: 1000 } },
        { upsert: true },
      );
      const before = Date.now();

      // The process's clock (nowMs 900) is not the one the lease lives by.
      await commit(projection, first, { fence: { projection: NAME, holder: 'a', token: 3n, ttlMs: 1000, nowMs: 900 } });

      expect(await store.projectionStore.checkpoint(NAME)).toBe(3n);
      expect(await store.stored(2)).not.toBeNull();
      const renewed = await leases.findOne({ _id: NAME } as object, { projection: { _id: 0 } });
      expect(renewed).toMatchObject({ holder: 'a', token: 3 });
      // The server's clock may stand a little apart from this test's (a real server elsewhere).
      expect(Number(renewed?.expiresAt)).toBeGreaterThanOrEqual(before + 1000 - CLOCK_SLACK_MS);
      expect(Number(renewed?.expiresAt)).toBeLessThanOrEqual(Date.now() + 1000 + CLOCK_SLACK_MS);
    });
  });
}

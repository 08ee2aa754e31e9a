/**
 * The read store contract: every adapter answers the same MongoDB-shaped filters, sorts and
 * pages alike. Runs against the embedded adapter always, and MongoDB when reachable.
 */
import { randomUUID } from 'node:crypto';
import { MongoDBContainer } from '@testcontainers/mongodb';
import type { StartedMongoDBContainer } from '@testcontainers/mongodb';
import { MemoryReadStore } from '../../src/infra/read-store/memory-read-store';
import { MongoReadStore } from '../../src/infra/read-store/mongo-read-store';
import type { Doc, ReadStore } from '../../src/infra/read-store/read-store';
import { announceSkip, externalTarget } from '../support/external';

type Resource = Doc & {
  readonly resourceId: number;
  readonly title: string;
  readonly postDate: string;
  readonly audience: string[];
  readonly community?: string;
};

function resource(n: number, overrides: Partial<Resource> = {}): Resource {
  return {
    _id: `r${String(n).padStart(3, '0')}`,
    resourceId: n,
    title: `Resource ${n}`,
    postDate: '2024-01-01',
    audience: ['public'],
    ...overrides,
  };
}

function ids(docs: readonly Doc[]): string[] {
  return docs.map((d) => d._id);
}

function describeReadStoreContract(name: string, factory: () => Promise<ReadStore>): void {
  describe(`read store contract: ${name}`, () => {
    let store: ReadStore;

    beforeEach(async () => {
      store = await factory();
    });

    afterEach(async () => {
      await store.dropAll();
      await store.close();
    });

    async function given(...docs: Resource[]): Promise<void> {
      for (const doc of docs) await store.collection<Resource>('resources').upsert(doc);
    }

    const resources = () => store.collection<Resource>('resources');

    describe('upsert and findOne', () => {
      it('inserts a new document that findOne then returns', async () => {
        await given(resource(1));

        const found = await resources().findOne({ _id: 'r001' });

        expect(found).toEqual(resource(1));
      });

      it('replaces the whole stored document with the same _id', async () => {
        await given(resource(1, { community: 'c1' }));

        await resources().upsert(resource(1, { title: 'Renamed' }));

        expect(await resources().findOne({ _id: 'r001' })).toEqual(resource(1, { title: 'Renamed' }));
        expect(await resources().count({})).toBe(1);
      });

      it('returns null when nothing matches', async () => {
        await given(resource(1));

        expect(await resources().findOne({ title: 'nope' })).toBeNull();
      });

      it('keeps collections apart', async () => {
        await given(resource(1));

        expect(await store.collection('other').findOne({ _id: 'r001' })).toBeNull();
      });

      it('leaves out fields holding undefined', async () => {
        await given(resource(1, { community: undefined }));

        const found = await resources().findOne({ _id: 'r001' });

        expect(found).not.toHaveProperty('community');
        expect(await resources().count({ community: { $exists: false } })).toBe(1);
      });
    });

    describe('find with filters', () => {
      beforeEach(async () => {
        await given(
          resource(1, { audience: ['public'], title: 'Alpha report' }),
          resource(2, { audience: ['c:1', 'c:2'], title: 'beta notes', community: 'c1' }),
          resource(3, { audience: ['c:3'], title: 'Gamma ALPHA', community: 'c3' }),
          resource(4, { audience: [], title: 'delta' }),
        );
      });

      it('matches a scalar list against an array field with $in', async () => {
        const found = await resources().find({ audience: { $in: ['public', 'c:2'] } }, { sort: { resourceId: 1 } });

        expect(ids(found)).toEqual(['r001', 'r002']);
      });

      it('matches a scalar equality against an array field', async () => {
        expect(ids(await resources().find({ audience: 'c:3' }))).toEqual(['r003']);
      });

      it('excludes array fields holding any listed value with $nin', async () => {
        const found = await resources().find({ audience: { $nin: ['public', 'c:1'] } }, { sort: { resourceId: 1 } });

        expect(ids(found)).toEqual(['r003', 'r004']);
      });

      it('combines alternatives with $or', async () => {
        const found = await resources().find(
          { $or: [{ community: 'c1' }, { audience: 'public' }] },
          { sort: { resourceId: 1 } },
        );

        expect(ids(found)).toEqual(['r001', 'r002']);
      });

      it('combines conditions with $and, $ne and range operators', async () => {
        const found = await resources().find(
          { $and: [{ resourceId: { $gt: 1 } }, { resourceId: { $lt: 4 } }, { community: { $ne: 'c1' } }] },
          { sort: { resourceId: 1 } },
        );

        expect(ids(found)).toEqual(['r003']);
      });

      it('matches $regex case-insensitively with $options i', async () => {
        const found = await resources().find({ title: { $regex: 'alpha', $options: 'i' } }, { sort: { resourceId: 1 } });

        expect(ids(found)).toEqual(['r001', 'r003']);
      });

      it('tells present from missing fields with $exists', async () => {
        const present = await resources().find({ community: { $exists: true } }, { sort: { resourceId: 1 } });
        const missing = await resources().find({ community: { $exists: false } }, { sort: { resourceId: 1 } });

        expect(ids(present)).toEqual(['r002', 'r003']);
        expect(ids(missing)).toEqual(['r001', 'r004']);
      });
    });

    describe('find with sort, skip and limit', () => {
      it('sorts on several keys, each in its own direction', async () => {
        await given(
          resource(1, { postDate: '2024-01-02' }),
          resource(2, { postDate: '2024-01-03' }),
          resource(3, { postDate: '2024-01-02' }),
          resource(4, { postDate: '2024-01-01' }),
          resource(5, { postDate: '2024-01-03' }),
        );

        const found = await resources().find({}, { sort: { postDate: -1, resourceId: -1 } });

        expect(ids(found)).toEqual(['r005', 'r002', 'r003', 'r001', 'r004']);
      });

      it('applies the secondary key ascending under a descending primary key', async () => {
        await given(
          resource(1, { community: 'b' }),
          resource(2, { community: 'a' }),
          resource(3, { community: 'b' }),
          resource(4, { community: 'a' }),
        );

        const found = await resources().find({}, { sort: { community: -1, resourceId: 1 } });

        expect(ids(found)).toEqual(['r001', 'r003', 'r002', 'r004']);
      });

      it('filters and sorts on Date fields and gives Dates back', async () => {
        const day = (d: number) => new Date(Date.UTC(2024, 0, d));
        await given(
          resource(1, { postedAt: day(3) }),
          resource(2, { postedAt: day(1) }),
          resource(3, { postedAt: day(2) }),
        );

        const found = await resources().find({ postedAt: { $gte: day(2) } }, { sort: { postedAt: 1 } });

        expect(ids(found)).toEqual(['r003', 'r001']);
        expect(found[0]?.postedAt).toEqual(day(2));
      });

      it('skips then limits after sorting', async () => {
        await given(...[5, 3, 1, 4, 2].map((n) => resource(n)));

        const found = await resources().find({}, { sort: { resourceId: 1 }, skip: 1, limit: 2 });

        expect(ids(found)).toEqual(['r002', 'r003']);
      });
    });

    describe('findPage', () => {
      it('counts every match and returns only the requested page', async () => {
        await given(...Array.from({ length: 25 }, (_, i) => resource(25 - i)));

        const page = await resources().findPage({}, { sort: { resourceId: 1 }, skip: 5, limit: 10 });

        expect(page.count).toBe(25);
        expect(page.list.map((d) => d.resourceId)).toEqual([6, 7, 8, 9, 10, 11, 12, 13, 14, 15]);
      });

      it('counts only documents matching the filter', async () => {
        await given(...Array.from({ length: 6 }, (_, i) => resource(i + 1, { community: i % 2 ? 'odd' : 'even' })));

        const page = await resources().findPage({ community: 'odd' }, { sort: { resourceId: -1 }, skip: 0, limit: 2 });

        expect(page.count).toBe(3);
        expect(ids(page.list)).toEqual(['r006', 'r004']);
      });

      it('answers zero and an empty page when nothing matches', async () => {
        await given(resource(1));

        const page = await resources().findPage({ title: 'nope' }, { sort: { resourceId: 1 }, skip: 0, limit: 10 });

        expect(page).toEqual({ count: 0, list: [] });
      });

      it('keeps the total when the page is past the end', async () => {
        await given(resource(1), resource(2));

        const page = await resources().findPage({}, { sort: { resourceId: 1 }, skip: 5, limit: 10 });

        expect(page).toEqual({ count: 2, list: [] });
      });
    });

    describe('count and distinct', () => {
      beforeEach(async () => {
        await given(
          resource(1, { community: 'c2', audience: ['public', 'c:2'] }),
          resource(2, { community: 'c1', audience: ['c:1'] }),
          resource(3, { community: 'c2', audience: ['c:2', 'c:1'] }),
          resource(4, { audience: [] }),
        );
      });

      it('counts the matching documents', async () => {
        expect(await resources().count({})).toBe(4);
        expect(await resources().count({ audience: 'c:1' })).toBe(2);
      });

      it('lists distinct scalar values ascending, without missing ones', async () => {
        expect(await resources().distinct('community', {})).toEqual(['c1', 'c2']);
      });

      it('lists each element of an array field once, ascending', async () => {
        expect(await resources().distinct('audience', {})).toEqual(['c:1', 'c:2', 'public']);
      });

      it('lists distinct values among the matching documents only', async () => {
        expect(await resources().distinct('audience', { community: 'c2' })).toEqual(['c:1', 'c:2', 'public']);
        expect(await resources().distinct('audience', { community: 'c1' })).toEqual(['c:1']);
      });
    });

    describe('deleteOne and deleteMany', () => {
      beforeEach(async () => {
        await given(resource(1, { community: 'c1' }), resource(2, { community: 'c1' }), resource(3));
      });

      it('deleteOne removes a single matching document', async () => {
        await resources().deleteOne({ community: 'c1' });

        expect(await resources().count({ community: 'c1' })).toBe(1);
        expect(await resources().count({})).toBe(2);
      });

      it('deleteMany removes every match and says how many', async () => {
        const deleted = await resources().deleteMany({ community: 'c1' });

        expect(deleted).toBe(2);
        expect(ids(await resources().find({}))).toEqual(['r003']);
      });

      it('deleting nothing is not an error', async () => {
        await resources().deleteOne({ _id: 'missing' });

        expect(await resources().deleteMany({ _id: 'missing' })).toBe(0);
        expect(await resources().count({})).toBe(3);
      });
    });

    describe('documents are copies', () => {
      it('mutating a returned document does not change the store', async () => {
        await given(resource(1));
        const found = (await resources().findOne({ _id: 'r001' })) as { title: string; audience: string[] };

        found.title = 'mutated';
        found.audience.push('c:9');

        expect(await resources().findOne({ _id: 'r001' })).toEqual(resource(1));
        const [listed] = await resources().find({});
        (listed as { audience: string[] }).audience.push('c:8');
        expect(await resources().count({ audience: { $in: ['c:8', 'c:9'] } })).toBe(0);
      });

      it('mutating an upserted document afterwards does not change the store', async () => {
        const doc = { ...resource(1), audience: ['public'] };
        await resources().upsert(doc);

        doc.audience.push('c:9');

        expect(await resources().findOne({ _id: 'r001' })).toEqual(resource(1));
      });
    });

    describe('ensureIndexes', () => {
      const byResourceId = { collection: 'resources', keys: { resourceId: 1 }, name: 'resourceId_unique', unique: true } as const;
      const byPostDate = { collection: 'resources', keys: { postDate: -1, resourceId: -1 }, name: 'postDate_resourceId' } as const;

      it('is idempotent', async () => {
        await store.ensureIndexes([byResourceId, byPostDate]);

        await expect(store.ensureIndexes([byResourceId, byPostDate])).resolves.toBeUndefined();
      });

      it('rejects a duplicate under a unique index and keeps the stored document', async () => {
        await store.ensureIndexes([byResourceId]);
        await given(resource(1));

        await expect(resources().upsert({ ...resource(1), _id: 'other' })).rejects.toThrow(/duplicate key/i);

        expect(ids(await resources().find({}))).toEqual(['r001']);
      });

      it('lets a document be replaced with its own unique key', async () => {
        await store.ensureIndexes([byResourceId]);
        await given(resource(1));

        await resources().upsert(resource(1, { title: 'Renamed' }));

        expect((await resources().findOne({ _id: 'r001' }))?.title).toBe('Renamed');
      });

      it('frees a unique key once its document is deleted', async () => {
        await store.ensureIndexes([byResourceId]);
        await given(resource(1));
        await resources().deleteOne({ _id: 'r001' });

        await resources().upsert({ ...resource(1), _id: 'other' });

        expect(ids(await resources().find({ resourceId: 1 }))).toEqual(['other']);
      });

      it('refuses a unique index that existing documents already violate', async () => {
        await given(resource(1), { ...resource(1), _id: 'other' });

        await expect(store.ensureIndexes([byResourceId])).rejects.toThrow(/duplicate key/i);
      });
    });

    describe('dropAll', () => {
      it('empties every collection', async () => {
        await given(resource(1), resource(2));
        await store.collection('other').upsert({ _id: 'x' });

        await store.dropAll();

        expect(await resources().count({})).toBe(0);
        expect(await store.collection('other').count({})).toBe(0);
      });

      it('drops the indexes too, so they must be ensured again', async () => {
        await store.ensureIndexes([{ collection: 'resources', keys: { resourceId: 1 }, name: 'rid', unique: true }]);
        await given(resource(1));

        await store.dropAll();
        await given(resource(1), { ...resource(1), _id: 'other' });

        expect(await resources().count({ resourceId: 1 })).toBe(2);
      });

      it('leaves the store usable', async () => {
        await given(resource(1));

        await store.dropAll();
        await given(resource(2));

        expect(ids(await resources().find({}))).toEqual(['r002']);
      });
    });

    it('answers ping', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });
  });
}

describeReadStoreContract('memory', async () => new MemoryReadStore());

describe('MemoryReadStore', () => {
  it('is not durable and records the index specs it was given', async () => {
    const store = new MemoryReadStore();
    const spec = { collection: 'resources', keys: { postDate: -1, resourceId: -1 }, name: 'by_date' } as const;

    await store.ensureIndexes([spec]);
    await store.ensureIndexes([spec]);

    expect(store.durable).toBe(false);
    expect(store.indexes()).toEqual([spec]);
  });
});

const mongo = externalTarget('mongodb');
if (mongo.kind === 'skip') {
  announceSkip('read store contract (MongoDB)', mongo.reason);
} else {
  describe('MongoDB', () => {
    // One database per run (and per test below), so concurrent runs against one server never meet.
    const run = randomUUID().replace(/-/g, '').slice(0, 12);
    let databases = 0;
    let container: StartedMongoDBContainer | undefined;
    let url = mongo.kind === 'url' ? mongo.url : '';

    beforeAll(async () => {
      if (mongo.kind !== 'docker') return;
      container = await new MongoDBContainer('mongo:7').start();
      const base = container.getConnectionString();
      url = `${base}${base.includes('?') ? '&' : '/?'}directConnection=true`;
    }, 180_000);

    afterAll(async () => {
      await container?.stop();
    });

    describeReadStoreContract('mongodb', () => MongoReadStore.connect(url, `read_store_${run}_${++databases}`));

    it('is durable', async () => {
      const store = await MongoReadStore.connect(url, `read_store_${run}_durable`);
      try {
        expect(store.durable).toBe(true);
      } finally {
        await store.close();
      }
    });
  });
}

import { Query, updateOne } from 'mingo';
import type { FilesStore, StoredFile } from '../../src/files/files-store';
import { filesProjection } from '../../src/files/files-projection';
import type { ProjectionStore } from '../../src/projections/read-model-projection';
import type { FileDoc, GuardedWrite, ReferenceDoc } from '../../src/infra/mongo/mongo-files-store';
import {
  MongoFilesStore,
  deletionWrite,
  liveUploadsBeforeFilter,
  referenceWrite,
  referencingFilter,
  uploadWrite,
} from '../../src/infra/mongo/mongo-files-store';
import { MongoReadDb } from '../../src/infra/mongo/mongo-read-db';
import { PostgresFilesStore } from '../../src/infra/postgres/postgres-files-store';
import { SqliteFilesStore } from '../../src/infra/sqlite/sqlite-files-store';
import { SqliteReadDb } from '../../src/infra/sqlite/sqlite-read-db';
import type { RecordedEvent } from '../../src/ports/event-store';
import { describeMongo } from '../support/mongo-target';
import { describeOnPostgres } from '../support/read-db-adapters';

/**
 * The files read model's contract, through its projection (events in, the service's questions
 * out): on SQLite always, on PostgreSQL (required in CI) and MongoDB where they answer, and on
 * the MongoDB adapter's pure filter and update builders evaluated by mingo (so they are checked
 * here even without a MongoDB).
 */
const A = 'resource_files/aaa/a.pdf';
const B = 'resource_files/bbb/b.png';
let position = 0n;
const recorded = (type: string, data: unknown, at = position + 1n): RecordedEvent => {
  position = at > position ? at : position;
  return {
    streamId: 's',
    type,
    data,
    metadata: { actor: { userId: 1, credential: 'session' }, correlationId: 'c', at: '' },
    revision: 0n,
    position: at,
  };
};
const uploaded = (path: string, at: string, p?: bigint) =>
  recorded(
    'FileUploaded',
    { path, name: path.split('/')[2], size: 3, contentType: 'application/pdf', uploadedBy: 7, at },
    p,
  );

function filesStoreContract(open: () => Promise<{ store: FilesStore; close(): Promise<void> }>) {
  let store: FilesStore;
  let close: () => Promise<void>;
  let apply: (event: RecordedEvent) => Promise<void>;
  beforeEach(async () => {
    ({ store, close } = await open());
    const projection = filesProjection(store);
    apply = (event) => projection.store.commit(projection.name, event.position, () => projection.apply(event));
  });
  afterEach(() => close());

  it('an upload is known with who uploaded it, and unreferenced', async () => {
    await apply(uploaded(A, '2025-01-01T00:00:00.000Z'));
    expect(await store.file(A)).toEqual<StoredFile>({
      path: A,
      name: 'a.pdf',
      size: 3,
      contentType: 'application/pdf',
      uploadedBy: 7,
      uploadedAt: '2025-01-01T00:00:00.000Z',
      deleted: false,
    });
    expect(await store.referencingResources(A)).toEqual([]);
    expect(await store.unreferencedUploads('2025-01-02T00:00:00.000Z', 10)).toEqual([A]);
    expect(await store.unreferencedUploads('2025-01-01T00:00:00.000Z', 10)).toEqual([]);
  });

  it('resources referencing a path: created, moved by an update, deleted; links are not references', async () => {
    await apply(uploaded(A, '2025-01-01T00:00:00.000Z'));
    await apply(uploaded(B, '2025-01-01T00:00:00.000Z'));
    await apply(recorded('ResourceCreated', { resourceId: 1, resourceUrl: A }));
    await apply(recorded('ResourceCreated', { resourceId: 2, resourceUrl: A }));
    await apply(recorded('ResourceCreated', { resourceId: 3, resourceUrl: 'https://example.org/a.pdf' }));
    expect(await store.referencingResources(A)).toEqual([1, 2]);
    await apply(recorded('ResourceUpdated', { resourceId: 2, resourceUrl: B }));
    expect(await store.referencingResources(A)).toEqual([1]);
    expect(await store.referencingResources(B)).toEqual([2]);
    await apply(recorded('ResourceDeleted', { resourceId: 1, resourceUrl: A }));
    expect(await store.referencingResources(A)).toEqual([]);
    expect(await store.unreferencedUploads('2025-02-01T00:00:00.000Z', 10)).toEqual([A]);
  });

  it('replaying older events changes nothing: a deleted file stays deleted, a deleted resource keeps no reference', async () => {
    const up = uploaded(A, '2025-01-01T00:00:00.000Z');
    const created = recorded('ResourceCreated', { resourceId: 9, resourceUrl: A });
    const deletedResource = recorded('ResourceDeleted', { resourceId: 9, resourceUrl: A });
    const deletedFile = recorded('FileDeleted', { path: A, reason: 'unreferenced' });
    for (const event of [up, created, deletedResource, deletedFile]) await apply(event);
    for (const event of [up, created]) await apply(event);
    expect((await store.file(A))?.deleted).toBe(true);
    expect(await store.referencingResources(A)).toEqual([]);
    expect(await store.unreferencedUploads('2030-01-01T00:00:00.000Z', 10)).toEqual([]);
  });

  it('unreferencedUploads: oldest first, bounded', async () => {
    await apply(uploaded(B, '2025-01-02T00:00:00.000Z'));
    await apply(uploaded(A, '2025-01-01T00:00:00.000Z'));
    expect(await store.unreferencedUploads('2025-02-01T00:00:00.000Z', 10)).toEqual([A, B]);
    expect(await store.unreferencedUploads('2025-02-01T00:00:00.000Z', 1)).toEqual([A]);
  });
}

describe('files read model contract (SQLite)', () => {
  filesStoreContract(async () => {
    const readDb = SqliteReadDb.open(':memory:');
    return { store: new SqliteFilesStore(readDb), close: async () => readDb.close() };
  });
});

describeOnPostgres<FilesStore>(
  (name, open) =>
    describe(name, () =>
      filesStoreContract(async () => {
        const { store, dispose } = await open();
        return { store, close: dispose };
      }),
    ),
  'PostgresFilesStore',
  (read) => PostgresFilesStore.open(read),
);

describeMongo('files read model contract', (mongo) => {
  filesStoreContract(async () => {
    const readDb = await MongoReadDb.connect(mongo().url, mongo().dbName());
    const store = new MongoFilesStore(readDb);
    await store.ensureIndexes();
    return { store, close: () => readDb.close() };
  });
});

/** MongoDB's updateOne with upsert, as the adapter calls it, evaluated by mingo over arrays. */
function applyWrite<T extends { _id: unknown }>(docs: T[], write: GuardedWrite<T>): void {
  const result = updateOne(docs, write.filter as never, write.update as never);
  if (result.matchedCount > 0 || !write.upsert) return;
  const id = (write.filter as { _id: unknown })._id;
  if (docs.some((d) => d._id === id)) return; // MongoDB: duplicate key, which the adapter ignores
  docs.push({ _id: id, ...(write.update.$set as object) } as T);
}

describe('files read model contract (MongoDB builders, evaluated by mingo)', () => {
  filesStoreContract(async () => {
    const files: FileDoc[] = [];
    const references: ReferenceDoc[] = [];
    const projectionStore: ProjectionStore = {
      commit: async (_p, _pos, work) => {
        await work();
      },
      checkpoint: async () => undefined,
      checkpointLog: async () => undefined,
      setCheckpointLog: async () => undefined,
      reset: async () => undefined,
      park: async () => undefined,
      parked: async () => [],
      unpark: async () => false,
      digest: async () => ({ digest: '', counts: {} }),
    };
    const store: FilesStore = {
      projectionStore,
      recordUpload: async (file, p) => applyWrite(files, uploadWrite(file, p)),
      recordDeletion: async (path, p) => applyWrite(files, deletionWrite(path, p)),
      setReference: async (resourceId, path, p) => applyWrite(references, referenceWrite(resourceId, path, p)),
      file: async (path) => {
        const doc = files.find((d) => d._id === path);
        if (!doc) return null;
        const { _id, position: _position, ...rest } = doc;
        return { path: _id, ...rest };
      },
      referencingResources: async (path) =>
        new Query(referencingFilter(path) as never)
          .find<ReferenceDoc>(references)
          .all()
          .map((d) => d._id)
          .sort((a, b) => a - b),
      unreferencedUploads: async (before, limit) =>
        new Query(liveUploadsBeforeFilter(before) as never)
          .find<FileDoc>(files)
          .sort({ uploadedAt: 1, _id: 1 })
          .all()
          .filter((d) => new Query(referencingFilter(d._id) as never).find(references).all().length === 0)
          .slice(0, limit)
          .map((d) => d._id),
    };
    return { store, close: async () => undefined };
  });
});

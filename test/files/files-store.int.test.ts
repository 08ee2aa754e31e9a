import type { StoredFile } from '../../src/files/files-projection';
import { FILES_READ_MODEL } from '../../src/files/files-projection';
import { filesStore, type FilesStore } from '../../src/files/files-store';
import { MongoDocumentStore } from '../../src/infra/mongo/mongo-document-store';
import { PostgresDocumentStore } from '../../src/infra/postgres/postgres-document-store';
import { SqliteDocumentStore } from '../../src/infra/sqlite/sqlite-document-store';
import { documentProjection, scopeOf, type DocumentStore } from '../../src/projections/document-store';
import type { RecordedEvent } from '../../src/ports/event-store';
import { describeOnEveryReadDb, type OpenedStore, withFreshStore } from '../support/read-db-adapters';

/**
 * The files read model's contract, through its projection (events in, the service's questions
 * out), run against every document-store adapter: SQLite always, the MongoDB adapter on the
 * in-process mingo stand-in always and on a real MongoDB when one answers, PostgreSQL (required in
 * CI). The events are folded by the runner's side of the document store (`documentProjection`),
 * so the position guard under test is the generic one.
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

/** The read model's queries, and `apply`: an event folded as the runner folds it, inside the store's commit. */
type FilesReadModel = FilesStore & { apply(event: RecordedEvent): Promise<void> };

function filesReadModel(documents: DocumentStore): FilesReadModel {
  const projection = documentProjection(FILES_READ_MODEL, documents);
  return {
    // Two documents a query: every answer longer than that is read across pages.
    ...filesStore(documents, 2),
    apply: (event) => projection.store.commit(projection.name, event.position, () => projection.apply(event)),
  };
}

function filesStoreContract(name: string, open: () => Promise<OpenedStore<FilesReadModel>>) {
  describe(`${name} honours the FilesStore contract`, () => {
    let store: FilesReadModel;
    withFreshStore(open, (opened) => (store = opened));
    const apply = (event: RecordedEvent) => store.apply(event);

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

    it('a path referenced by more resources than one query reads: every one, by id', async () => {
      for (const resourceId of [4, 1, 5, 3, 2])
        await apply(recorded('ResourceCreated', { resourceId, resourceUrl: A }));
      expect(await store.referencingResources(A)).toEqual([1, 2, 3, 4, 5]);
    });

    it('unreferencedUploads: past referenced and deleted uploads, across pages, none made at or after the cutoff', async () => {
      const path = (i: number) => `resource_files/f${i}/f.pdf`;
      for (const i of [1, 2, 3, 4, 5, 6, 7]) await apply(uploaded(path(i), `2025-01-0${i}T00:00:00.000Z`));
      for (const i of [1, 2, 4]) await apply(recorded('ResourceCreated', { resourceId: i, resourceUrl: path(i) }));
      await apply(recorded('FileDeleted', { path: path(5), reason: 'unreferenced' }));
      const cutoff = '2025-01-07T00:00:00.000Z';
      expect(await store.unreferencedUploads(cutoff, 10)).toEqual([path(3), path(6)]);
      expect(await store.unreferencedUploads(cutoff, 1)).toEqual([path(3)]);
      expect(await store.unreferencedUploads(cutoff, 0)).toEqual([]);
    });
  });
}

describeOnEveryReadDb(filesStoreContract, {
  sqlite: [
    'SqliteDocumentStore',
    (read) => filesReadModel(new SqliteDocumentStore(read, FILES_READ_MODEL.collections, scopeOf(FILES_READ_MODEL))),
  ],
  mongo: [
    'MongoDocumentStore',
    async (read) => filesReadModel(await MongoDocumentStore.open(read, FILES_READ_MODEL.collections)),
  ],
  postgres: [
    'PostgresDocumentStore',
    async (read) =>
      filesReadModel(await PostgresDocumentStore.open(read, FILES_READ_MODEL.collections, scopeOf(FILES_READ_MODEL))),
  ],
});

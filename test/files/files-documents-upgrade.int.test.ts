/**
 * A read database written before the files were documents holds the old `files` and
 * `file_references` tables and their checkpoint: the document read model must not trust that
 * checkpoint, or its empty collections would never fill, and must not answer from the old tables.
 */
import { openReadModels } from '../../src/app/read-model-list';
import { FILES_READ_MODEL } from '../../src/files/files-projection';
import { SqliteReadDb } from '../../src/infra/sqlite/sqlite-read-db';

const PATH = 'resource_files/abc/old.pdf';

describe('the files read model on a read database from before its documents', () => {
  it('given the old tables and checkpoint, when opened and folded from the start, then it answers what the log says, not the old rows', async () => {
    // given: the tables and the checkpoint as the service wrote them before
    const read = SqliteReadDb.open(':memory:');
    read.db.exec(`create table files (path text primary key, name text not null, size integer not null,
      content_type text not null, uploaded_by integer not null, uploaded_at text not null,
      deleted integer not null default 0, position integer not null) strict`);
    read.db.exec(
      'create table file_references (resource_id integer primary key, path text, position integer not null) strict',
    );
    read.db
      .prepare(`insert into files values (?, 'stale.pdf', 1, 'application/pdf', 9, '2024-01-01T00:00:00.000Z', 0, 1)`)
      .run(PATH);
    read.db.prepare('insert into file_references values (77, ?, 2)').run(PATH);
    read.writeCheckpoint('files', 500n);

    // when
    const { stores, projections } = await openReadModels({ kind: 'sqlite', sqlite: read });
    const projection = projections.find((p) => p.store === stores.files.projectionStore);

    // then
    expect(projection?.name).toBe(FILES_READ_MODEL.name);
    expect(await stores.files.projectionStore.checkpoint(FILES_READ_MODEL.name)).toBeUndefined();
    expect(await stores.files.file(PATH)).toBeNull();
    expect(await stores.files.referencingResources(PATH)).toEqual([]);

    // when: the log's upload folded
    await projection!.store.commit(projection!.name, 1n, () =>
      projection!.apply({
        streamId: 'file-abc',
        type: 'FileUploaded',
        data: {
          path: PATH,
          name: 'old.pdf',
          size: 3,
          contentType: 'application/pdf',
          uploadedBy: 1,
          at: '2025-01-01T00:00:00.000Z',
        },
        metadata: {
          actor: { userId: 1, credential: 'session' },
          correlationId: 'upgrade',
          at: '2025-01-01T00:00:00.000Z',
        },
        revision: 0n,
        position: 1n,
      }),
    );

    // then
    expect(await stores.files.file(PATH)).toMatchObject({ name: 'old.pdf', uploadedBy: 1, deleted: false });
    expect(await stores.files.unreferencedUploads('2026-01-01T00:00:00.000Z', 10)).toEqual([PATH]);
    read.close();
  });
});

/**
 * The files projection, given / when / then over a fresh SQLite read model: the uploads and the
 * resources referencing them the store answers, and that applying the events again changes nothing.
 */
import { fileStreamId } from '../../src/files/file-events';
import { FILES_READ_MODEL } from '../../src/files/files-projection';
import { selecting } from '../../src/projections/read-model-projection';
import { resourceStreamId } from '../../src/resources/resource-events';
import { NOW, created } from '../resources/resource-fixtures';
import { ProjectionSpecification, onStream } from '../support/projection-specification';

const given = ProjectionSpecification.for('files');
const PATH = 'resource_files/abc/manual.pdf';
const uploaded = onStream(fileStreamId('abc'), {
  type: 'FileUploaded',
  data: {
    path: PATH,
    name: 'manual.pdf',
    size: 1234,
    contentType: 'application/pdf',
    uploadedBy: 1,
    at: '2025-01-01T00:00:00.000Z',
  },
});
const resource = (resourceId: number, ...events: { type: string; data: unknown }[]) =>
  onStream(resourceStreamId(resourceId), ...events);
const updatedTo = (resourceId: number, resourceUrl: string) => ({
  type: 'ResourceUpdated',
  data: {
    resourceId,
    name: 'Manual',
    description: '',
    resourceUrl,
    icon: '',
    tags: [],
    resourceType: 0,
    image: '',
    lastUpdated: NOW,
  },
});

describe('files projection', () => {
  it('given nothing, when a file is uploaded and two resources reference it, then the store answers the file and both resources', () =>
    given()
      .when([
        ...uploaded,
        ...resource(1, created({ resourceId: 1, resourceUrl: PATH })),
        ...resource(2, created({ resourceId: 2, resourceUrl: PATH })),
      ])
      .then(async (store) => {
        expect(await store.file(PATH)).toEqual({
          path: PATH,
          name: 'manual.pdf',
          size: 1234,
          contentType: 'application/pdf',
          uploadedBy: 1,
          uploadedAt: '2025-01-01T00:00:00.000Z',
          deleted: false,
        });
        expect((await store.referencingResources(PATH)).sort()).toEqual([1, 2]);
        expect(await store.unreferencedUploads('2026-01-01T00:00:00.000Z', 10)).toEqual([]);
      }));

  it('given a referenced upload, when one resource links elsewhere and the other is deleted, then nothing references it', () =>
    given([
      ...uploaded,
      ...resource(1, created({ resourceId: 1, resourceUrl: PATH })),
      ...resource(2, created({ resourceId: 2, resourceUrl: PATH })),
    ])
      .when([
        ...resource(1, updatedTo(1, 'https://example.org/manual')),
        ...resource(2, { type: 'ResourceDeleted', data: { resourceId: 2, resourceUrl: PATH } }),
      ])
      .then(async (store) => {
        expect(await store.referencingResources(PATH)).toEqual([]);
        expect(await store.unreferencedUploads('2026-01-01T00:00:00.000Z', 10)).toEqual([PATH]);
      }));

  it('given an upload, when it is deleted, then the store keeps it as deleted and no longer offers it as unreferenced', () =>
    given(uploaded)
      .when(onStream(fileStreamId('abc'), { type: 'FileDeleted', data: { path: PATH, reason: 'orphaned' } }))
      .then(async (store) => {
        expect((await store.file(PATH))?.deleted).toBe(true);
        expect(await store.unreferencedUploads('2026-01-01T00:00:00.000Z', 10)).toEqual([]);
      }));

  it('given a resource created with a link, then the projection has nothing of it to fold; created with an upload, updated or deleted, it has', () => {
    const { handles } = selecting(FILES_READ_MODEL.canHandle);
    const at = (streamId: string, event: { type: string; data: unknown }) => ({
      ...event,
      streamId,
      revision: 0n,
      position: 1n,
      metadata: { actor: { userId: 1, credential: 'session' as const }, correlationId: 'c', at: NOW },
    });
    const link = 'https://example.org/manual';

    expect(handles(at(resourceStreamId(1), created({ resourceId: 1, resourceUrl: link })))).toBe(false);
    expect(handles(at(resourceStreamId(1), created({ resourceId: 1, resourceUrl: PATH })))).toBe(true);
    expect(handles(at(resourceStreamId(1), updatedTo(1, link)))).toBe(true);
    expect(
      handles(at(resourceStreamId(1), { type: 'ResourceDeleted', data: { resourceId: 1, resourceUrl: link } })),
    ).toBe(true);
    expect(handles(at(fileStreamId('abc'), uploaded[0]!))).toBe(true);
  });

  it('given resources created with links among uploads, then the store answers what folding every event does', () =>
    given([...uploaded, ...resource(1, created({ resourceId: 1, resourceUrl: PATH }))])
      .when([
        ...resource(2, created({ resourceId: 2, resourceUrl: 'https://example.org/a' })),
        ...resource(2, updatedTo(2, PATH)),
        ...resource(3, created({ resourceId: 3, resourceUrl: 'https://example.org/b' })),
      ])
      .then(async (store) => {
        expect((await store.referencingResources(PATH)).sort()).toEqual([1, 2]);
      }));
});

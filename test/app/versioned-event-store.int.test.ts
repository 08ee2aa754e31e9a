import { EVENT_CATALOG } from '../../src/app/event-catalog';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { EventMetadata } from '../../src/domain/event';
import type { RecordedEvent } from '../../src/ports/event-store';
import { SqliteEventStore } from '../../src/infra/sqlite/sqlite-event-store';
import { versionedEventStore } from '../../src/app/versioned-event-store';

/**
 * Versions at the port's boundary, on the embedded store: what is appended is stamped
 * with its type's version; what is read, by every read of the port, is upcast to the current one.
 */
const metadata: EventMetadata = {
  actor: { userId: 3, credential: 'session' },
  correlationId: 'c-1',
  at: '2025-03-01T00:00:00.000Z',
};
const sharedV1 = { resourceId: 1, communityId: 2, privacyLevel: 1 };

describe('versioned event store over SQLite', () => {
  let file: string;
  let raw: SqliteEventStore;
  let store: ReturnType<typeof versionedEventStore>;

  beforeEach(async () => {
    file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'prs-versioned-')), 'events.sqlite');
    raw = SqliteEventStore.open(file);
    // given a share stored before events carried a version
    await raw.appendToStream('resource-1', [{ type: 'ResourceShared', data: sharedV1, metadata }], 'no_stream');
    store = versionedEventStore(SqliteEventStore.open(file), EVENT_CATALOG);
  });
  afterEach(async () => {
    await Promise.all([raw.close(), store.close()]);
  });

  const expectCurrentShare = (event: RecordedEvent | undefined) => {
    expect(event?.data).toEqual({ ...sharedV1, reason: null });
    expect(event?.metadata).toEqual(metadata);
  };

  it('given a version-1 share, when its stream is read, then it reads as version 2 and without a version in its metadata', async () => {
    expectCurrentShare((await store.readStream('resource-1'))[0]);
    expectCurrentShare(await store.readLastEvent('resource-1'));
  });

  it('given a version-1 share, when the log is read, then readAll (with and without types) gives the current shape', async () => {
    expectCurrentShare((await store.readAll(undefined, 10))[0]);
    expectCurrentShare((await store.readAll(undefined, 10, new Set(['ResourceShared'])))[0]);
  });

  it('given a version-1 share, when a subscription delivers it, then it has the current shape', async () => {
    const seen = await new Promise<RecordedEvent>((resolve) => {
      const subscription = store.subscribeToAll(undefined, async (event) => {
        resolve(event);
        await Promise.resolve();
        void subscription.close();
      });
    });
    expectCurrentShare(seen);
  });

  it('given a share appended now, when the adapter underneath reads it, then it is stored with its version', async () => {
    // when
    await store.appendToStream(
      'resource-2',
      [{ type: 'ResourceShared', data: { ...sharedV1, resourceId: 2, reason: 'partners' }, metadata }],
      'no_stream',
    );
    await store.appendToStream('sequence-resource', [{ type: 'IdAllocated', data: { id: 2 }, metadata }], 'no_stream');
    // then
    expect((await raw.readStream('resource-2'))[0]?.metadata).toEqual({ ...metadata, schemaVersion: 2 });
    expect((await raw.readStream('sequence-resource'))[0]?.metadata).toEqual({ ...metadata, schemaVersion: 1 });
    expect((await store.readStream('resource-2'))[0]).toMatchObject({ data: { reason: 'partners' }, metadata });
  });
});

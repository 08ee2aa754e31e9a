/**
 * The `apikeys` read-model contract, run through its projection (the runner's side of the
 * document store) on every read database: SQLite (`:memory:`), the suites' PostgreSQL server, the
 * MongoDB adapter on the in-process mingo stand-in, and a real MongoDB when one answers.
 */
import type { ApiKeyEventData } from '../../src/api-keys/api-key-events';
import type { EventMetadata } from '../../src/domain/event';
import type { RecordedEvent } from '../../src/ports/event-store';
import type { ApiKeyRecord, ApiKeyStore } from '../../src/api-keys/api-key-store';
import type { ReadModelProjection } from '../../src/projections/read-model-projection';
import { READ_MODELS } from '../../src/app/read-model-list';
import { describeOnEveryReadDb, type OpenedStore } from '../support/read-db-adapters';

const metadata: EventMetadata = {
  actor: { userId: 3, credential: 'session' },
  correlationId: 'c',
  at: '2025-01-01T00:00:00.000Z',
};
const T = (minute: number) => new Date(Date.UTC(2025, 0, 1, 0, minute)).toISOString();

let nextPosition = 1n;
function recorded(event: ApiKeyEventData | { type: string; data: unknown }, position = nextPosition++): RecordedEvent {
  return { streamId: 'apikeys-x', type: event.type, data: event.data, metadata, revision: 0n, position };
}
const created = (id: number, userId: number, minute: number): ApiKeyEventData => ({
  type: 'ApiKeyCreated',
  data: {
    userId,
    id,
    keyId: `svc_live_${id}`,
    name: `key ${id}`,
    secretHash: `h${id}`,
    createdAt: T(minute),
    expiresAt: T(minute + 600),
    readOnly: false,
    ratePerHour: null,
  },
});
const revoked = (id: number, userId: number): ApiKeyEventData => ({
  type: 'ApiKeyRevoked',
  data: { userId, id, revokedAt: T(50) },
});
const rotated = (id: number, userId: number, hash: string, previous: string): ApiKeyEventData => ({
  type: 'ApiKeyRotated',
  data: {
    userId,
    id,
    secretHash: hash,
    previousSecretHash: previous,
    previousSecretValidUntil: T(90),
    rotatedAt: T(60),
  },
});

function describeApiKeyStoreContract(name: string, open: () => Promise<OpenedStore<ApiKeyStore>>): void {
  describe(`apikeys store contract: ${name}`, () => {
    let harness: OpenedStore<ApiKeyStore>;
    let store: ApiKeyStore;
    let projection: ReadModelProjection;
    const fold = async (...events: RecordedEvent[]) => {
      const last = events.at(-1);
      if (!last) return;
      await projection.store.commit(projection.name, last.position, async () => {
        for (const event of events) await projection.apply(event);
      });
    };

    beforeEach(async () => {
      harness = await open();
      store = harness.store;
      projection = READ_MODELS.apiKeys.projection(store);
    });
    afterEach(() => harness.dispose());

    it('given a created key, when looked up by keyId, then every field is there, never revoked, never used', async () => {
      await fold(recorded(created(1, 3, 0)));

      await expect(store.byKeyId('svc_live_1')).resolves.toEqual({
        id: 1,
        keyId: 'svc_live_1',
        userId: 3,
        name: 'key 1',
        secretHash: 'h1',
        graceSecretHash: null,
        graceUntil: null,
        createdAt: T(0),
        expiresAt: T(600),
        revoked: false,
        lastUsedAt: null,
        readOnly: false,
        ratePerHour: null,
      } satisfies ApiKeyRecord);
      await expect(store.byKeyId('svc_live_404')).resolves.toBeNull();
      const { lastUsedAt: _lastUsedAt, ...key } = (await store.byKeyId('svc_live_1')) as ApiKeyRecord;
      await expect(store.credential('svc_live_1')).resolves.toEqual(key);
      await expect(store.credential('svc_live_404')).resolves.toBeNull();
    });

    it('given a key checked, when it is revoked or rotated, then the next check sees it', async () => {
      await fold(recorded(created(1, 3, 0)));
      await expect(store.credential('svc_live_1')).resolves.toMatchObject({ secretHash: 'h1', revoked: false });

      await fold(recorded(rotated(1, 3, 'h1b', 'h1')));
      await expect(store.credential('svc_live_1')).resolves.toMatchObject({ secretHash: 'h1b', graceSecretHash: 'h1' });
      await fold(recorded(revoked(1, 3)));
      await expect(store.credential('svc_live_1')).resolves.toMatchObject({ revoked: true });
    });

    it("given keys of two users, when listing one user's keys, then newest first, revoked ones left out", async () => {
      await fold(
        recorded(created(1, 3, 0)),
        recorded(created(2, 3, 5)),
        recorded(created(3, 6, 6)),
        recorded(created(4, 3, 5)),
        recorded(created(5, 3, 7)),
        recorded(revoked(5, 3)),
      );

      expect((await store.listForUser(3)).map((k) => k.id)).toEqual([4, 2, 1]);
      expect((await store.listForUser(6)).map((k) => k.id)).toEqual([3]);
      await expect(store.listForUser(99)).resolves.toEqual([]);
    });

    it('given a revoked key, when looked up, then it is a tombstone; replaying its creation does not revive it', async () => {
      const create = recorded(created(1, 3, 0));
      await fold(create, recorded(revoked(1, 3)));
      await fold(create);

      await expect(store.byKeyId('svc_live_1')).resolves.toMatchObject({ revoked: true });
      await expect(store.listForUser(3)).resolves.toEqual([]);
    });

    it('given a rotation, when looked up, then the new hash is current and the old one is in grace', async () => {
      await fold(recorded(created(1, 3, 0)), recorded(rotated(1, 3, 'h1b', 'h1')));

      await expect(store.byKeyId('svc_live_1')).resolves.toMatchObject({
        secretHash: 'h1b',
        graceSecretHash: 'h1',
        graceUntil: T(90),
      });
    });

    it('given later events applied, when an older range is replayed, then nothing changes', async () => {
      const events = [
        recorded(created(1, 3, 0)),
        recorded(rotated(1, 3, 'h1b', 'h1')),
        recorded(rotated(1, 3, 'h1c', 'h1b')),
        recorded(revoked(1, 3)),
      ];
      await fold(...events);
      const before = await store.byKeyId('svc_live_1');
      const digest = await projection.store.digest();

      await fold(events[1] as RecordedEvent, events[2] as RecordedEvent);
      await fold(...events);

      await expect(store.byKeyId('svc_live_1')).resolves.toEqual(before);
      expect(before).toMatchObject({ secretHash: 'h1c', graceSecretHash: 'h1b', revoked: true });
      await expect(projection.store.digest()).resolves.toEqual(digest);
    });

    it('given uses recorded out of order, when read, then lastUsedAt is the latest', async () => {
      await fold(recorded(created(1, 3, 0)));
      await store.recordUse(1, T(10));
      await store.recordUse(1, T(5));

      await expect(store.byKeyId('svc_live_1')).resolves.toMatchObject({ lastUsedAt: T(10) });
      expect((await store.listForUser(3))[0]?.lastUsedAt).toBe(T(10));
    });

    it('given other events in the log, when folded, then they are ignored', async () => {
      await fold(recorded({ type: 'ResourceCreated', data: { resourceId: 1 } }));

      await expect(store.listForUser(3)).resolves.toEqual([]);
    });

    it('given keys, when the projection is reset, then they are gone and the checkpoint too', async () => {
      const event = recorded(created(1, 3, 0));
      await fold(event);
      await expect(projection.store.checkpoint(projection.name)).resolves.toBe(event.position);

      await projection.store.reset(projection.name);

      await expect(store.byKeyId('svc_live_1')).resolves.toBeNull();
      await expect(projection.store.checkpoint(projection.name)).resolves.toBeUndefined();
    });
  });
}

const { apiKeys } = READ_MODELS;
describeOnEveryReadDb(describeApiKeyStoreContract, {
  sqlite: ['SQLite', apiKeys.sqlite],
  mongo: ['MongoDB', apiKeys.mongo],
  postgres: ['PostgreSQL', apiKeys.postgres],
});

/**
 * The `apikeys` read-model store contract, run through its projection: on SQLite (`:memory:`)
 * always; on the suites' PostgreSQL server; on MongoDB when one is reachable; and, since none is
 * here, on the MongoDB adapter's own pure filters and updates evaluated by mingo (test-only
 * oracle) over the same fixtures.
 */
import { Query, updateOne } from 'mingo';
import type { ApiKeyEventData } from '../../src/api-keys/api-key-events';
import type { EventMetadata } from '../../src/domain/event';
import type { RecordedEvent } from '../../src/ports/event-store';
import type { ApiKeyDoc, ApiKeyUsageDoc, MongoWrite } from '../../src/infra/mongo/mongo-api-key-store';
import { MongoApiKeyStore, apiKeyQueries, toApiKeyRecord } from '../../src/infra/mongo/mongo-api-key-store';
import { PostgresApiKeyStore } from '../../src/infra/postgres/postgres-api-key-store';
import { SqliteApiKeyStore } from '../../src/infra/sqlite/sqlite-api-key-store';
import { SqliteReadDb } from '../../src/infra/sqlite/sqlite-read-db';
import { apiKeyProjection } from '../../src/api-keys/api-key-projection';
import type { ApiKeyRecord, ApiKeyStore } from '../../src/api-keys/api-key-store';
import type { ProjectionStore, ReadModelProjection } from '../../src/projections/read-model-projection';
import { describeOnPostgres, describeOnRealMongo } from '../support/read-db-adapters';

type Harness = { store: ApiKeyStore; dispose(): Promise<void> };

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

function describeApiKeyStoreContract(name: string, open: () => Promise<Harness>): void {
  describe(`apikeys store contract: ${name}`, () => {
    let harness: Harness;
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
      projection = apiKeyProjection(store);
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

describeApiKeyStoreContract('SQLite', async () => {
  const readDb = SqliteReadDb.open(':memory:');
  return { store: new SqliteApiKeyStore(readDb), dispose: async () => readDb.close() };
});

describeOnPostgres(describeApiKeyStoreContract, 'PostgresApiKeyStore', (read) => PostgresApiKeyStore.open(read));

describeOnRealMongo(
  'apikeys store contract',
  describeApiKeyStoreContract,
  'MongoDB',
  (read) => new MongoApiKeyStore(read),
);

/** Applies one of the adapter's writes as MongoDB's updateOne would (upsert included). */
function applyWrite<T extends { _id: number }>(docs: T[], { filter, update, upsert }: MongoWrite<T>): void {
  const { $setOnInsert, ...modifier } = update as Record<string, Record<string, unknown>>;
  const matched = new Query(filter as Record<string, unknown>).find<T>(docs).all().length > 0;
  if (matched) {
    if (Object.keys(modifier).length > 0) updateOne(docs, filter as never, modifier as never);
    return;
  }
  if (!upsert) return;
  const fromFilter = Object.fromEntries(Object.entries(filter).filter(([, v]) => typeof v !== 'object' || v === null));
  const doc = { ...fromFilter, ...$setOnInsert } as T;
  docs.push(doc);
  if (Object.keys(modifier).length > 0) updateOne(docs, { _id: doc._id } as never, modifier as never);
}

/** The MongoDB adapter's pure filters and updates, evaluated by mingo over in-memory documents. */
class MingoApiKeyStore implements ApiKeyStore {
  keys: ApiKeyDoc[] = [];
  usage: ApiKeyUsageDoc[] = [];
  private checkpointPosition: bigint | undefined;
  readonly projectionStore: ProjectionStore = {
    commit: async (_projection, position, work) => {
      await work();
      this.checkpointPosition = position;
    },
    checkpoint: async () => this.checkpointPosition,
    checkpointLog: async () => undefined,
    setCheckpointLog: async () => undefined,
    reset: async () => {
      this.keys = [];
      this.checkpointPosition = undefined;
    },
    park: async () => undefined,
    parked: async () => [],
    unpark: async () => false,
    digest: async () => ({ digest: JSON.stringify(this.keys), counts: { api_keys: this.keys.length } }),
  };

  private lastUsed(id: number): string | null {
    return this.usage.find((u) => u._id === id)?.lastUsedAt ?? null;
  }
  async byKeyId(keyId: string): Promise<ApiKeyRecord | null> {
    const [doc] = new Query(apiKeyQueries.byKeyId(keyId) as Record<string, unknown>).find<ApiKeyDoc>(this.keys).all();
    return doc ? toApiKeyRecord(structuredClone(doc), this.lastUsed(doc._id)) : null;
  }
  async listForUser(userId: number): Promise<ApiKeyRecord[]> {
    const { filter, sort } = apiKeyQueries.listForUser(userId);
    const docs = new Query(filter as Record<string, unknown>).find<ApiKeyDoc>(this.keys).sort(sort).all();
    const usage = new Query(apiKeyQueries.usageOf(docs.map((d) => d._id)) as Record<string, unknown>)
      .find<ApiKeyUsageDoc>(this.usage)
      .all();
    return docs.map((d) => toApiKeyRecord(structuredClone(d), usage.find((u) => u._id === d._id)?.lastUsedAt ?? null));
  }
  async recordUse(id: number, at: string): Promise<void> {
    applyWrite(this.usage, apiKeyQueries.recordUse(id, at));
  }
  async keyCreated(key: Parameters<ApiKeyStore['keyCreated']>[0], position: bigint): Promise<void> {
    applyWrite(this.keys, apiKeyQueries.created(key, position));
  }
  async keyRevoked(id: number, position: bigint): Promise<void> {
    applyWrite(this.keys, apiKeyQueries.revoked(id, position));
  }
  async keyRotated(id: number, secret: Parameters<ApiKeyStore['keyRotated']>[1], position: bigint): Promise<void> {
    applyWrite(this.keys, apiKeyQueries.rotated(id, secret, position));
  }
}

describeApiKeyStoreContract('MongoDB filters and updates, evaluated by mingo', async () => ({
  store: new MingoApiKeyStore(),
  dispose: async () => undefined,
}));

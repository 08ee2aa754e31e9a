import type { Collection, Filter, IndexDescription, Sort, UpdateFilter } from 'mongodb';
import type { ApiKeyRecord, ApiKeyStore, NewApiKeyRecord, RotatedSecret } from '../../api-keys/api-key-store';
import type { ProjectionStore } from '../../projections/read-model-projection';
import type { MongoReadDb } from './mongo-read-db';
import { mongoProjectionStore } from './mongo-read-db';

/** One projected key; `position` is the global position of the last event applied to it. */
export type ApiKeyDoc = {
  _id: number;
  keyId: string;
  userId: number;
  name: string;
  secretHash: string;
  graceSecretHash: string | null;
  graceUntil: string | null;
  createdAt: string;
  expiresAt: string;
  revoked: boolean;
  position: number;
  /** Absent on a key projected before keys had a scope and a quota: not read-only, the service's quota. */
  readOnly?: boolean;
  ratePerHour?: number | null;
};

/**
 * lastUsedAt, written by the API processes, not by the projection; kept in the database of records
 * that outlast a generation (MongoReadDb.kept), so a blue/green rebuild leaves it as it was.
 */
export type ApiKeyUsageDoc = { _id: number; lastUsedAt: string };

export const API_KEYS_COLLECTION = 'api_keys';
export const API_KEY_USAGE_COLLECTION = 'api_key_usage';

export const API_KEY_INDEXES: readonly IndexDescription[] = [
  { key: { keyId: 1 }, name: 'by_key_id', unique: true },
  { key: { userId: 1, revoked: 1, createdAt: -1, _id: -1 }, name: 'by_user' },
];

export type MongoWrite<T> = { readonly filter: Filter<T>; readonly update: UpdateFilter<T>; readonly upsert: boolean };

/**
 * Every filter and update of this adapter, as pure functions: the contract test evaluates them
 * with mingo over the same fixtures as the SQLite adapter, since no MongoDB runs there.
 */
export const apiKeyQueries = {
  byKeyId: (keyId: string): Filter<ApiKeyDoc> => ({ keyId }),
  listForUser: (userId: number): { filter: Filter<ApiKeyDoc>; sort: Sort & Record<string, 1 | -1> } => ({
    filter: { userId, revoked: false },
    sort: { createdAt: -1, _id: -1 },
  }),
  usageOf: (ids: readonly number[]): Filter<ApiKeyUsageDoc> => ({ _id: { $in: [...ids] } }),
  /** Creation is a key's first event: inserted once, a replay finds the document and changes nothing. */
  created: (key: NewApiKeyRecord, position: bigint): MongoWrite<ApiKeyDoc> => ({
    filter: { _id: key.id },
    update: {
      $setOnInsert: {
        keyId: key.keyId,
        userId: key.userId,
        name: key.name,
        secretHash: key.secretHash,
        graceSecretHash: null,
        graceUntil: null,
        createdAt: key.createdAt,
        expiresAt: key.expiresAt,
        revoked: false,
        position: Number(position),
        readOnly: key.readOnly,
        ratePerHour: key.ratePerHour,
      },
    },
    upsert: true,
  }),
  revoked: (id: number, position: bigint): MongoWrite<ApiKeyDoc> => ({
    filter: { _id: id, position: { $lt: Number(position) } },
    update: { $set: { revoked: true, position: Number(position) } },
    upsert: false,
  }),
  rotated: (id: number, secret: RotatedSecret, position: bigint): MongoWrite<ApiKeyDoc> => ({
    filter: { _id: id, position: { $lt: Number(position) } },
    update: {
      $set: {
        secretHash: secret.secretHash,
        graceSecretHash: secret.graceSecretHash,
        graceUntil: secret.graceUntil,
        position: Number(position),
      },
    },
    upsert: false,
  }),
  recordUse: (id: number, at: string): MongoWrite<ApiKeyUsageDoc> => ({
    filter: { _id: id },
    update: { $max: { lastUsedAt: at } },
    upsert: true,
  }),
};

export const toApiKeyRecord = (doc: ApiKeyDoc, lastUsedAt: string | null): ApiKeyRecord => ({
  id: doc._id,
  keyId: doc.keyId,
  userId: doc.userId,
  name: doc.name,
  secretHash: doc.secretHash,
  graceSecretHash: doc.graceSecretHash,
  graceUntil: doc.graceUntil,
  createdAt: doc.createdAt,
  expiresAt: doc.expiresAt,
  revoked: doc.revoked,
  lastUsedAt,
  readOnly: doc.readOnly ?? false,
  ratePerHour: doc.ratePerHour ?? null,
});

/** The `apikeys` read model on MongoDB. Indexes are declared on open; every method waits for them. */
export class MongoApiKeyStore implements ApiKeyStore {
  readonly projectionStore: ProjectionStore;
  private readonly keys: Collection<ApiKeyDoc>;
  private readonly usage: Collection<ApiKeyUsageDoc>;
  private readonly ready: Promise<unknown>;

  constructor(private readonly readDb: MongoReadDb) {
    this.keys = readDb.db.collection<ApiKeyDoc>(API_KEYS_COLLECTION);
    this.usage = readDb.kept.collection<ApiKeyUsageDoc>(API_KEY_USAGE_COLLECTION);
    this.ready = Promise.all([this.keys.createIndexes([...API_KEY_INDEXES]), this.carryOverUsage()]);
    // A failure surfaces on the first call that awaits `ready`.
    this.ready.catch(() => undefined);
    this.projectionStore = mongoProjectionStore(readDb, [API_KEYS_COLLECTION]);
  }

  async byKeyId(keyId: string): Promise<ApiKeyRecord | null> {
    await this.ready;
    const doc = await this.keys.findOne(apiKeyQueries.byKeyId(keyId), this.readDb.readOptions());
    if (!doc) return null;
    const usage = await this.usage.findOne({ _id: doc._id }, this.readDb.readOptions());
    return toApiKeyRecord(doc, usage?.lastUsedAt ?? null);
  }

  async listForUser(userId: number): Promise<ApiKeyRecord[]> {
    await this.ready;
    const { filter, sort } = apiKeyQueries.listForUser(userId);
    const docs = await this.keys.find(filter, this.readDb.readOptions()).sort(sort).toArray();
    if (docs.length === 0) return [];
    const usage = await this.usage
      .find(apiKeyQueries.usageOf(docs.map((d) => d._id)), this.readDb.readOptions())
      .toArray();
    const lastUsed = new Map(usage.map((u) => [u._id, u.lastUsedAt]));
    return docs.map((doc) => toApiKeyRecord(doc, lastUsed.get(doc._id) ?? null));
  }

  async recordUse(id: number, at: string): Promise<void> {
    await this.ready;
    const { filter, update, upsert } = apiKeyQueries.recordUse(id, at);
    await this.usage.updateOne(filter, update, { upsert, ...this.readDb.sessionOption() });
  }

  async keyCreated(key: NewApiKeyRecord, position: bigint): Promise<void> {
    await this.write(apiKeyQueries.created(key, position));
  }

  async keyRevoked(id: number, position: bigint): Promise<void> {
    await this.write(apiKeyQueries.revoked(id, position));
  }

  async keyRotated(id: number, secret: RotatedSecret, position: bigint): Promise<void> {
    await this.write(apiKeyQueries.rotated(id, secret, position));
  }

  /**
   * Uses recorded before they were kept across generations lie in the generation's own
   * `api_key_usage`: carried into the kept records as the store opens (a later use wins), so an
   * upgrade loses none.
   */
  private async carryOverUsage(): Promise<void> {
    if (this.readDb.kept.databaseName === this.readDb.db.databaseName) return;
    const own = this.readDb.db.collection<ApiKeyUsageDoc>(API_KEY_USAGE_COLLECTION);
    for (const { _id, lastUsedAt } of await own.find({}, this.readDb.readOptions()).toArray()) {
      const { filter, update, upsert } = apiKeyQueries.recordUse(_id, lastUsedAt);
      await this.usage.updateOne(filter, update, { upsert });
    }
  }

  private async write({ filter, update, upsert }: MongoWrite<ApiKeyDoc>): Promise<void> {
    await this.ready;
    // Never a duplicate key, which would abort a transaction: creation upserts on _id alone, the rest never upsert.
    await this.keys.updateOne(filter, update, { upsert, ...this.readDb.sessionOption() });
  }
}

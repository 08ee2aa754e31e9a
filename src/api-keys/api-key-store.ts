import type { ProjectionStore } from '../projections/read-model-projection';

/**
 * One key as the `apikeys` read model folds it (src/api-keys/api-key-projection.ts): found by its
 * public keyId (authentication) or by its owner (listing). Holds argon2id hashes only, never a
 * secret. A revoked key keeps its document with `revoked` set (a tombstone), so replaying its
 * creation cannot bring it back.
 */
export type ApiKey = {
  readonly id: number;
  readonly keyId: string;
  readonly userId: number;
  readonly name: string;
  readonly secretHash: string;
  /** The previous secret's hash while it is in its grace after a rotation. */
  readonly graceSecretHash: string | null;
  readonly graceUntil: string | null;
  readonly createdAt: string;
  readonly expiresAt: string;
  readonly revoked: boolean;
  /** Refused every route that writes. */
  readonly readOnly: boolean;
  /** Its own hourly quota; null for a key created before quotas (the service's limit). */
  readonly ratePerHour: number | null;
};

/**
 * A key and its last use. `lastUsedAt` is not projected from events: the API process records it
 * (at most once a minute per key) through ApiKeyUsageStore, so a busy key costs no event per request.
 */
export type ApiKeyRecord = ApiKey & { readonly lastUsedAt: string | null };

/**
 * Where the API processes record each key's last use: among the records kept across generations
 * of the read models (SqliteReadDb.kept, MongoReadDb.kept, PostgresReadDb.keptSchema), so a
 * blue/green rebuild, which folds the keys anew from the log, leaves it as it was.
 */
export interface ApiKeyUsageStore {
  /** Records a use at `at` (ISO 8601); an earlier instant than the recorded one changes nothing. */
  recordUse(id: number, at: string): Promise<void>;
  /** The recorded last use of each of `ids` that has one, by id. */
  lastUsedAt(ids: readonly number[]): Promise<ReadonlyMap<number, string>>;
}

export interface ApiKeyStore {
  readonly projectionStore: ProjectionStore;
  /**
   * The key with this public keyId as authentication checks it at every request, revoked or not;
   * null when there is none. One read of the keys, none of their uses: no check needs them.
   */
  credential(keyId: string): Promise<ApiKey | null>;
  /** The key with this public keyId and its last use, revoked or not; null when there is none. */
  byKeyId(keyId: string): Promise<ApiKeyRecord | null>;
  /** The user's keys that are not revoked, newest first (createdAt, then id, descending), with their last uses. */
  listForUser(userId: number): Promise<ApiKeyRecord[]>;
  /** Records a use at `at` (ISO 8601); an earlier instant than the recorded one changes nothing. */
  recordUse(id: number, at: string): Promise<void>;
}

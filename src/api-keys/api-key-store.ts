import type { ProjectionStore } from '../projections/read-model-projection';

/**
 * The `apikeys` read model: one row per key, found by its public keyId (authentication) or by
 * its owner (listing). Holds argon2id hashes only, never a secret. A revoked key keeps its row
 * with `revoked` set (a tombstone), so replaying its creation cannot bring it back.
 *
 * `lastUsedAt` is not projected from events: the API process records it (at most once a minute
 * per key) beside the projected rows, so a busy key costs no event per request.
 */
export type ApiKeyRecord = {
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
  readonly lastUsedAt: string | null;
  /** Refused every route that writes. */
  readonly readOnly: boolean;
  /** Its own hourly quota; null for a key created before quotas (the service's limit). */
  readonly ratePerHour: number | null;
};

export type NewApiKeyRecord = Omit<ApiKeyRecord, 'graceSecretHash' | 'graceUntil' | 'revoked' | 'lastUsedAt'>;

export type RotatedSecret = {
  readonly secretHash: string;
  readonly graceSecretHash: string;
  readonly graceUntil: string;
};

export interface ApiKeyStore {
  /** The key with this public keyId, revoked or not; null when there is none. */
  byKeyId(keyId: string): Promise<ApiKeyRecord | null>;
  /** The user's keys that are not revoked, newest first (createdAt, then id, descending). */
  listForUser(userId: number): Promise<ApiKeyRecord[]>;
  /** Records a use at `at` (ISO 8601); an earlier instant than the recorded one changes nothing. */
  recordUse(id: number, at: string): Promise<void>;

  // Projection writes, each guarded by the event's global position.
  keyCreated(key: NewApiKeyRecord, position: bigint): Promise<void>;
  keyRevoked(id: number, position: bigint): Promise<void>;
  keyRotated(id: number, secret: RotatedSecret, position: bigint): Promise<void>;

  readonly projectionStore: ProjectionStore;
}

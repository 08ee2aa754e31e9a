import type { Event } from '../domain/event';

/**
 * All keys of one user live in one stream, so the active-key cap is checked against one revision
 * and two concurrent creations cannot both pass it (docs/api.md "Events").
 */
export const apiKeyStreamId = (userId: number): string => `apikeys-${userId}`;

/** Only the argon2id hash of a secret is ever recorded, never the secret. */
export type ApiKeyCreated = Event<
  'ApiKeyCreated',
  {
    readonly userId: number;
    readonly id: number;
    readonly keyId: string;
    readonly name: string;
    readonly secretHash: string;
    readonly createdAt: string;
    readonly expiresAt: string;
    /** A read-only key is refused every route that writes (docs/api.md "Scopes and quotas"). */
    readonly readOnly: boolean;
    /**
     * Its own hourly quota, never above the service's RATE_LIMIT_PER_HOUR; null for a key created
     * before keys had one: the service's limit.
     */
    readonly ratePerHour: number | null;
  }
>;

export type ApiKeyRevoked = Event<
  'ApiKeyRevoked',
  { readonly userId: number; readonly id: number; readonly revokedAt: string }
>;

/**
 * A new secret for the same key. The secret it replaces keeps working until
 * `previousSecretValidUntil` (the rotation instant when the grace is 0); a secret that was itself
 * still in its grace stops at once.
 */
export type ApiKeyRotated = Event<
  'ApiKeyRotated',
  {
    readonly userId: number;
    readonly id: number;
    readonly secretHash: string;
    readonly previousSecretHash: string;
    readonly previousSecretValidUntil: string;
    readonly rotatedAt: string;
  }
>;

export type ApiKeyEvent = ApiKeyCreated | ApiKeyRevoked | ApiKeyRotated;
/** An event as decided, before the command layer stamps its metadata. */
export type ApiKeyEventData = ApiKeyEvent extends infer E
  ? E extends ApiKeyEvent
    ? Pick<E, 'type' | 'data'>
    : never
  : never;

export const API_KEY_EVENT_TYPES: ReadonlySet<string> = new Set<ApiKeyEvent['type']>([
  'ApiKeyCreated',
  'ApiKeyRevoked',
  'ApiKeyRotated',
]);

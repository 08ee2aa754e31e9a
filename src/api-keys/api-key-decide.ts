import type { Viewer } from '../directory/viewer';
import type { Decider } from '../domain/decider';
import type { Command } from '../domain/event';
import { DomainError, conflict, forbidden, notFound } from '../domain/errors';
import type { ApiKeyCreated, ApiKeyEventData } from './api-key-events';

/**
 * The API-key aggregate: every key of one user (stream `apikeys-{userId}`), decided Emmett-style.
 * `decide(command, state)` is pure: the clock and the cap come in as the command's metadata,
 * random material and argon2 hashes in its data (the command layer makes them).
 */

export const MAX_LIFETIME_DAYS = 180;
export const DAY_MS = 86_400_000;
export const HOUR_MS = 3_600_000;

/** A key as created (its secret hash the latest one), and whether it was revoked since. */
export type KeyState = Omit<ApiKeyCreated['data'], 'userId'> & { readonly revoked: boolean };

export type ApiKeysState = { readonly userId: number | null; readonly keys: ReadonlyMap<number, KeyState> };

export const initialApiKeysState: ApiKeysState = { userId: null, keys: new Map() };

/**
 * `id` is allocated beforehand from the `apikey` id sequence; `name` is already trimmed and
 * checked (1–100 characters) by the request schema.
 */
export type CreateApiKey = Command<
  'CreateApiKey',
  Pick<ApiKeyCreated['data'], 'userId' | 'id' | 'keyId' | 'name' | 'secretHash' | 'readOnly'> & {
    readonly expiresInDays: number;
    /** Undefined: the service's limit. */
    readonly ratePerHour: number | undefined;
  },
  ApiKeyDecisionContext
>;
export type RevokeApiKey = Command<
  'RevokeApiKey',
  { readonly userId: number; readonly id: number },
  ApiKeyDecisionContext
>;
export type RotateApiKey = Command<
  'RotateApiKey',
  { readonly userId: number; readonly id: number; readonly secretHash: string; readonly graceHours: number },
  ApiKeyDecisionContext
>;
export type ApiKeyCommand = CreateApiKey | RevokeApiKey | RotateApiKey;

/** Every API-key command's metadata. */
export type ApiKeyDecisionContext = {
  /** ISO 8601, the decision's instant. */
  readonly now: string;
  /** The most keys neither revoked nor expired a user may hold (API_KEY_CAP). */
  readonly cap: number;
  /** The service's hourly quota of a key (RATE_LIMIT_PER_HOUR): no key gets more. */
  readonly ratePerHourLimit: number;
};

/**
 * The hourly quota a key gets: its own, within the service's limit as it is now (a limit lowered
 * after a key was created lowers that key too); a key from before quotas has the service's.
 */
export const quotaOf = (ratePerHour: number | null, ratePerHourLimit: number): number =>
  Math.min(ratePerHour ?? ratePerHourLimit, ratePerHourLimit);

export const isExpired = (key: Pick<KeyState, 'expiresAt'>, now: string): boolean =>
  Date.parse(key.expiresAt) <= Date.parse(now);
export const isActive = (key: KeyState, now: string): boolean => !key.revoked && !isExpired(key, now);

/** Creating a key needs an approved admin role in at least one community (docs/api.md "Authentication" 6). */
export function assertMayCreateApiKey(viewer: Viewer): void {
  for (const membership of viewer.communities.values()) {
    if (membership.role === 'admin' && membership.status === 'approved') return;
  }
  throw forbidden('creating an API key requires being an administrator of at least one community');
}

export function decide(command: ApiKeyCommand, state: ApiKeysState): ApiKeyEventData[] {
  switch (command.type) {
    case 'CreateApiKey':
      return create(command, state);
    case 'RevokeApiKey':
      return revoke(command, state);
    case 'RotateApiKey':
      return rotate(command, state);
    default: {
      const _exhaustive: never = command;
      throw new Error(`unknown command ${JSON.stringify(_exhaustive)}`);
    }
  }
}

function create({ data, facts: { now, cap, ratePerHourLimit } }: CreateApiKey, state: ApiKeysState): ApiKeyEventData[] {
  assertStreamOwner(state, data.userId);
  if (state.keys.has(data.id)) throw conflict(`API key ${data.id} already exists`);
  if (!Number.isInteger(data.expiresInDays) || data.expiresInDays < 1) {
    throw new DomainError('validation', 'expiresInDays must be a positive integer', [
      { field: 'expiresInDays', message: 'must be an integer from 1 to 180' },
    ]);
  }
  const ratePerHour = data.ratePerHour ?? ratePerHourLimit;
  if (!Number.isInteger(ratePerHour) || ratePerHour < 1 || ratePerHour > ratePerHourLimit) {
    throw new DomainError('validation', `ratePerHour must be an integer from 1 to ${ratePerHourLimit}`, [
      { field: 'ratePerHour', message: `must be an integer from 1 to ${ratePerHourLimit}, the service's limit` },
    ]);
  }
  const active = [...state.keys.values()].filter((key) => isActive(key, now)).length;
  if (active >= cap) throw conflict(`the cap of ${cap} active API keys is reached: revoke one first`);
  const days = Math.min(data.expiresInDays, MAX_LIFETIME_DAYS);
  return [
    {
      type: 'ApiKeyCreated',
      data: {
        userId: data.userId,
        id: data.id,
        keyId: data.keyId,
        name: data.name,
        secretHash: data.secretHash,
        createdAt: now,
        expiresAt: new Date(Date.parse(now) + days * DAY_MS).toISOString(),
        readOnly: data.readOnly,
        ratePerHour,
      },
    },
  ];
}

function revoke({ data, facts: { now } }: RevokeApiKey, state: ApiKeysState): ApiKeyEventData[] {
  // A revoked key is gone for its owner (no longer listed), so revoking it again is a 404 too.
  const key = state.keys.get(data.id);
  if (!key || key.revoked) throw notFound(`API key ${data.id} not found`);
  return [{ type: 'ApiKeyRevoked', data: { userId: data.userId, id: data.id, revokedAt: now } }];
}

function rotate({ data, facts: { now } }: RotateApiKey, state: ApiKeysState): ApiKeyEventData[] {
  const key = state.keys.get(data.id);
  if (!key || key.revoked) throw notFound(`API key ${data.id} not found`);
  if (isExpired(key, now)) throw conflict(`API key ${data.id} has expired: create a new key instead`);
  if (!Number.isInteger(data.graceHours) || data.graceHours < 0 || data.graceHours > 168) {
    throw new DomainError('validation', 'graceHours must be an integer from 0 to 168', [
      { field: 'graceHours', message: 'must be an integer from 0 to 168' },
    ]);
  }
  // The old secret never outlives the key itself.
  const graceEnd = Math.min(Date.parse(now) + data.graceHours * HOUR_MS, Date.parse(key.expiresAt));
  return [
    {
      type: 'ApiKeyRotated',
      data: {
        userId: data.userId,
        id: data.id,
        secretHash: data.secretHash,
        previousSecretHash: key.secretHash,
        previousSecretValidUntil: new Date(graceEnd).toISOString(),
        rotatedAt: now,
      },
    },
  ];
}

function assertStreamOwner(state: ApiKeysState, userId: number): void {
  if (state.userId !== null && state.userId !== userId)
    throw new Error(`stream of user ${state.userId} used for user ${userId}`);
}

export function evolve(state: ApiKeysState, event: ApiKeyEventData): ApiKeysState {
  const { type, data } = event;
  switch (type) {
    case 'ApiKeyCreated': {
      const { userId, ...created } = data;
      const keys = new Map(state.keys);
      keys.set(data.id, { ...created, revoked: false });
      return { userId, keys };
    }
    case 'ApiKeyRevoked':
      return withKey(state, data.id, (key) => ({ ...key, revoked: true }));
    case 'ApiKeyRotated':
      return withKey(state, data.id, (key) => ({ ...key, secretHash: data.secretHash }));
    default: {
      const _exhaustive: never = event;
      throw new Error(`unknown event ${JSON.stringify(_exhaustive)}`);
    }
  }
}

function withKey(state: ApiKeysState, id: number, change: (key: KeyState) => KeyState): ApiKeysState {
  const key = state.keys.get(id);
  if (!key) return state;
  const keys = new Map(state.keys);
  keys.set(id, change(key));
  return { ...state, keys };
}

export const apiKeyDecider: Decider<ApiKeysState, ApiKeyCommand, ApiKeyEventData> = {
  decide,
  evolve,
  initialState: () => initialApiKeysState,
};

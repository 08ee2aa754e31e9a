import type { Viewer } from '../access/viewer';
import type { Command } from '../event';
import { DomainError, conflict, forbidden, notFound } from '../errors';
import type { ApiKeyEventData } from './api-key-events';

/**
 * The API-key aggregate: every key of one user (stream `apikeys-{userId}`), decided Emmett-style.
 * `decide(command, state, context)` is pure: the clock and the cap come in through the context,
 * random material and argon2 hashes through the command (the command layer makes them).
 */

export const MAX_LIFETIME_DAYS = 180;
export const DAY_MS = 86_400_000;
export const HOUR_MS = 3_600_000;

export type KeyState = {
  readonly id: number;
  readonly keyId: string;
  readonly name: string;
  readonly secretHash: string;
  readonly createdAt: string;
  readonly expiresAt: string;
  readonly revoked: boolean;
};

export type ApiKeysState = { readonly userId: number | null; readonly keys: ReadonlyMap<number, KeyState> };

export const initialApiKeysState: ApiKeysState = { userId: null, keys: new Map() };

export type CreateApiKey = Command<
  'CreateApiKey',
  {
    readonly userId: number;
    /** Allocated beforehand from the `apikey` id sequence. */
    readonly id: number;
    readonly keyId: string;
    /** Already trimmed and checked (1–100 characters) by the request schema. */
    readonly name: string;
    readonly secretHash: string;
    readonly expiresInDays: number;
  }
>;
export type RevokeApiKey = Command<'RevokeApiKey', { readonly userId: number; readonly id: number }>;
export type RotateApiKey = Command<
  'RotateApiKey',
  { readonly userId: number; readonly id: number; readonly secretHash: string; readonly graceHours: number }
>;
export type ApiKeyCommand = CreateApiKey | RevokeApiKey | RotateApiKey;

export type ApiKeyDecisionContext = {
  /** ISO 8601, the decision's instant. */
  readonly now: string;
  /** The most keys neither revoked nor expired a user may hold (API_KEY_CAP). */
  readonly cap: number;
};

export const isExpired = (key: Pick<KeyState, 'expiresAt'>, now: string): boolean => Date.parse(key.expiresAt) <= Date.parse(now);
export const isActive = (key: KeyState, now: string): boolean => !key.revoked && !isExpired(key, now);

/** Creating a key needs an approved admin role in at least one community (SPEC.md "Authentication" 6). */
export function assertMayCreateApiKey(viewer: Viewer): void {
  for (const membership of viewer.communities.values()) {
    if (membership.role === 'admin' && membership.status === 'approved') return;
  }
  throw forbidden('creating an API key requires being an administrator of at least one community');
}

export function decide(command: ApiKeyCommand, state: ApiKeysState, context: ApiKeyDecisionContext): ApiKeyEventData[] {
  switch (command.type) {
    case 'CreateApiKey':
      return create(command, state, context);
    case 'RevokeApiKey':
      return revoke(command, state, context);
    case 'RotateApiKey':
      return rotate(command, state, context);
    default: {
      const _exhaustive: never = command;
      throw new Error(`unknown command ${JSON.stringify(_exhaustive)}`);
    }
  }
}

function create({ data }: CreateApiKey, state: ApiKeysState, { now, cap }: ApiKeyDecisionContext): ApiKeyEventData[] {
  assertStreamOwner(state, data.userId);
  if (state.keys.has(data.id)) throw conflict(`API key ${data.id} already exists`);
  if (!Number.isInteger(data.expiresInDays) || data.expiresInDays < 1) {
    throw new DomainError('validation', 'expiresInDays must be a positive integer', [
      { field: 'expiresInDays', message: 'must be an integer from 1 to 180' },
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
      },
    },
  ];
}

function revoke({ data }: RevokeApiKey, state: ApiKeysState, { now }: ApiKeyDecisionContext): ApiKeyEventData[] {
  // A revoked key is gone for its owner (no longer listed), so revoking it again is a 404 too.
  const key = state.keys.get(data.id);
  if (!key || key.revoked) throw notFound(`API key ${data.id} not found`);
  return [{ type: 'ApiKeyRevoked', data: { userId: data.userId, id: data.id, revokedAt: now } }];
}

function rotate({ data }: RotateApiKey, state: ApiKeysState, { now }: ApiKeyDecisionContext): ApiKeyEventData[] {
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
  if (state.userId !== null && state.userId !== userId) throw new Error(`stream of user ${state.userId} used for user ${userId}`);
}

export function evolve(state: ApiKeysState, event: ApiKeyEventData): ApiKeysState {
  const { type, data } = event;
  switch (type) {
    case 'ApiKeyCreated': {
      const keys = new Map(state.keys);
      keys.set(data.id, {
        id: data.id,
        keyId: data.keyId,
        name: data.name,
        secretHash: data.secretHash,
        createdAt: data.createdAt,
        expiresAt: data.expiresAt,
        revoked: false,
      });
      return { userId: data.userId, keys };
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

export const foldApiKeys = (events: readonly ApiKeyEventData[]): ApiKeysState => events.reduce(evolve, initialApiKeysState);

import type { ApiKeyCommandDeps } from './api-key-commands';
import { createApiKey, issuedKeyOfWrite, revokeApiKey, rotateApiKey } from './api-key-commands';
import type { ApiKeyStore } from './api-key-store';
import type { DirectoryFacts } from '../directory/directory-facts';
import type { EventStore } from '../ports/event-store';
import type { IdempotencyKeys } from '../ports/idempotency-keys';
import type { SecretHasher } from '../ports/secret-hasher';
import type { Cache } from '../ports/cache';
import { quotaOf } from './api-key-decide';
import { usageOf } from './api-key-usage';
import type { Settle } from '../api/route-declaration';
import { routeGroup, written } from '../api/route-declaration';
import {
  apiKeyListSchema,
  apiKeyPathParams,
  createApiKeyBody,
  issuedApiKeySchema,
  rotateApiKeyBody,
} from './api-key-schemas';

const DEFAULT_LIFETIME_DAYS = 90;
const DEFAULT_GRACE_HOURS = 24;

/** What the key routes read and write through; read at each request (a blue/green rebuild replaces the stores). */
export type ApiKeyContext = {
  readonly eventStore: EventStore;
  readonly directory: DirectoryFacts;
  readonly stores: { readonly apiKeys: ApiKeyStore };
  readonly clock: () => Date;
  readonly hasher: SecretHasher;
  readonly config: { readonly API_KEY_CAP: number; readonly RATE_LIMIT_PER_HOUR: number };
  /** Where the keys' usage is counted (src/api-keys/api-key-usage.ts). */
  readonly cache: Pick<Cache, 'counts'>;
  readonly idempotencyKeys: IdempotencyKeys;
  readonly settle: Settle;
};

type ApiKeyRouteDeps = { readonly ctx: ApiKeyContext; readonly commands: ApiKeyCommandDeps };

/** The key routes' deps: the context, and what the key commands need of it. */
export function apiKeyRouteDeps(ctx: ApiKeyContext): ApiKeyRouteDeps {
  const commands: ApiKeyCommandDeps = {
    eventStore: ctx.eventStore,
    // Read at each command: a blue/green rebuild replaces the read models being served.
    get directory() {
      return ctx.directory;
    },
    clock: ctx.clock,
    hasher: ctx.hasher,
    cap: ctx.config.API_KEY_CAP,
    ratePerHourLimit: ctx.config.RATE_LIMIT_PER_HOUR,
  };
  return { ctx, commands };
}

/**
 * Key management (docs/api.md POST/GET/DELETE /api/apikey, docs/api.md rotation): the user's own login only
 * (`access: 'ownLogin'`) — a call made with an API key or by an impersonation session is a 403 before its
 * body is even read.
 */
export const API_KEY_ROUTES = routeGroup<ApiKeyRouteDeps>(
  { tag: 'apikeys', access: 'ownLogin', settle: ({ ctx }) => ctx.settle },
  (apiKeys) => [
    apiKeys.post('/api/apikey', 'createApiKey', {
      writes: true,
      summary: 'Create an API key; the plaintext key is in this answer only',
      request: { body: createApiKeyBody },
      answers: { 200: { description: 'The new key, with its plaintext `key`', json: issuedApiKeySchema } },
      // 409: the cap of active keys is reached. 400 also for a ratePerHour above RATE_LIMIT_PER_HOUR.
      errors: [400, 401, 403, 409, 413, 415, 422],
      idempotent: {
        store: ({ ctx }) => ctx,
        resume:
          ({ commands }) =>
          async (write, { res, caller }) =>
            written(write.position, () => {
              res.setHeader('Cache-Control', 'no-store');
              return issuedKeyOfWrite(commands, caller.userId, write);
            }),
        // Only the secret's one-way hash is stored (in the key's events): a replay has no `key`.
        secretFields: ['key'],
      },
      handle:
        ({ commands }) =>
        async ({ body, res, request }) => {
          const result = await createApiKey(commands, request, {
            name: body.name,
            expiresInDays: body.expiresInDays ?? DEFAULT_LIFETIME_DAYS,
            readOnly: body.readOnly ?? false,
            ratePerHour: body.ratePerHour,
          });
          return written(result.position, () => {
            res.setHeader('Cache-Control', 'no-store');
            return result.answer;
          });
        },
    }),
    apiKeys.get('/api/apikey', 'listApiKeys', {
      summary: "The caller's keys that are not revoked, newest first; never a secret",
      answers: { 200: { description: 'A bare array, `[]` when there are none', json: apiKeyListSchema } },
      errors: [401, 403],
      handle:
        ({ ctx }) =>
        async ({ caller }) => {
          const nowMs = ctx.clock().getTime();
          const keys = await ctx.stores.apiKeys.listForUser(caller.userId);
          const usage = await usageOf(
            ctx.cache,
            keys.map((k) => k.id),
            nowMs,
          );
          return keys.map((k) => ({
            id: k.id,
            keyId: k.keyId,
            name: k.name,
            createdAt: k.createdAt,
            expiresAt: k.expiresAt,
            lastUsedAt: k.lastUsedAt,
            isExpired: Date.parse(k.expiresAt) <= nowMs,
            readOnly: k.readOnly,
            ratePerHour: quotaOf(k.ratePerHour, ctx.config.RATE_LIMIT_PER_HOUR),
            usage: usage.get(k.id) ?? { lastHour: 0, lastDay: 0 },
            // The secret a rotation replaced, while it still works (docs/api.md "API keys, in detail").
            ...(k.graceUntil !== null && Date.parse(k.graceUntil) > nowMs ? { previousValidUntil: k.graceUntil } : {}),
          }));
        },
    }),
    apiKeys.delete('/api/apikey/{id}', 'revokeApiKey', {
      writes: true,
      summary: 'Revoke a key at once and permanently, on every process',
      request: { params: apiKeyPathParams },
      answers: { 204: { description: 'Revoked; no body' } },
      errors: [400, 401, 403, 404],
      handle:
        ({ commands }) =>
        async ({ params, res, request }) => {
          const result = await revokeApiKey(commands, request, params.id);
          return written(result.position, () => void res.status(204).end());
        },
    }),
    apiKeys.post('/api/apikey/{id}/rotate', 'rotateApiKey', {
      writes: true,
      summary: 'A new secret for the same key; the previous one keeps working for `graceHours` (default 24)',
      request: { params: apiKeyPathParams, body: rotateApiKeyBody, bodyOptional: true },
      answers: {
        200: { description: 'The key with its new plaintext `key` (same id and keyId)', json: issuedApiKeySchema },
      },
      // 409: the key has expired.
      errors: [400, 401, 403, 404, 409, 413, 415, 422],
      idempotent: {
        store: ({ ctx }) => ctx,
        resume:
          ({ commands }) =>
          async (write, { params, res, caller }) =>
            written(write.position, () => {
              res.setHeader('Cache-Control', 'no-store');
              return issuedKeyOfWrite(commands, caller.userId, write, params.id);
            }),
        secretFields: ['key'],
      },
      handle:
        ({ commands }) =>
        async ({ params, body, res, request }) => {
          const result = await rotateApiKey(commands, request, params.id, body.graceHours ?? DEFAULT_GRACE_HOURS);
          return written(result.position, () => {
            res.setHeader('Cache-Control', 'no-store');
            return result.answer;
          });
        },
    }),
  ],
);

import type { Router } from 'express';
import type { ApiKeyCommandDeps } from './api-key-commands';
import { createApiKey, issuedKeyOfWrite, revokeApiKey, rotateApiKey } from './api-key-commands';
import type { SecretHasher } from '../infra/auth/secret-hasher';
import type { AppContext } from '../app/app-context';
import { callerOf, requestInfoOf } from '../api/middleware/authenticate';
import { readYourWrites } from '../api/read-your-writes';
import { routeGroup, routerOf } from '../api/route-declaration';
import { apiKeyListSchema, apiKeyPathParams, createApiKeyBody, issuedApiKeySchema, rotateApiKeyBody } from './api-key-schemas';

const DEFAULT_LIFETIME_DAYS = 90;
const DEFAULT_GRACE_HOURS = 24;

type ApiKeyRouteDeps = { readonly ctx: AppContext; readonly commands: ApiKeyCommandDeps };

/**
 * Key management (docs/api.md POST/GET/DELETE /api/apikey, docs/api.md rotation): interactive bearer
 * sessions only (`access: 'session'`) — a call made with an API key is a 403 before its body is even read.
 */
export const API_KEY_ROUTES = routeGroup<ApiKeyRouteDeps>({ tag: 'apikeys', access: 'session' }, (apiKeys) => [
  apiKeys.post('/api/apikey', 'createApiKey', {
    summary: 'Create an API key; the plaintext key is in this answer only',
    request: { body: createApiKeyBody },
    answers: { 200: { description: 'The new key, with its plaintext `key`', json: issuedApiKeySchema } },
    // 409: the cap of active keys is reached.
    errors: [400, 401, 403, 409, 413, 415, 422],
    idempotent: {
      store: ({ ctx }) => ctx,
      resume: ({ ctx, commands }) => async (write, { res }) => {
        await readYourWrites(ctx, write.position);
        res.setHeader('Cache-Control', 'no-store');
        return issuedKeyOfWrite(commands, callerOf(res).userId, write);
      },
      // Only the secret's one-way hash is stored (in the key's events): a replay has no `key`.
      secretFields: ['key'],
    },
    handle: ({ ctx, commands }) => async ({ body, res }) => {
      const result = await createApiKey(commands, requestInfoOf(res), {
        name: body.name,
        expiresInDays: body.expiresInDays ?? DEFAULT_LIFETIME_DAYS,
      });
      await readYourWrites(ctx, result.position);
      res.setHeader('Cache-Control', 'no-store');
      return result.answer;
    },
  }),
  apiKeys.get('/api/apikey', 'listApiKeys', {
    summary: "The caller's keys that are not revoked, newest first; never a secret",
    answers: { 200: { description: 'A bare array, `[]` when there are none', json: apiKeyListSchema } },
    errors: [401, 403],
    handle: ({ ctx }) => async ({ res }) => {
      const nowMs = ctx.clock().getTime();
      const keys = await ctx.apiKeys.listForUser(callerOf(res).userId);
      return keys.map((k) => ({
        id: k.id,
        keyId: k.keyId,
        name: k.name,
        createdAt: k.createdAt,
        expiresAt: k.expiresAt,
        lastUsedAt: k.lastUsedAt,
        isExpired: Date.parse(k.expiresAt) <= nowMs,
      }));
    },
  }),
  apiKeys.delete('/api/apikey/{id}', 'revokeApiKey', {
    summary: 'Revoke a key at once and permanently, on every process',
    request: { params: apiKeyPathParams },
    answers: { 204: { description: 'Revoked; no body' } },
    errors: [400, 401, 403, 404],
    handle: ({ ctx, commands }) => async ({ params, res }) => {
      const result = await revokeApiKey(commands, requestInfoOf(res), params.id);
      await readYourWrites(ctx, result.position);
      res.status(204).end();
    },
  }),
  apiKeys.post('/api/apikey/{id}/rotate', 'rotateApiKey', {
    summary: 'A new secret for the same key; the previous one keeps working for `graceHours` (default 24)',
    request: { params: apiKeyPathParams, body: rotateApiKeyBody, bodyOptional: true },
    answers: { 200: { description: 'The key with its new plaintext `key` (same id and keyId)', json: issuedApiKeySchema } },
    // 409: the key has expired.
    errors: [400, 401, 403, 404, 409, 413, 415, 422],
    idempotent: {
      store: ({ ctx }) => ctx,
      resume: ({ ctx, commands }) => async (write, { params, res }) => {
        await readYourWrites(ctx, write.position);
        res.setHeader('Cache-Control', 'no-store');
        return issuedKeyOfWrite(commands, callerOf(res).userId, write, params.id);
      },
      secretFields: ['key'],
    },
    handle: ({ ctx, commands }) => async ({ params, body, res }) => {
      const result = await rotateApiKey(commands, requestInfoOf(res), params.id, body.graceHours ?? DEFAULT_GRACE_HOURS);
      await readYourWrites(ctx, result.position);
      res.setHeader('Cache-Control', 'no-store');
      return result.answer;
    },
  }),
]);

export function apiKeyRoutes(ctx: AppContext, hasher: SecretHasher, router?: Router): Router {
  const commands: ApiKeyCommandDeps = {
    eventStore: ctx.eventStore,
    // Read at each command: a blue/green rebuild replaces the read models being served.
    get directory() {
      return ctx.directory;
    },
    clock: ctx.clock,
    hasher,
    cap: ctx.config.API_KEY_CAP,
  };
  return routerOf(API_KEY_ROUTES, { ctx, commands }, [], router);
}

import { Router } from 'express';
import type { ApiKeyCommandDeps } from '../../commands/api-key-commands';
import { createApiKey, revokeApiKey, rotateApiKey } from '../../commands/api-key-commands';
import { assertInteractiveSession } from '../../domain/auth/caller';
import type { SecretHasher } from '../../infra/auth/secret-hasher';
import type { AppContext } from '../app-context';
import { callerOf, requestInfoOf } from '../middleware/authenticate';
import { readYourWrites } from '../read-your-writes';
import { apiKeyPathParams, createApiKeyBody, rotateApiKeyBody } from '../schemas/apikey-schemas';
import { parseWith } from '../validation';

const DEFAULT_LIFETIME_DAYS = 90;
const DEFAULT_GRACE_HOURS = 24;

/**
 * Key management (SPEC.md POST/GET/DELETE /api/apikey, DESIGN.md rotation): interactive bearer
 * sessions only — a call made with an API key is a 403 before its body is even read.
 */
export function apiKeyRoutes(ctx: AppContext, hasher: SecretHasher): Router {
  const router = Router();
  const deps: ApiKeyCommandDeps = {
    eventStore: ctx.eventStore,
    directory: ctx.directory,
    clock: ctx.clock,
    hasher,
    cap: ctx.config.API_KEY_CAP,
  };

  router.post('/api/apikey', async (req, res) => {
    assertInteractiveSession(callerOf(res));
    const body = parseWith(createApiKeyBody, req.body);
    const result = await createApiKey(deps, requestInfoOf(res), {
      name: body.name,
      expiresInDays: body.expiresInDays ?? DEFAULT_LIFETIME_DAYS,
    });
    await readYourWrites(ctx, result.position);
    res.setHeader('Cache-Control', 'no-store');
    res.json(result.answer);
  });

  router.get('/api/apikey', async (_req, res) => {
    const caller = callerOf(res);
    assertInteractiveSession(caller);
    const nowMs = ctx.clock().getTime();
    const keys = await ctx.apiKeys.listForUser(caller.userId);
    res.json(
      keys.map((k) => ({
        id: k.id,
        keyId: k.keyId,
        name: k.name,
        createdAt: k.createdAt,
        expiresAt: k.expiresAt,
        lastUsedAt: k.lastUsedAt,
        isExpired: Date.parse(k.expiresAt) <= nowMs,
      })),
    );
  });

  router.delete('/api/apikey/:id', async (req, res) => {
    assertInteractiveSession(callerOf(res));
    const { id } = parseWith(apiKeyPathParams, req.params);
    const result = await revokeApiKey(deps, requestInfoOf(res), id);
    await readYourWrites(ctx, result.position);
    res.status(204).end();
  });

  router.post('/api/apikey/:id/rotate', async (req, res) => {
    assertInteractiveSession(callerOf(res));
    const { id } = parseWith(apiKeyPathParams, req.params);
    const body = parseWith(rotateApiKeyBody, req.body ?? {});
    const result = await rotateApiKey(deps, requestInfoOf(res), id, body.graceHours ?? DEFAULT_GRACE_HOURS);
    await readYourWrites(ctx, result.position);
    res.setHeader('Cache-Control', 'no-store');
    res.json(result.answer);
  });

  return router;
}

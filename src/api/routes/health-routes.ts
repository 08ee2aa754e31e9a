import { Router } from 'express';
import { pingReadDb } from '../../infra/read-models/read-db';
import type { AppContext } from '../app-context';

/** Liveness says the process answers; readiness checks every store and the projections. */
export function healthRoutes(ctx: AppContext): Router {
  const router = Router();
  router.get('/health/live', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/health/ready', async (_req, res) => {
    const probe = async (ping: () => Promise<void>) => {
      try {
        await ping();
        return 'ok';
      } catch {
        return 'unreachable';
      }
    };
    const checks = {
      eventStore: await probe(() => ctx.eventStore.ping()),
      readStore: await probe(() => pingReadDb(ctx.readDb)),
      // 'degraded': Redis is down and this process serves on its own cache and rate limits.
      cache: ctx.cache.health ? await ctx.cache.health() : await probe(() => ctx.cache.ping()),
      projections: ctx.readModels.problem ?? 'ok',
    };
    const ready = Object.values(checks).every((v) => v === 'ok' || v === 'degraded');
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not ready', checks });
  });
  return router;
}

import { Router } from 'express';
import type { AppContext } from '../app-context';
import { requireInternalToken } from '../middleware/internal-token';

/** Operator endpoints: metrics, and inspecting and rebuilding the read models. */
export function operatorRoutes(ctx: AppContext): Router {
  const router = Router();
  const guard = requireInternalToken(ctx.secrets.directoryToken);
  const describe = async () => ({
    generation: ctx.readSide.current.number,
    checkpoint: ctx.readModels.checkpoint?.toString() ?? null,
    ...(await ctx.readModels.digest()),
  });
  router.get('/internal/read-models/digest', guard, async (_req, res) => {
    res.json(await describe());
  });
  router.get('/internal/metrics', guard, async (_req, res) => {
    await ctx.readModels.reportMetrics(ctx.metrics);
    res.type(ctx.metrics.registry.contentType).send(await ctx.metrics.registry.metrics());
  });
  router.post('/internal/read-models/rebuild', guard, async (_req, res) => {
    await ctx.readSide.rebuild({ switchHere: true });
    res.json(await describe());
  });
  return router;
}

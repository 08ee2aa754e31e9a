import { Router } from 'express';
import { allProjections } from '../../projections/all-projections';
import { readModelDigest } from '../../projections/read-model-digest';
import type { AppContext } from '../app-context';
import { requireInternalToken } from '../middleware/internal-token';

/** Operator endpoints: metrics, and inspecting and rebuilding the read models of this process. */
export function operatorRoutes(ctx: AppContext): Router {
  const router = Router();
  const guard = requireInternalToken(ctx.secrets.directoryToken);
  router.get('/internal/read-models/digest', guard, async (_req, res) => {
    const { digest, counts } = await readModelDigest(ctx.readStore, allProjections);
    res.json({ checkpoint: ctx.runner.checkpoint?.toString() ?? null, digest, counts });
  });
  router.get('/internal/metrics', guard, async (_req, res) => {
    ctx.metrics.projectedPosition.set(Number(ctx.runner.checkpoint ?? 0n));
    res.type(ctx.metrics.registry.contentType).send(await ctx.metrics.registry.metrics());
  });
  router.post('/internal/read-models/rebuild', guard, async (_req, res) => {
    await ctx.runner.rebuild();
    const { digest, counts } = await readModelDigest(ctx.readStore, allProjections);
    res.json({ checkpoint: ctx.runner.checkpoint?.toString() ?? null, digest, counts });
  });
  return router;
}

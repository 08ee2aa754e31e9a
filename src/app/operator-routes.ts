import type { AppContext } from './app-context';
import { routeGroup } from '../api/route-declaration';
import { readModelDigestSchema } from '../api/response-schemas';

const describe = async (ctx: AppContext) => ({
  generation: ctx.readSide.current.number,
  checkpoint: ctx.readModels.checkpoint?.toString() ?? null,
  ...(await ctx.readModels.digest()),
});

/** Operator endpoints: metrics, and inspecting and rebuilding the read models. */
export const OPERATOR_ROUTES = routeGroup<AppContext>({ tag: 'internal', access: 'internal' }, (operator) => [
  operator.get('/internal/read-models/digest', 'getReadModelDigest', {
    summary: 'Fingerprint of the live read models (compare with `resources-cli digest`)',
    answers: { 200: { description: 'Checkpoint, digest and document counts', json: readModelDigestSchema } },
    errors: [401],
    handle: (ctx) => () => describe(ctx),
  }),
  operator.post('/internal/read-models/rebuild', 'rebuildReadModels', {
    summary: 'Project the whole event log again into the read models of this process',
    answers: { 200: { description: 'The read models after the rebuild', json: readModelDigestSchema } },
    // 409: another rebuild (this process's, another's, the CLI's) holds the rebuild lock.
    errors: [401, 409],
    handle: (ctx) => async () => {
      await ctx.readSide.rebuild({ switchHere: true });
      return describe(ctx);
    },
  }),
  operator.get('/internal/metrics', 'getMetrics', {
    summary: 'Prometheus metrics of this process',
    answers: {
      200: {
        description: 'Prometheus text exposition format',
        content: { 'text/plain': { schema: { type: 'string' } } },
      },
    },
    errors: [401],
    handle:
      (ctx) =>
      async ({ res }) => {
        await ctx.readModels.reportMetrics(ctx.metrics);
        res.type(ctx.metrics.registry.contentType).send(await ctx.metrics.registry.metrics());
      },
  }),
]);

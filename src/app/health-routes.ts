import { pingReadDb } from '../infra/read-db';
import type { AppContext } from './app-context';
import { VISIBILITY_READ_MODELS } from './read-model-list';
import { routeGroup } from '../api/route-declaration';
import { healthLiveSchema, healthReadySchema, healthStartedSchema } from '../api/response-schemas';

/**
 * Liveness says the process answers; the startup probe that it has caught up and serves (before,
 * src/app/starting.ts answers it 503); readiness checks every store and the projections, and turns
 * 503 once a SIGTERM came. Public.
 */
export const HEALTH_ROUTES = routeGroup<AppContext>({ tag: 'health', access: 'public' }, (health) => [
  health.get('/health/live', 'getLiveness', {
    summary: 'Liveness: the process answers',
    answers: { 200: { description: 'Alive', json: healthLiveSchema } },
    errors: [],
    handle: () => () => ({ status: 'ok' as const }),
  }),
  health.get('/health/started', 'getStartup', {
    summary: 'Startup probe: the read models caught up and the API is served (503 `starting` before)',
    answers: {
      200: { description: 'Started', json: healthStartedSchema },
      503: { description: 'Still catching up: answered while the process starts', json: healthStartedSchema },
    },
    errors: [],
    handle: () => () => ({ status: 'started' as const }),
  }),
  health.get('/health/ready', 'getReadiness', {
    summary: 'Readiness: event store, read store, cache and projections',
    answers: {
      200: { description: 'Ready', json: healthReadySchema },
      503: { description: 'Not ready: `checks` says which part', json: healthReadySchema },
    },
    errors: [],
    handle:
      (ctx) =>
      async ({ res }) => {
        const probe = async (ping: () => Promise<void>) => {
          try {
            await ping();
            return 'ok' as const;
          } catch {
            return 'unreachable' as const;
          }
        };
        const parkedCheck = async () => {
          try {
            const parked = await ctx.readSide.parked();
            const named = VISIBILITY_READ_MODELS.filter((name) => parked[name].length > 0);
            return named.length === 0
              ? 'ok'
              : `parked events in ${named.map((name) => `${name} (${parked[name].length})`).join(', ')}`;
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
          parkedEvents: await parkedCheck(),
          process: ctx.lifecycle.draining ? ('draining' as const) : ('ok' as const),
        };
        const ready = Object.values(checks).every((v) => v === 'ok' || v === 'degraded');
        res.status(ready ? 200 : 503);
        return { status: ready ? ('ready' as const) : ('not ready' as const), checks };
      },
  }),
]);

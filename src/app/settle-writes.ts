import type { Settle } from '../api/route-declaration';
import { stampOf } from '../commands/request-info';
import type { WriteReaction } from '../commands/write-reaction';
import { systemActor } from '../domain/event';
import type { Metrics } from '../observability/metrics';
import { inSpan } from '../observability/tracing';
import type { ReadModels } from '../projections/read-models';

type SettleDeps = {
  readonly readModels: ReadModels;
  readonly config: { readonly PROJECTION_WAIT_MS: number };
  readonly metrics: Metrics;
  readonly clock: () => Date;
};

/**
 * How every write is answered (docs/api.md "Events"): once every read model shows it, within
 * PROJECTION_WAIT_MS (the wait is the `write_visible_seconds` metric), and once each reaction to it
 * has run and the read models show what the reactions appended, so the answer and any read after
 * it show the whole change. `deps` is read at each write: a blue/green rebuild replaces the read models.
 */
export function settleWrites(deps: SettleDeps, reactions: readonly WriteReaction[]): Settle {
  return async (write, request, correlationId) => {
    const started = performance.now();
    await inSpan('read models show the write', { position: Number(write.position) }, () =>
      deps.readModels.waitFor(write.position, deps.config.PROJECTION_WAIT_MS),
    );
    deps.metrics.writeVisible.observe((performance.now() - started) / 1000);
    if (reactions.length === 0) return;
    const now = deps.clock().toISOString();
    const stamp = request ? stampOf(request, now) : { actor: systemActor, correlationId, at: now };
    let last: bigint | undefined;
    for (const react of reactions) {
      const position = await react(write, stamp);
      if (position !== undefined && (last === undefined || position > last)) last = position;
    }
    if (last !== undefined) await deps.readModels.waitFor(last, deps.config.PROJECTION_WAIT_MS);
  };
}

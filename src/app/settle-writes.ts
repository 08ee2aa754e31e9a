import type { Settle } from '../api/route-declaration';
import { stampOf } from '../commands/request-info';
import type { WriteReaction } from '../commands/write-reaction';
import { systemActor } from '../domain/event';
import type { Metrics } from '../observability/metrics';
import { inSpan } from '../observability/tracing';
import type { ReadModels } from '../projections/read-models';
import { ReadModelStoppedError } from '../projections/read-position';
import { DomainError } from '../domain/errors';

type SettleDeps = {
  /** The read models of the generation served now. */
  readonly readModels: ReadModels;
  readonly readSide: { served(): Promise<void> | undefined };
  readonly config: { readonly PROJECTION_WAIT_MS: number };
  readonly metrics: Metrics;
  readonly clock: () => Date;
};

/**
 * Waits until the read models served show `position`, in the generation the shared pointer names
 * once they do: a write answered from one that a rebuild has just replaced would be missing from
 * the next read of a process already serving the new one. A generation replaced while the write
 * waits lets it go, and it waits for the new one; 503 once `timeoutMs` has passed.
 */
async function untilServedShow(deps: SettleDeps, position: bigint, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const readModels = deps.readModels;
    try {
      await readModels.waitFor(position, Math.max(1, deadline - performance.now()));
    } catch (error) {
      if (!(error instanceof ReadModelStoppedError)) throw error;
      // Stopped and not replaced: the process is closing.
      if (deps.readModels === readModels)
        throw new DomainError('unavailable', 'the read models stopped before they showed the change');
      continue;
    }
    await deps.readSide.served();
    if (deps.readModels === readModels) return;
  }
}

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
      untilServedShow(deps, write.position, deps.config.PROJECTION_WAIT_MS),
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
    if (last !== undefined) await untilServedShow(deps, last, deps.config.PROJECTION_WAIT_MS);
  };
}

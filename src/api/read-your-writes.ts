import type { AppContext } from '../app/app-context';

/**
 * A write answers only once the read models show it (docs/api.md "Events"), within
 * PROJECTION_WAIT_MS; `undefined` means the command appended nothing, so there is nothing to wait for.
 */
export async function readYourWrites(ctx: AppContext, position: bigint | undefined): Promise<void> {
  if (position === undefined) return;
  const started = performance.now();
  await ctx.readModels.waitFor(position, ctx.config.PROJECTION_WAIT_MS);
  ctx.metrics.writeVisible.observe((performance.now() - started) / 1000);
}

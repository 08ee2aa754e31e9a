import { inMemoryScratchReadDb, type ScratchReadDb } from '../infra/read-db';
import { cliLogger } from './cli-logger';
import type { EventStore } from '../ports/event-store';
import { ReadModels } from '../projections/read-models';
import { openReadModels } from '../app/read-model-list';

export type LogDigest = {
  readonly checkpoint: string | null;
  readonly digest: string;
  readonly counts: Record<string, number>;
};

/**
 * The read-model digest of a log projected afresh into `scratch`, in memory by default (what
 * `resources-cli digest` prints, and what GET /internal/read-models/digest answers once the service
 * has caught up with that log). `scratch` is dropped after.
 */
export async function projectedDigest(
  store: EventStore,
  scratch: ScratchReadDb = inMemoryScratchReadDb(),
): Promise<LogDigest> {
  try {
    const readModels = new ReadModels(store, (await openReadModels(scratch.readDb)).projections, cliLogger());
    try {
      await readModels.start();
      return { checkpoint: readModels.checkpoint?.toString() ?? null, ...(await readModels.digest()) };
    } finally {
      await readModels.stop();
    }
  } finally {
    await scratch.dispose();
  }
}

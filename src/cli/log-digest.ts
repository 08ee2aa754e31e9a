import { closeReadDb, type ReadDb } from '../infra/read-db';
import { SqliteReadDb } from '../infra/sqlite/sqlite-read-db';
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
 * The read-model digest of a log projected afresh, in memory (what `resources-cli digest` prints,
 * and what GET /internal/read-models/digest answers once the service has caught up with that log).
 */
export async function projectedDigest(store: EventStore): Promise<LogDigest> {
  const readDb: ReadDb = { kind: 'sqlite', sqlite: SqliteReadDb.open(':memory:') };
  const readModels = new ReadModels(store, (await openReadModels(readDb)).projections, cliLogger());
  try {
    await readModels.start();
    return { checkpoint: readModels.checkpoint?.toString() ?? null, ...(await readModels.digest()) };
  } finally {
    await readModels.stop();
    await closeReadDb(readDb);
  }
}

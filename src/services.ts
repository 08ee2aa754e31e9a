import path from 'node:path';
import type { AppContext } from './api/app-context';
import type { Config } from './config';
import { SessionVerifier } from './infra/auth/session-verifier';
import type { Cache, RateLimiter } from './infra/cache/cache';
import { MemoryCache } from './infra/cache/memory-cache';
import { RedisCache } from './infra/cache/redis-cache';
import { resolveSecrets } from './infra/dev-secrets';
import { EsdbEventStore } from './infra/event-store/esdb-event-store';
import { meteredEventStore } from './infra/event-store/metered-event-store';
import type { EventStore } from './infra/event-store/event-store';
import { SqliteEventStore } from './infra/event-store/sqlite-event-store';
import type { Logger } from './infra/logger';
import { Metrics } from './infra/metrics';
import { MemoryReadStore } from './infra/read-store/memory-read-store';
import { MongoReadStore } from './infra/read-store/mongo-read-store';
import type { ReadStore } from './infra/read-store/read-store';
import { allProjections } from './projections/all-projections';
import { DirectoryReader } from './projections/directory/directory-reader';
import { ProjectionRunner } from './projections/projection-runner';
import type { ReadModelProjection } from './projections/read-model-projection';
import { ReadModels } from './projections/read-models';
import { MongoReadDb } from './infra/read-models/mongo-read-db';
import { SqliteReadDb } from './infra/read-models/sqlite-read-db';
import { DiskFileStore } from './infra/files/disk-file-store';
import type { FileStore } from './infra/files/file-store';
import { GridFsFileStore } from './infra/files/gridfs-file-store';
import { MongoFilesStore } from './infra/read-models/mongo-files-store';
import { SqliteFilesStore } from './infra/read-models/sqlite-files-store';
import { filesProjection } from './projections/files/files-projection';
import type { FilesStore } from './projections/files/files-store';
import { startOrphanSweeper } from './commands/file-lifecycle';

export type Services = AppContext & { close(): Promise<void> };

/** Production adapters where their URL is set, the embedded ones otherwise (DESIGN.md "Shape"). */
export function openEventStore(config: Config): EventStore {
  return config.EVENTSTORE_URL
    ? EsdbEventStore.connect(config.EVENTSTORE_URL)
    : SqliteEventStore.open(path.join(config.DATA_DIR, 'events.sqlite'));
}

export async function openReadStore(config: Config): Promise<ReadStore> {
  return config.MONGODB_URL ? MongoReadStore.connect(config.MONGODB_URL) : new MemoryReadStore();
}

/** Where the read models live: MongoDB where its URL is set, a SQLite file under DATA_DIR otherwise. */
export type ReadDb = { readonly kind: 'sqlite'; readonly sqlite: SqliteReadDb } | { readonly kind: 'mongo'; readonly mongo: MongoReadDb };

export async function openReadDb(config: Config): Promise<ReadDb> {
  return config.MONGODB_URL
    ? { kind: 'mongo', mongo: await MongoReadDb.connect(config.MONGODB_URL) }
    : { kind: 'sqlite', sqlite: SqliteReadDb.open(path.join(config.DATA_DIR, 'read-models.sqlite')) };
}

async function closeReadDb(readDb: ReadDb): Promise<void> {
  if (readDb.kind === 'sqlite') readDb.sqlite.close();
  else await readDb.mongo.close();
}

/** Every read model's store, opened on the read database, and the projections that feed them. */
export async function openReadModelStores(readDb: ReadDb): Promise<{ projections: ReadModelProjection[]; files: FilesStore }> {
  let files: FilesStore;
  if (readDb.kind === 'sqlite') files = new SqliteFilesStore(readDb.sqlite);
  else {
    const mongoFiles = new MongoFilesStore(readDb.mongo);
    await mongoFiles.ensureIndexes();
    files = mongoFiles;
  }
  return { projections: [filesProjection(files)], files };
}

/** Uploaded files: GridFS where MONGODB_URL is set, DATA_DIR/files otherwise. */
export async function openFileStore(config: Config): Promise<FileStore> {
  return config.MONGODB_URL ? GridFsFileStore.connect(config.MONGODB_URL) : new DiskFileStore(path.join(config.DATA_DIR, 'files'));
}

function openCache(config: Config): Cache & RateLimiter {
  return config.REDIS_URL ? RedisCache.connect(config.REDIS_URL) : new MemoryCache();
}

/** The composition root: opens every adapter, then projects the log before anything is served. */
export async function createServices(config: Config, logger: Logger, clock: () => Date = () => new Date()): Promise<Services> {
  const secrets = resolveSecrets(config);
  const metrics = new Metrics();
  const eventStore = meteredEventStore(openEventStore(config), metrics);
  const readStore = await openReadStore(config);
  const cache = openCache(config);
  const runner = new ProjectionRunner(eventStore, readStore, allProjections, logger);
  await runner.start();
  const readDb = await openReadDb(config);
  const stores = await openReadModelStores(readDb);
  const fileStore = await openFileStore(config);
  const readModels = new ReadModels(eventStore, stores.projections, logger);
  await readModels.start();
  const services: AppContext = {
    config,
    logger,
    secrets,
    eventStore,
    readStore,
    cache,
    runner,
    readModels,
    directory: new DirectoryReader(readStore),
    sessions: new SessionVerifier({ secret: secrets.jwtSecret, jwksUrl: secrets.jwksUrl }),
    clock,
    metrics,
    fileStore,
    files: stores.files,
  };
  const sweeper = startOrphanSweeper(services);
  return {
    ...services,
    async close() {
      sweeper.stop();
      await Promise.all([runner.stop(), readModels.stop()]);
      await Promise.allSettled([eventStore.close(), readStore.close(), cache.close(), closeReadDb(readDb), fileStore.close()]);
    },
  };
}

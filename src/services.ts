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
import { ResilientCache } from './infra/cache/resilient-cache';
import { MongoApiKeyStore } from './infra/read-models/mongo-apikey-store';
import { SqliteApiKeyStore } from './infra/read-models/sqlite-apikey-store';
import { apiKeyProjection } from './projections/apikeys/apikey-projection';
import type { ApiKeyStore } from './projections/apikeys/apikey-store';

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
export function openReadModelStores(readDb: ReadDb): { projections: ReadModelProjection[]; apiKeys: ApiKeyStore } {
  const apiKeys = readDb.kind === 'sqlite' ? new SqliteApiKeyStore(readDb.sqlite) : new MongoApiKeyStore(readDb.mongo);
  return { projections: [apiKeyProjection(apiKeys)], apiKeys };
}

/** Redis behind the outage policy of ResilientCache, or the in-process cache. */
function openCache(config: Config, logger: Logger): Cache & RateLimiter {
  return config.REDIS_URL
    ? new ResilientCache(RedisCache.connect(config.REDIS_URL, config.REDIS_KEY_PREFIX), logger)
    : new MemoryCache();
}

/** The composition root: opens every adapter, then projects the log before anything is served. */
export async function createServices(config: Config, logger: Logger, clock: () => Date = () => new Date()): Promise<Services> {
  const secrets = resolveSecrets(config);
  const metrics = new Metrics();
  const eventStore = meteredEventStore(openEventStore(config), metrics);
  const readStore = await openReadStore(config);
  const cache = openCache(config, logger);
  const runner = new ProjectionRunner(eventStore, readStore, allProjections, logger);
  await runner.start();
  const readDb = await openReadDb(config);
  const stores = openReadModelStores(readDb);
  const readModels = new ReadModels(eventStore, stores.projections, logger);
  await readModels.start();
  return {
    config,
    logger,
    secrets,
    eventStore,
    readStore,
    cache,
    runner,
    readModels,
    apiKeys: stores.apiKeys,
    directory: new DirectoryReader(readStore),
    sessions: new SessionVerifier({ secret: secrets.jwtSecret, jwksUrl: secrets.jwksUrl }),
    clock,
    metrics,
    async close() {
      await Promise.all([runner.stop(), readModels.stop()]);
      await Promise.allSettled([eventStore.close(), readStore.close(), cache.close(), closeReadDb(readDb)]);
    },
  };
}

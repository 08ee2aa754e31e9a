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
  return {
    config,
    logger,
    secrets,
    eventStore,
    readStore,
    cache,
    runner,
    directory: new DirectoryReader(readStore),
    sessions: new SessionVerifier({
      secret: secrets.jwtSecret,
      jwksUrl: secrets.jwksUrl,
      audience: config.AUTH_JWT_AUDIENCE,
      issuer: config.AUTH_JWT_ISSUER,
      clock,
    }),
    clock,
    metrics,
    async close() {
      await runner.stop();
      await Promise.allSettled([eventStore.close(), readStore.close(), cache.close()]);
    },
  };
}

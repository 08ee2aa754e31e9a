import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import type { AppContext } from './api/app-context';
import type { Config } from './config';
import { SessionVerifier } from './infra/auth/session-verifier';
import { VerifiedTokenCache } from './infra/auth/verified-token-cache';
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
import { MongoApplicationStore } from './infra/read-models/mongo-application-store';
import { MongoDirectoryStore } from './infra/read-models/mongo-directory-store';
import { MongoResourceViewStore } from './infra/read-models/mongo-resource-view-store';
import { SqliteApplicationStore } from './infra/read-models/sqlite-application-store';
import { SqliteDirectoryStore } from './infra/read-models/sqlite-directory-store';
import { closeReadDb, leaseStoreOf, openReadDb, type ReadDb } from './infra/read-models/read-db';
import { SqliteResourceViewStore } from './infra/read-models/sqlite-resource-view-store';
import { applicationProjection } from './projections/applications/application-projection';
import type { ApplicationStore } from './projections/applications/application-store';
import { directoryProjection } from './projections/directory/directory-projection';
import { DirectoryReader } from './projections/directory/directory-reader';
import type { DirectoryStore } from './projections/directory/directory-store';
import type { ReadModelProjection } from './projections/read-model-projection';
import { ReadModels } from './projections/read-models';
import { resourceProjection } from './projections/resources/resource-projection';
import type { ResourceViewStore } from './projections/resources/resource-view-store';

export type Services = AppContext & { close(): Promise<void> };

/**
 * A projector that stops renewing loses its projections after LEASE_TTL_MS; standbys look every
 * LEASE_RETRY_MS, so a takeover happens within their sum.
 */
const LEASE_TTL_MS = 3000;
const LEASE_RETRY_MS = 1000;

/** Production adapters where their URL is set, the embedded ones otherwise (DESIGN.md "Shape"). */
export function openEventStore(config: Config): EventStore {
  return config.EVENTSTORE_URL
    ? EsdbEventStore.connect(config.EVENTSTORE_URL)
    : SqliteEventStore.open(path.join(config.DATA_DIR, 'events.sqlite'));
}

export type ReadModelStores = {
  readonly directory: DirectoryStore;
  readonly resources: ResourceViewStore;
  readonly applications: ApplicationStore;
  readonly projections: ReadModelProjection[];
};

/** Every read model's store, opened on the read database, and the projections that feed them. */
export async function openReadModelStores(readDb: ReadDb): Promise<ReadModelStores> {
  const stores =
    readDb.kind === 'sqlite'
      ? {
          directory: new SqliteDirectoryStore(readDb.sqlite),
          resources: new SqliteResourceViewStore(readDb.sqlite),
          applications: new SqliteApplicationStore(readDb.sqlite),
        }
      : {
          directory: await MongoDirectoryStore.open(readDb.mongo),
          resources: await MongoResourceViewStore.open(readDb.mongo),
          applications: await MongoApplicationStore.open(readDb.mongo),
        };
  return {
    ...stores,
    projections: [directoryProjection(stores.directory), resourceProjection(stores.resources), applicationProjection(stores.applications)],
  };
}

function openCache(config: Config): Cache & RateLimiter {
  return config.REDIS_URL ? RedisCache.connect(config.REDIS_URL) : new MemoryCache();
}

/** The composition root: opens every adapter, then catches the read models up before anything is served. */
export async function createServices(config: Config, logger: Logger, clock: () => Date = () => new Date()): Promise<Services> {
  const secrets = resolveSecrets(config);
  const metrics = new Metrics();
  const eventStore = meteredEventStore(openEventStore(config), metrics);
  const readDb = await openReadDb(config);
  const stores = await openReadModelStores(readDb);
  const cache = openCache(config);
  const readModels = new ReadModels(eventStore, stores.projections, logger, {
    role: config.ROLE === 'api' ? 'follow' : 'project',
    lease: {
      store: leaseStoreOf(readDb),
      holder: `${os.hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`,
      ttlMs: LEASE_TTL_MS,
      retryMs: LEASE_RETRY_MS,
      now: () => Date.now(),
    },
  });
  await readModels.start();
  return {
    config,
    logger,
    secrets,
    eventStore,
    readDb,
    readModels,
    cache,
    directory: new DirectoryReader(stores.directory),
    resources: stores.resources,
    applications: stores.applications,
    sessions: new VerifiedTokenCache(new SessionVerifier({ secret: secrets.jwtSecret, jwksUrl: secrets.jwksUrl }), clock),
    clock,
    metrics,
    async close() {
      await readModels.stop();
      await Promise.allSettled([eventStore.close(), cache.close(), closeReadDb(readDb)]);
    },
  };
}

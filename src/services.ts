import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import type { AppContext } from './api/app-context';
import type { Config } from './config';
import { SessionVerifier } from './infra/auth/session-verifier';
import { VerifiedTokenCache } from './infra/auth/verified-token-cache';
import type { Cache, RateLimiter } from './infra/cache/cache';
import { MemoryCache } from './infra/cache/memory-cache';
import type { RedisCache } from './infra/cache/redis-cache';
import { resolveSecrets } from './infra/dev-secrets';
import type { EsdbEventStore } from './infra/event-store/esdb-event-store';
import { meteredEventStore } from './infra/event-store/metered-event-store';
import type { EventStore } from './infra/event-store/event-store';
import { SqliteEventStore } from './infra/event-store/sqlite-event-store';
import { versionedEventStore } from './infra/event-store/versioned-event-store';
import { hasLogIntegrity } from './infra/event-store/log-integrity';
import type { IdempotencyKeys } from './infra/event-store/idempotency-keys';
import type { Logger } from './infra/logger';
import { Metrics } from './infra/metrics';
import { answerMemoOf, followPollMsOf, leaseStoreOf, leaseTimingOf } from './infra/read-models/read-db';
import { readGenerations } from './infra/read-models/read-generations';
import { ReadSide } from './read-side';
import { isTransientStoreError } from './projections/transient-error';

export { openReadModelStores, type ReadModelStores } from './read-model-stores';
import { ResilientCache } from './infra/cache/resilient-cache';
import { DiskFileStore } from './infra/files/disk-file-store';
import type { FileStore } from './infra/files/file-store';
import type { GridFsFileStore } from './infra/files/gridfs-file-store';
import { startOrphanSweeper } from './commands/file-lifecycle';

export type Services = AppContext & { close(): Promise<void> };

/*
 * The production adapters are loaded only where their URL is set: their drivers (MongoDB,
 * EventStoreDB's gRPC client, ioredis) cost about 60 MB of memory and 0.4 s of start-up together,
 * which the embedded default never needs.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
const esdbAdapter = () => (require('./infra/event-store/esdb-event-store') as { EsdbEventStore: typeof EsdbEventStore }).EsdbEventStore;
const redisAdapter = () => (require('./infra/cache/redis-cache') as { RedisCache: typeof RedisCache }).RedisCache;
const gridFsAdapter = () => (require('./infra/files/gridfs-file-store') as { GridFsFileStore: typeof GridFsFileStore }).GridFsFileStore;
/* eslint-enable @typescript-eslint/no-require-imports */

/** Production adapters where their URL is set, the embedded ones otherwise (docs/api.md "Shape"). */
export function openEventStore(config: Config): EventStore & IdempotencyKeys {
  // Versions stamped on append, old events upcast on read: one place for every adapter (issue 27).
  const url = config.EVENTSTORE_URL;
  const file = path.join(config.DATA_DIR, 'events.sqlite');
  return versionedEventStore(url ? esdbAdapter().connect(url) : SqliteEventStore.open(file));
}

/** Redis behind the outage policy of ResilientCache, or the in-process cache. */
function openCache(config: Config, logger: Logger): Cache & RateLimiter {
  return config.REDIS_URL
    ? new ResilientCache(redisAdapter().connect(config.REDIS_URL, config.REDIS_KEY_PREFIX), logger)
    : new MemoryCache();
}

/** Uploaded files: GridFS where MONGODB_URL is set, DATA_DIR/files otherwise. */
export async function openFileStore(config: Config): Promise<FileStore> {
  return config.MONGODB_URL ? gridFsAdapter().connect(config.MONGODB_URL, undefined, config.MONGO_QUERY_TIMEOUT_MS) : new DiskFileStore(path.join(config.DATA_DIR, 'files'));
}

/** The composition root: opens every adapter, then catches the read models up before anything is served. */
export async function createServices(config: Config, logger: Logger, clock: () => Date = () => new Date()): Promise<Services> {
  const secrets = resolveSecrets(config);
  const metrics = new Metrics();
  const log = openEventStore(config);
  const eventStore = meteredEventStore(log, metrics);
  const cache = openCache(config, logger);
  const holder = `${os.hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const readSide = await ReadSide.open({
    config,
    events: eventStore,
    logger,
    generations: readGenerations(config),
    runners: (readDb) => ({
      role: config.ROLE === 'api' ? 'follow' : 'project',
      // A network fault or an election retries with backoff; only a bug stops a projection.
      isTransient: isTransientStoreError,
      // The lease's TTL and renewal follow the store (leaseTimingOf): 15 s across machines on MongoDB.
      lease: { store: leaseStoreOf(readDb), holder, ...leaseTimingOf(readDb), now: () => Date.now() },
      followPollMs: followPollMsOf(readDb),
    }),
  });
  const fileStore = await openFileStore(config);
  const services: Services = {
    config,
    logger,
    secrets,
    eventStore,
    // Kept in the event store itself: a request's write and its key are recorded in one append.
    idempotencyKeys: log,
    logIntegrity: hasLogIntegrity(log) ? log : undefined,
    readSide,
    // The read models of the generation being served: a blue/green rebuild switches them.
    get readDb() {
      return readSide.current.readDb;
    },
    get answers() {
      return answerMemoOf(readSide.current.readDb);
    },
    get readModels() {
      return readSide.current.readModels;
    },
    get directory() {
      return readSide.current.directory;
    },
    get resources() {
      return readSide.current.stores.resources;
    },
    get applications() {
      return readSide.current.stores.applications;
    },
    cache,
    get apiKeys() {
      return readSide.current.stores.apiKeys;
    },
    sessions: new VerifiedTokenCache(
      new SessionVerifier({
        secret: secrets.jwtSecret,
        jwksUrl: secrets.jwksUrl,
        audience: config.AUTH_JWT_AUDIENCE,
        issuer: config.AUTH_JWT_ISSUER,
        clock,
      }),
      clock,
    ),
    clock,
    metrics,
    fileStore,
    get files() {
      return readSide.current.stores.files;
    },
    async close() {
      sweeper.stop();
      await readSide.close();
      await Promise.allSettled([eventStore.close(), cache.close(), fileStore.close()]);
    },
  };
  const sweeper = startOrphanSweeper(services);
  return services;
}

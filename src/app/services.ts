import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import type { AppContext } from './app-context';
import type { Config } from '../config/config';
import { SessionVerifier } from '../infra/auth/session-verifier';
import { VerifiedTokenCache } from '../infra/auth/verified-token-cache';
import type { Cache, RateLimiter } from '../ports/cache';
import { MemoryCache } from '../infra/memory/memory-cache';
import type { RedisCache } from '../infra/redis/redis-cache';
import { resolveSecrets } from '../config/dev-secrets';
import { pageCursors } from '../api/page-cursor';
import type { EsdbEventStore } from '../infra/eventstoredb/esdb-event-store';
import type { PostgresEventStore } from '../infra/postgres/postgres-event-store';
import type { PostgresPersonalDataKeys } from '../infra/postgres/postgres-personal-data-keys';
import type { MongoPersonalDataKeys } from '../infra/mongo/mongo-personal-data-keys';
import { SqlitePersonalDataKeys } from '../infra/sqlite/sqlite-personal-data-keys';
import { sealingPersonalData } from '../audit/personal-data-sealing';
import type { PersonalDataKeys } from '../ports/personal-data-keys';
import { meteredEventStore } from './metered-event-store';
import type { EventStore } from '../ports/event-store';
import { SqliteEventStore } from '../infra/sqlite/sqlite-event-store';
import { versionedEventStore } from './versioned-event-store';
import { hasLogIntegrity } from '../ports/log-integrity';
import { EVENT_CATALOG } from './event-catalog';
import type { IdempotencyKeys } from '../ports/idempotency-keys';
import type { Logger } from '../observability/logger';
import { Metrics } from '../observability/metrics';
import { answerMemoOf, followPollMsOf, leaseStoreOf, leaseTimingOf } from '../infra/read-db';
import { readGenerations } from '../infra/read-generations';
import { ReadSide } from './read-side';
import { RebuildJobs } from './rebuild-jobs';
import { isTransientStoreError } from '../projections/transient-error';

import { ResilientCache } from '../infra/redis/resilient-cache';
import { DiskFileStore } from '../infra/disk/disk-file-store';
import type { FileStore } from '../ports/file-store';
import type { GridFsFileStore } from '../infra/mongo/gridfs-file-store';
import { startOrphanSweeper } from '../files/file-lifecycle';
import { usableUploadCheck } from '../files/file-access';
import { releaseDroppedUpload } from '../files/release-dropped-upload';
import { argon2Hasher } from '../infra/auth/secret-hasher';
import { settleWrites } from './settle-writes';

export type Services = AppContext & {
  /** Readiness answers 503 from now on: the process is going away (SIGTERM). */
  drain(): void;
  close(): Promise<void>;
};

/*
 * The production adapters are loaded only where their URL is set: their drivers (MongoDB,
 * EventStoreDB's gRPC client, ioredis) cost about 60 MB of memory and 0.4 s of start-up together,
 * which the embedded default never needs.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
const esdbAdapter = () =>
  (require('../infra/eventstoredb/esdb-event-store') as { EsdbEventStore: typeof EsdbEventStore }).EsdbEventStore;
const redisAdapter = () => (require('../infra/redis/redis-cache') as { RedisCache: typeof RedisCache }).RedisCache;
const gridFsAdapter = () =>
  (require('../infra/mongo/gridfs-file-store') as { GridFsFileStore: typeof GridFsFileStore }).GridFsFileStore;
const postgresLogAdapter = () =>
  (require('../infra/postgres/postgres-event-store') as { PostgresEventStore: typeof PostgresEventStore })
    .PostgresEventStore;
const postgresFilesAdapter = () =>
  (
    require('../infra/postgres/postgres-file-store') as {
      PostgresFileStore: {
        connect(
          url: string,
          options: { schema: string; poolSize?: number; queryTimeoutMs?: number },
        ): Promise<FileStore>;
      };
    }
  ).PostgresFileStore;
const postgresKeysAdapter = () =>
  (
    require('../infra/postgres/postgres-personal-data-keys') as {
      PostgresPersonalDataKeys: typeof PostgresPersonalDataKeys;
    }
  ).PostgresPersonalDataKeys;
const mongoKeysAdapter = () =>
  (require('../infra/mongo/mongo-personal-data-keys') as { MongoPersonalDataKeys: typeof MongoPersonalDataKeys })
    .MongoPersonalDataKeys;
/* eslint-enable @typescript-eslint/no-require-imports */

/** Production adapters where their URL is set, the embedded ones otherwise (docs/api.md "Shape"). */
/**
 * `existingOnly`: for a tool that reads a log (the CLI's audit, digest, rebuild): where DATA_DIR or
 * POSTGRES_SCHEMA holds none, NoEventLogError instead of a new, empty log (EventStoreDB has one
 * log per server: nothing to tell).
 */
export function openEventStore(
  config: Config,
  options: { readonly existingOnly?: boolean } = {},
): EventStore & IdempotencyKeys {
  // Versions stamped on append, old events upcast on read: one place for every adapter.
  const file = path.join(config.DATA_DIR, 'events.sqlite');
  const log = config.POSTGRES_URL
    ? postgresLogAdapter().open(config.POSTGRES_URL, {
        schema: config.POSTGRES_SCHEMA,
        poolSize: config.POSTGRES_POOL_SIZE,
        statementTimeoutMs: config.POSTGRES_STATEMENT_TIMEOUT_MS,
        ...options,
      })
    : config.EVENTSTORE_URL
      ? esdbAdapter().connect(config.EVENTSTORE_URL)
      : SqliteEventStore.open(file, options);
  return versionedEventStore(log, EVENT_CATALOG);
}

/**
 * The keys personal data is sealed under (src/ports/personal-data-keys.ts): beside the log on
 * PostgreSQL, in the read models' MongoDB with EventStoreDB, a file of DATA_DIR otherwise.
 */
export async function openPersonalDataKeys(config: Config): Promise<PersonalDataKeys> {
  if (config.POSTGRES_URL)
    return postgresKeysAdapter().connect(
      config.POSTGRES_URL,
      config.POSTGRES_SCHEMA,
      config.POSTGRES_STATEMENT_TIMEOUT_MS,
    );
  if (config.MONGODB_URL) return mongoKeysAdapter().connect(config.MONGODB_URL, config.MONGO_QUERY_TIMEOUT_MS);
  return SqlitePersonalDataKeys.open(path.join(config.DATA_DIR, 'personal-data-keys.sqlite'));
}

/** Redis behind the outage policy of ResilientCache, or the in-process cache. */
function openCache(config: Config, logger: Logger): Cache & RateLimiter {
  return config.REDIS_URL
    ? new ResilientCache(redisAdapter().connect(config.REDIS_URL, config.REDIS_KEY_PREFIX), logger)
    : new MemoryCache();
}

/** Uploaded files: in PostgreSQL or GridFS where their URL is set, DATA_DIR/files otherwise. */
export async function openFileStore(config: Config): Promise<FileStore> {
  if (config.POSTGRES_URL)
    return postgresFilesAdapter().connect(config.POSTGRES_URL, {
      schema: `${config.POSTGRES_SCHEMA}_files`,
      poolSize: config.POSTGRES_POOL_SIZE,
      queryTimeoutMs: config.POSTGRES_STATEMENT_TIMEOUT_MS,
    });
  return config.MONGODB_URL
    ? gridFsAdapter().connect(config.MONGODB_URL, undefined, config.MONGO_QUERY_TIMEOUT_MS)
    : new DiskFileStore(path.join(config.DATA_DIR, 'files'));
}

/**
 * A projector started by a deployment whose read-model code changed (a new `version` in
 * READ_MODELS) builds the changed ones into a new generation beside the served one, blue/green,
 * and every process switches once it is built: no deployment needs a hand-run rebuild. Only the
 * changed read models where the generations can copy the others (SQLite, PostgreSQL), every one
 * otherwise. Another projector doing the same holds the rebuild lock: this one leaves it to it.
 */
function rebuildOutdated(readSide: ReadSide, jobs: RebuildJobs, logger: Logger): void {
  const outdated = readSide.current.outdated;
  if (outdated.length === 0) return;
  const names = readSide.rebuildsSomeAlone ? outdated : undefined;
  jobs.start(names).then(
    (job) =>
      logger.info({ jobId: job.jobId, readModels: job.readModels }, 'read models at another version: rebuilding'),
    (error: unknown) =>
      logger.info({ err: error, outdated }, 'read models at another version: left to the rebuild running'),
  );
}

/** The composition root: opens every adapter, then catches the read models up before anything is served. */
export async function createServices(
  config: Config,
  logger: Logger,
  clock: () => Date = () => new Date(),
): Promise<Services> {
  const secrets = resolveSecrets(config);
  const metrics = new Metrics();
  const log = openEventStore(config);
  let personalDataKeys: PersonalDataKeys;
  try {
    // The log first: a store it refuses (a PostgreSQL database in another encoding than UTF8) is
    // refused before the keys' table or the read models' schema is made beside it.
    await log.identity();
    personalDataKeys = await openPersonalDataKeys(config);
  } catch (error) {
    await log.close();
    throw error;
  }
  // Appends seal the personal fields they carry; reads see them sealed (the audit opens them).
  const eventStore = meteredEventStore(sealingPersonalData(log, personalDataKeys), metrics);
  const cache = openCache(config, logger);
  const lifecycle = { draining: false };
  const holder = `${os.hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  let readSide: ReadSide;
  try {
    readSide = await ReadSide.open({
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
        followPollMs: followPollMsOf(readDb, config.EVENTSTORE_URL !== undefined),
        parkAfter: config.PROJECTION_PARK_AFTER,
      }),
    });
  } catch (error) {
    // A refusal to start (EventLogMismatchError, an unreachable read store) leaves nothing open.
    await Promise.allSettled([log.close(), cache.close(), personalDataKeys.close()]);
    throw error;
  }
  const fileStore = await openFileStore(config);
  const rebuildJobs = new RebuildJobs(readSide, {
    switchHere: true,
    logger,
    clock,
    metrics: metrics.rebuildMetrics,
  });
  if (config.ROLE !== 'api') rebuildOutdated(readSide, rebuildJobs, logger);
  const services: Services = {
    config,
    logger,
    secrets,
    cursors: pageCursors(secrets.directoryToken),
    eventStore,
    eventCatalog: EVENT_CATALOG,
    // Kept in the event store itself: a request's write and its key are recorded in one append.
    idempotencyKeys: log,
    logIntegrity: hasLogIntegrity(log) ? log : undefined,
    readSide,
    rebuildJobs,
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
    get stores() {
      return readSide.current.stores;
    },
    cache,
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
    personalDataKeys,
    hasher: argon2Hasher,
    assertUsableUpload: (...args) => assertUsableUpload(...args),
    settle: (...args) => settle(...args),
    lifecycle,
    drain() {
      lifecycle.draining = true;
    },
    async close() {
      sweeper.stop();
      // A rebuild running writes into a generation of its own and then the pointer: it ends first.
      await rebuildJobs.settled();
      await readSide.close();
      await Promise.allSettled([eventStore.close(), cache.close(), fileStore.close(), personalDataKeys.close()]);
    },
  };
  // The write path's parts that read the services themselves.
  const assertUsableUpload = usableUploadCheck(services);
  const settle = settleWrites(services, [releaseDroppedUpload(services)]);
  const sweeper = startOrphanSweeper(services);
  return services;
}

import path from 'node:path';
import type { Config } from '../config/config';
import type { LeaseStore } from '../projections/projection-lease';
import type { AnswerMemo } from '../projections/answer-memo';
import { computedEachTime } from '../projections/answer-memo';
import type { MongoReadDb } from './mongo/mongo-read-db';
import { mongoReadDb } from './mongo/mongo-read-db-loader';
import { SqliteReadDb } from './sqlite/sqlite-read-db';
import type { PostgresReadDb } from './postgres/postgres-read-db';
import type { claimScratchSchema as ClaimScratchSchema } from './postgres/scratch-schema';

/**
 * Where the read models live: PostgreSQL or MongoDB where its URL is set, a SQLite file under
 * DATA_DIR otherwise.
 */
export type ReadDb =
  | { readonly kind: 'sqlite'; readonly sqlite: SqliteReadDb }
  | { readonly kind: 'mongo'; readonly mongo: MongoReadDb }
  | { readonly kind: 'postgres'; readonly postgres: PostgresReadDb };

/** The schemas of the PostgreSQL read models: generation 0's keeps the pointer and what outlasts generations. */
export const postgresReadSchema = (base: string, generation: number): string =>
  generation === 0 ? `${base}_read` : `${base}_read_g${generation}`;

/** The scratch schemas of `resources-cli digest` on PostgreSQL, loaded only where POSTGRES_URL is set. */
function claimScratchSchema(): typeof ClaimScratchSchema {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('./postgres/scratch-schema') as { claimScratchSchema: typeof ClaimScratchSchema }).claimScratchSchema;
}

/** The PostgreSQL read-model adapter, loaded only where POSTGRES_URL is set. */
export function postgresReadDb(): typeof PostgresReadDb {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('./postgres/postgres-read-db') as { PostgresReadDb: typeof PostgresReadDb }).PostgresReadDb;
}

/** Read models to project a log into, and how to drop them. */
export type ScratchReadDb = { readonly readDb: ReadDb; dispose(): Promise<void> };

/** Scratch read models in memory, gone once disposed. */
export function inMemoryScratchReadDb(): ScratchReadDb {
  const readDb: ReadDb = { kind: 'sqlite', sqlite: SqliteReadDb.open(':memory:') };
  return { readDb, dispose: () => closeReadDb(readDb) };
}

/**
 * Read models to project the whole log into afresh (`resources-cli digest`), dropped by `dispose`:
 * in memory, or on PostgreSQL a schema of their own beside the served ones, since a row's digest
 * is the adapter's own (PostgreSQL's booleans, its view counters) and must be compared with the
 * same adapter's.
 */
export async function openScratchReadDb(config: Config): Promise<ScratchReadDb> {
  if (!config.POSTGRES_URL) return inMemoryScratchReadDb();
  // 9 + 6 characters past the longest POSTGRES_SCHEMA (32) stay within the schema names the stores take (48).
  const scratch = await claimScratchSchema()(config.POSTGRES_URL, config.POSTGRES_SCHEMA);
  let postgres: PostgresReadDb;
  try {
    postgres = await postgresReadDb().connect(config.POSTGRES_URL, {
      schema: scratch.schema,
      queryTimeoutMs: config.POSTGRES_STATEMENT_TIMEOUT_MS,
      poolSize: config.POSTGRES_POOL_SIZE,
    });
  } catch (error) {
    await scratch.release();
    throw error;
  }
  return {
    readDb: { kind: 'postgres', postgres },
    dispose: async () => {
      try {
        await postgres.close();
      } finally {
        await scratch.release();
      }
    },
  };
}

/**
 * The embedded read models' records kept across generations (see SqliteReadDb.keptSchema): one
 * file beside the generations, which a rebuild neither replaces nor drops.
 */
export const keptReadModelsFile = (dataDir: string): string => path.join(dataDir, 'read-models.kept.sqlite');

export async function openReadDb(config: Config): Promise<ReadDb> {
  if (config.POSTGRES_URL)
    return {
      kind: 'postgres',
      postgres: await postgresReadDb().connect(config.POSTGRES_URL, {
        schema: postgresReadSchema(config.POSTGRES_SCHEMA, 0),
        queryTimeoutMs: config.POSTGRES_STATEMENT_TIMEOUT_MS,
        poolSize: config.POSTGRES_POOL_SIZE,
        memo: config.READ_MEMO === 'on',
      }),
    };
  return config.MONGODB_URL
    ? {
        kind: 'mongo',
        mongo: await mongoReadDb().connect(config.MONGODB_URL, undefined, config.MONGO_QUERY_TIMEOUT_MS),
      }
    : {
        kind: 'sqlite',
        sqlite: SqliteReadDb.open(path.join(config.DATA_DIR, 'read-models.sqlite'), {
          memo: config.READ_MEMO === 'on',
          keptFile: keptReadModelsFile(config.DATA_DIR),
        }),
      };
}

export async function pingReadDb(readDb: ReadDb): Promise<void> {
  if (readDb.kind === 'sqlite') readDb.sqlite.db.prepare('select 1').get();
  else if (readDb.kind === 'postgres') await readDb.postgres.ping();
  else await readDb.mongo.ping();
}

/**
 * A request starts: the read models answer it as of now. SQLite looks whether another process
 * committed (SqliteReadDb.noticeOtherWriters); PostgreSQL reads the change feed past what this
 * process applied, one query, and the request fails if it cannot (nothing remembered is served
 * unless the look succeeded). MongoDB remembers nothing.
 */
export function startReading(readDb: ReadDb): Promise<void> | undefined {
  if (readDb.kind === 'sqlite') readDb.sqlite.noticeOtherWriters();
  else if (readDb.kind === 'postgres') return readDb.postgres.feed.sync();
  return undefined;
}

/**
 * Where whole answers are remembered: the SQLite or PostgreSQL database's memo; with MongoDB,
 * nowhere (other machines write the read models, and no change feed tells this process of it).
 */
export function answerMemoOf(readDb: ReadDb): AnswerMemo {
  if (readDb.kind === 'sqlite') return readDb.sqlite.answers;
  return readDb.kind === 'postgres' ? readDb.postgres.answers : computedEachTime;
}

/**
 * A generation built from the whole log is complete: its deferred indexes are built (SQLite,
 * PostgreSQL), its stores write through again and its commits go into
 * the change feed again (PostgreSQL).
 */
export async function finishBulkLoad(readDb: ReadDb): Promise<void> {
  if (readDb.kind === 'sqlite') readDb.sqlite.finishBulkLoad();
  else if (readDb.kind === 'postgres') await readDb.postgres.finishBulkLoad();
}

export async function closeReadDb(readDb: ReadDb): Promise<void> {
  if (readDb.kind === 'sqlite') readDb.sqlite.close();
  else if (readDb.kind === 'postgres') await readDb.postgres.close();
  else await readDb.mongo.close();
}

export function leaseStoreOf(readDb: ReadDb): LeaseStore {
  if (readDb.kind === 'postgres') return readDb.postgres.leases;
  return readDb.kind === 'sqlite' ? readDb.sqlite.leases : readDb.mongo.leases;
}

/**
 * How often a process that follows a read model looks at its checkpoint while a write waits:
 * a local file (and a local log) every 2 ms; when either the read models (MongoDB) or the log
 * (EventStoreDB, `remoteLog`) is a network round trip shared by every process, every 10 ms.
 */
export function followPollMsOf(readDb: ReadDb, remoteLog = false): number {
  return readDb.kind === 'sqlite' && !remoteLog ? 2 : 10;
}

/**
 * How long a projection's lease lives, and how often its holder renews it (and a standby looks):
 * a takeover happens within their sum of the holder stopping. SQLite: the processes of one
 * machine, one clock, 3 s. MongoDB and PostgreSQL: processes on several machines, whose clocks
 * and pauses (a GC, a slow catch-up batch, an election) differ: 15 s, renewed every 2 s.
 */
export function leaseTimingOf(readDb: ReadDb): { ttlMs: number; retryMs: number } {
  return readDb.kind === 'sqlite' ? { ttlMs: 3000, retryMs: 1000 } : { ttlMs: 15_000, retryMs: 2000 };
}

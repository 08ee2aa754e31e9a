import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config/config';
import type { MongoReadDb } from './mongo/mongo-read-db';
import { mongoReadDb } from './mongo/mongo-read-db-loader';
import type { ReadDb } from './read-db';
import { SqliteReadDb } from './sqlite/sqlite-read-db';

/**
 * Generations of the read models, for blue/green rebuilds: a rebuild projects the whole log
 * into a new generation while the current one keeps answering, then moves the pointer; every
 * process watching the pointer switches to the new generation. Generation 0 is the original
 * place (`read-models.sqlite`, or the database named in MONGODB_URL).
 */
export interface ReadGenerations {
  current(): Promise<number>;
  /** `bulkLoad`: a generation about to be built from the whole log (see SqliteReadDb.open). */
  open(generation: number, options?: { bulkLoad?: boolean }): Promise<ReadDb>;
  /** Makes `generation` the current one, atomically for every process. */
  switchTo(generation: number): Promise<void>;
  /** Deletes a generation nobody reads any more. */
  drop(generation: number): Promise<void>;
}

export function readGenerations(config: Config): ReadGenerations {
  return config.MONGODB_URL
    ? mongoGenerations(config.MONGODB_URL, config.MONGO_QUERY_TIMEOUT_MS)
    : sqliteGenerations(config.DATA_DIR, config.READ_MEMO === 'on');
}

function sqliteGenerations(dataDir: string, memo: boolean): ReadGenerations {
  const pointer = path.join(dataDir, 'read-models.generation');
  const file = (generation: number) =>
    path.join(dataDir, generation === 0 ? 'read-models.sqlite' : `read-models.g${generation}.sqlite`);
  return {
    async current() {
      try {
        return Number(fs.readFileSync(pointer, 'utf8').trim()) || 0;
      } catch {
        return 0;
      }
    },
    async open(generation, options) {
      return { kind: 'sqlite', sqlite: SqliteReadDb.open(file(generation), { ...options, memo }) };
    },
    async switchTo(generation) {
      // A rename within one directory is atomic: readers see the old pointer or the new one.
      const temporary = `${pointer}.${process.pid}.tmp`;
      fs.writeFileSync(temporary, `${generation}\n`);
      fs.renameSync(temporary, pointer);
    },
    async drop(generation) {
      for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${file(generation)}${suffix}`, { force: true });
    },
  };
}

type PointerDoc = { _id: string; generation: number };

function mongoGenerations(url: string, queryTimeoutMs: number): ReadGenerations {
  const dbName = (generation: number, base: string) => (generation === 0 ? base : `${base}_g${generation}`);
  const withBase = async <T>(work: (base: MongoReadDb) => Promise<T>): Promise<T> => {
    const base = await mongoReadDb().connect(url, undefined, queryTimeoutMs);
    try {
      return await work(base);
    } finally {
      await base.close();
    }
  };
  return {
    current: () =>
      withBase(
        async (base) =>
          (
            await base.db
              .collection<PointerDoc>('read_model_generations')
              .findOne({ _id: 'current' }, base.readOptions())
          )?.generation ?? 0,
      ),
    open: async (generation) => {
      const base = await withBase(async (b) => b.db.databaseName);
      return { kind: 'mongo', mongo: await mongoReadDb().connect(url, dbName(generation, base), queryTimeoutMs) };
    },
    switchTo: (generation) =>
      withBase(async (base) => {
        await base.db
          .collection<PointerDoc>('read_model_generations')
          .updateOne({ _id: 'current' }, { $set: { generation } }, { upsert: true });
      }),
    drop: (generation) =>
      withBase(async (base) => {
        if (generation !== 0) await base.db.client.db(dbName(generation, base.db.databaseName)).dropDatabase();
      }),
  };
}

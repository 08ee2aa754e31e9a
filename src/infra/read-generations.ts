import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Config } from '../config/config';
import { makePrivateDir, PRIVATE_FILE_MODE } from '../config/private-files';
import type { MongoReadDb } from './mongo/mongo-read-db';
import { mongoReadDb } from './mongo/mongo-read-db-loader';
import { keptReadModelsFile, postgresReadDb, postgresReadSchema, type ReadDb } from './read-db';
import type { LeaseStore } from '../projections/projection-lease';
import type { PostgresReadDb } from './postgres/postgres-read-db';
import { SqliteReadDb } from './sqlite/sqlite-read-db';

/**
 * Generations of the read models, for blue/green rebuilds: a rebuild projects the whole log
 * into a new generation while the current one keeps answering, then moves the pointer; every
 * process watching the pointer switches to the new generation. Generation 0 is the original
 * place (`read-models.sqlite`, or the database named in MONGODB_URL).
 */
export interface ReadGenerations {
  current(): Promise<number>;
  /**
   * The current generation read at once, where that costs no round trip (a file of this
   * machine's): asked before every request, so absent where it would be a query.
   */
  currentNow?(): number;
  /**
   * `bulkLoad`: a generation about to be built from the whole log (see SqliteReadDb.open and
   * PostgresReadDbOptions.bulkLoad).
   */
  open(generation: number, options?: { bulkLoad?: boolean }): Promise<ReadDb>;
  /** Makes `generation` the current one, atomically for every process. */
  switchTo(generation: number): Promise<void>;
  /** Deletes a generation nobody reads any more. */
  drop(generation: number): Promise<void>;
  /**
   * Takes the one rebuild lock of these generations, or null while another rebuild holds it:
   * two rebuilds at once would build the same next generation over each other.
   */
  lockRebuild(jobId?: string): Promise<RebuildLock | null>;
  /**
   * The job of the rebuild holding the lock, where the lock records it (the embedded store's lock
   * file does): a refused operator is told which job to follow.
   */
  rebuildJob?(): Promise<string | undefined>;
  /**
   * Opens `generation` as a copy of `source` (the generation served), for a rebuild of some read
   * models alone: the others are carried over as they are, with their checkpoints, and go on from
   * there once served. Only where a consistent copy is cheap (SQLite's online backup); absent on
   * MongoDB, where a generation is several collections no single read copies at one instant.
   */
  openCopy?(source: ReadDb, generation: number): Promise<ReadDb>;
  /** Closes what reading the pointer holds open (on MongoDB, its one client). */
  close(): Promise<void>;
}

/** A rebuild's hold on the generations, kept until released. */
export interface RebuildLock {
  /** False once lost (not renewed in time and taken by another): the rebuild must not switch. */
  readonly held: boolean;
  /** Releasing again does nothing (nor frees a lock another rebuild took since). */
  release(): Promise<void>;
}

/** Which process holds a rebuild lock, as operators read it: host, pid and a nonce. */
const lockHolder = () => `${os.hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;

/**
 * The rebuild lock on a shared database (MongoDB, PostgreSQL): a lease in generation 0's
 * `projection_leases`, expiring by the server's clock, renewed while the rebuild runs; a rebuild
 * that dies frees it after the TTL.
 */
const REBUILD_LEASE = 'read-model-rebuild';
export const REBUILD_LOCK_TTL_MS = 60_000;
const REBUILD_LOCK_RENEW_MS = 10_000;

async function leaseRebuildLock(leases: LeaseStore): Promise<RebuildLock | null> {
  const holder = lockHolder();
  const lease = await leases.acquire(REBUILD_LEASE, holder, REBUILD_LOCK_TTL_MS, Date.now());
  if (!lease) return null;
  let held = true;
  let released = false;
  const renewal = setInterval(() => {
    void leases
      .acquire(REBUILD_LEASE, holder, REBUILD_LOCK_TTL_MS, Date.now())
      .then((renewed) => {
        if (!renewed || renewed.token !== lease.token) held = false;
      })
      // A renewal that cannot reach the server leaves the lease to run out: the next one says.
      .catch(() => undefined);
  }, REBUILD_LOCK_RENEW_MS);
  renewal.unref();
  return {
    get held() {
      return held;
    },
    release: async () => {
      clearInterval(renewal);
      held = false;
      // Once only, like the file lock's (the lease's token keeps another holder's lease safe anyway).
      if (released) return;
      released = true;
      await leases.release(lease);
    },
  };
}

/**
 * The rebuild lock of an embedded store: a file created exclusively beside the generations, naming
 * its process; one left by a process that died (no such pid on this machine) is taken over.
 */
const rebuildLockFile = (dataDir: string) => path.join(dataDir, 'read-models.rebuild.lock');

function fileRebuildLock(dataDir: string, jobId: string | undefined): RebuildLock | null {
  const file = rebuildLockFile(dataDir);
  // The pid says whether the holder lives; the nonce tells this lock from a later one of the same pid.
  const mine = `${process.pid}\n${jobId ?? ''}\n${randomBytes(8).toString('hex')}\n`;
  const readLock = (at: string): string | undefined => {
    try {
      return fs.readFileSync(at, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      makePrivateDir(dataDir);
      fs.writeFileSync(file, mine, { flag: 'wx', mode: PRIVATE_FILE_MODE });
      let released = false;
      return {
        // Held while the file is this lock's: a takeover by another process shows at once.
        get held() {
          return !released && readLock(file) === mine;
        },
        release: async () => {
          if (released) return;
          released = true;
          // Only this lock's file: after a takeover it is another rebuild's.
          if (readLock(file) === mine) fs.rmSync(file, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const stale = readLock(file);
      if (stale === undefined) continue;
      if (processAlive(Number(stale.split('\n')[0]))) return null;
      takeOver(file, stale);
    }
  }
  return null;
}

/**
 * Removes the lock file `stale` (a dead process's) unless it changed since it was read: it is
 * moved aside under a name of this process's first, so that of two processes taking over the same
 * dead lock, the slower one never removes the lock the faster one made meanwhile (it moves it back).
 */
function takeOver(file: string, stale: string): void {
  const aside = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    fs.renameSync(file, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if (fs.readFileSync(aside, 'utf8') !== stale) {
    try {
      fs.linkSync(aside, file);
    } catch (error) {
      // A third process made one meanwhile: the lock moved aside reads as not held by its own.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  fs.rmSync(aside, { force: true });
}

function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it lives, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function readGenerations(config: Config): ReadGenerations {
  if (config.POSTGRES_URL)
    return postgresGenerations(
      config.POSTGRES_URL,
      config.POSTGRES_SCHEMA,
      config.POSTGRES_STATEMENT_TIMEOUT_MS,
      config.POSTGRES_POOL_SIZE,
      config.READ_MEMO === 'on',
    );
  return config.MONGODB_URL
    ? mongoGenerations(config.MONGODB_URL, config.MONGO_QUERY_TIMEOUT_MS)
    : sqliteGenerations(config.DATA_DIR, config.READ_MEMO === 'on');
}

function sqliteGenerations(dataDir: string, memo: boolean): ReadGenerations {
  const pointer = path.join(dataDir, 'read-models.generation');
  const file = (generation: number) =>
    path.join(dataDir, generation === 0 ? 'read-models.sqlite' : `read-models.g${generation}.sqlite`);
  // The pointer as last read, and the file it was read from: read again only once the file
  // changed (a switch renames a new file over it: another inode, another time).
  let seen: { readonly ino: number; readonly mtimeMs: number; readonly generation: number } | undefined;
  const currentNow = (): number => {
    const stat = fs.statSync(pointer, { throwIfNoEntry: false });
    if (!stat) return 0;
    if (seen && seen.ino === stat.ino && seen.mtimeMs === stat.mtimeMs) return seen.generation;
    let generation = 0;
    try {
      generation = Number(fs.readFileSync(pointer, 'utf8').trim()) || 0;
    } catch {
      return 0;
    }
    seen = { ino: stat.ino, mtimeMs: stat.mtimeMs, generation };
    return generation;
  };
  return {
    current: async () => currentNow(),
    currentNow,
    async open(generation, options) {
      return {
        kind: 'sqlite',
        sqlite: SqliteReadDb.open(file(generation), { ...options, memo, keptFile: keptReadModelsFile(dataDir) }),
      };
    },
    async switchTo(generation) {
      // A rename within one directory is atomic: readers see the old pointer or the new one.
      const temporary = `${pointer}.${process.pid}.tmp`;
      fs.writeFileSync(temporary, `${generation}\n`, { mode: PRIVATE_FILE_MODE });
      fs.renameSync(temporary, pointer);
    },
    async drop(generation) {
      for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${file(generation)}${suffix}`, { force: true });
    },
    async lockRebuild(jobId) {
      return fileRebuildLock(dataDir, jobId);
    },
    async rebuildJob() {
      try {
        return fs.readFileSync(rebuildLockFile(dataDir), 'utf8').split('\n')[1]?.trim() || undefined;
      } catch {
        // No lock file: the rebuild that held it ended meanwhile.
        return undefined;
      }
    },
    async openCopy(source, generation) {
      if (source.kind !== 'sqlite') throw new Error('a SQLite generation is copied from a SQLite one');
      // What a failed rebuild may have left of this generation is replaced.
      for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${file(generation)}${suffix}`, { force: true });
      // The online backup copies one instant of the source, commits made meanwhile included, in
      // steps between which the event loop serves requests.
      await source.sqlite.db.backup(file(generation));
      const copy = SqliteReadDb.open(file(generation), { memo, keptFile: keptReadModelsFile(dataDir) });
      // The leases are the served generation's: the copy's runners take their own once it is served.
      copy.db.exec('delete from projection_leases');
      return { kind: 'sqlite', sqlite: copy };
    },
    async close() {},
  };
}

type PointerDoc = { _id: string; generation: number };

/**
 * `connect(dbName, keptDbName)`: a read-model connection to `dbName`, or to the database of
 * MONGODB_URL when undefined, whose records kept across generations live in `keptDbName` (tests
 * hand in the mingo stand-in). The pointer is read every 500 ms by every process: through one
 * client opened on first use and kept until `close`, not a new client each time.
 */
export function mongoGenerations(
  url: string,
  queryTimeoutMs: number,
  connect: (dbName?: string, keptDbName?: string) => Promise<MongoReadDb> = (dbName, keptDbName) =>
    mongoReadDb().connect(url, dbName, queryTimeoutMs, keptDbName),
): ReadGenerations {
  const dbName = (generation: number, base: string) => (generation === 0 ? base : `${base}_g${generation}`);
  let opened: Promise<MongoReadDb> | undefined;
  const base = (): Promise<MongoReadDb> => {
    opened ??= connect().catch((error: unknown) => {
      // A failed connect is tried again on the next read of the pointer.
      opened = undefined;
      throw error;
    });
    return opened;
  };
  const pointer = async () => (await base()).db.collection<PointerDoc>('read_model_generations');
  return {
    current: async () =>
      (await (await pointer()).findOne({ _id: 'current' }, (await base()).readOptions()))?.generation ?? 0,
    open: async (generation) => {
      // Generation 0's database, named in MONGODB_URL, outlives every generation: it keeps the
      // pointer, the rebuild lock and what no event carries (a key's lastUsedAt).
      const baseName = (await base()).db.databaseName;
      return { kind: 'mongo', mongo: await connect(dbName(generation, baseName), baseName) };
    },
    switchTo: async (generation) => {
      await (await pointer()).updateOne({ _id: 'current' }, { $set: { generation } }, { upsert: true });
    },
    drop: async (generation) => {
      const db = (await base()).db;
      if (generation !== 0) await db.client.db(dbName(generation, db.databaseName)).dropDatabase();
    },
    lockRebuild: async () => leaseRebuildLock((await base()).leases),
    close: async () => {
      const closing = opened;
      opened = undefined;
      await (await closing?.catch(() => undefined))?.close();
    },
  };
}

/**
 * Generations on PostgreSQL: a schema each (`<base>_read`, `<base>_read_g1`, …). Generation 0's
 * outlives every generation: it keeps the pointer, the rebuild lock and what no event carries (a
 * key's lastUsedAt). The pointer is read every 500 ms by every process, through one pool opened on
 * first use and kept until `close`.
 */
export function postgresGenerations(
  url: string,
  base: string,
  queryTimeoutMs: number,
  poolSize?: number,
  memo = true,
): ReadGenerations {
  const connect = (generation: number, size = poolSize, bulkLoad = false) =>
    postgresReadDb().connect(url, {
      schema: postgresReadSchema(base, generation),
      keptSchema: postgresReadSchema(base, 0),
      queryTimeoutMs,
      poolSize: size,
      memo,
      bulkLoad,
    });
  let opened: Promise<PostgresReadDb> | undefined;
  const pointerReady = async (): Promise<PostgresReadDb> => {
    // Only the pointer, the rebuild lock and dropping generations: two connections are plenty.
    const read = await connect(0, 2);
    try {
      await read.ensure(
        'create table if not exists read_model_generation (one boolean primary key, generation integer not null)',
      );
    } catch (error) {
      await read.close();
      throw error;
    }
    return read;
  };
  const base0 = (): Promise<PostgresReadDb> => {
    opened ??= pointerReady().catch((error: unknown) => {
      // A failed connect is tried again on the next read of the pointer.
      opened = undefined;
      throw error;
    });
    return opened;
  };
  const pointer = (read: PostgresReadDb) => `"${read.keptSchema}".read_model_generation`;
  return {
    current: async () => {
      const read = await base0();
      const { rows } = await read.query<{ generation: number }>(`select generation from ${pointer(read)}`);
      return rows[0]?.generation ?? 0;
    },
    open: async (generation, options) => ({
      kind: 'postgres',
      postgres: await connect(generation, poolSize, options?.bulkLoad === true && generation !== 0),
    }),
    switchTo: async (generation) => {
      const read = await base0();
      await read.query(
        `insert into ${pointer(read)} (one, generation) values (true, $1)
         on conflict (one) do update set generation = excluded.generation`,
        [generation],
      );
    },
    drop: async (generation) => {
      if (generation === 0) return;
      const read = await base0();
      await read.query(`drop schema if exists "${postgresReadSchema(base, generation)}" cascade`);
    },
    openCopy: async (source, generation) => {
      if (source.kind !== 'postgres') throw new Error('a PostgreSQL generation is copied from a PostgreSQL one');
      // What a failed rebuild may have left of this generation is replaced.
      const copy = await connect(generation);
      try {
        await copy.copyFrom(source.postgres.schema);
      } catch (error) {
        await copy.close();
        throw error;
      }
      return { kind: 'postgres', postgres: copy };
    },
    lockRebuild: async () => leaseRebuildLock((await base0()).leases),
    close: async () => {
      const closing = opened;
      opened = undefined;
      await (await closing?.catch(() => undefined))?.close();
    },
  };
}

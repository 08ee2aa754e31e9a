import type { MongoReadDb } from './mongo-read-db';

/**
 * The MongoDB read-model adapter, loaded on first use: the driver costs about 25 MB of memory and
 * 0.1 s of start-up, which the embedded default (SQLite) never needs.
 */
export function mongoReadDb(): typeof MongoReadDb {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('./mongo-read-db') as { MongoReadDb: typeof MongoReadDb }).MongoReadDb;
}

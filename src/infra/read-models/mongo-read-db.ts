import { MongoClient } from 'mongodb';
import type { Db } from 'mongodb';
import type { ProjectionStore, ReadModelDigest } from '../../projections/read-model-projection';
import { canonicalDigest } from '../../projections/canonical-digest';

type CheckpointDoc = { _id: string; position: string };

/**
 * The production read models' database. Bounded server selection and query time, so that an
 * outage answers readiness and requests with an error instead of hanging for 30 s.
 */
export class MongoReadDb {
  private constructor(
    private readonly client: MongoClient,
    readonly db: Db,
  ) {}

  /** `dbName` overrides the database named in the URL (one database per test run). */
  static async connect(url: string, dbName?: string): Promise<MongoReadDb> {
    const client = new MongoClient(url, { ignoreUndefined: true, serverSelectionTimeoutMS: 5000, timeoutMS: 10_000 });
    await client.connect();
    return new MongoReadDb(client, client.db(dbName));
  }

  async checkpoint(projection: string): Promise<bigint | undefined> {
    const doc = await this.db.collection<CheckpointDoc>('projection_checkpoints').findOne({ _id: projection });
    return doc ? BigInt(doc.position) : undefined;
  }

  async writeCheckpoint(projection: string, position: bigint): Promise<void> {
    await this.db
      .collection<CheckpointDoc>('projection_checkpoints')
      .replaceOne({ _id: projection }, { position: position.toString() }, { upsert: true });
  }

  async clearCheckpoint(projection: string): Promise<void> {
    await this.db.collection<CheckpointDoc>('projection_checkpoints').deleteOne({ _id: projection });
  }

  async ping(): Promise<void> {
    await this.db.command({ ping: 1 });
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}

/**
 * The runner's side of a MongoDB read model. Without a replica set there is no transaction: the
 * store's writes are guarded by event position, so the events between the last checkpoint and a
 * crash are applied again harmlessly.
 */
export function mongoProjectionStore(read: MongoReadDb, collections: readonly string[]): ProjectionStore {
  return {
    commit: async (projection, position, work) => {
      await work();
      await read.writeCheckpoint(projection, position);
    },
    checkpoint: (projection) => read.checkpoint(projection),
    reset: async (projection) => {
      for (const name of collections) await read.db.collection(name).deleteMany({});
      await read.clearCheckpoint(projection);
    },
    digest: async (): Promise<ReadModelDigest> =>
      canonicalDigest(
        await Promise.all(
          collections.map(async (name) => ({
            name,
            rows: await read.db.collection(name).find({}).sort({ _id: 1 }).toArray(),
          })),
        ),
      ),
  };
}

import { MongoClient } from 'mongodb';
import type { Db } from 'mongodb';
import type { Lease, LeaseStore } from '../../projections/projection-lease';
import { LeaseLostError } from '../../projections/projection-lease';
import type { ProjectionStore, ReadModelDigest } from '../../projections/read-model-projection';
import { canonicalDigest } from '../../projections/canonical-digest';

type CheckpointDoc = { _id: string; position?: string; log?: string };
type LeaseDoc = { _id: string; holder: string; token: number; expiresAt: number };

/** The lease filter: free, expired, or already this holder's. Pure, so a test can evaluate it. */
export function leaseTakeable(projection: string, holder: string, nowMs: number): Record<string, unknown> {
  return { _id: projection, $or: [{ holder }, { expiresAt: { $lte: nowMs } }] };
}

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
    return doc?.position ? BigInt(doc.position) : undefined;
  }

  async checkpointLog(projection: string): Promise<string | undefined> {
    const doc = await this.db.collection<CheckpointDoc>('projection_checkpoints').findOne({ _id: projection });
    return doc?.log;
  }

  async setCheckpointLog(projection: string, log: string): Promise<void> {
    await this.db.collection<CheckpointDoc>('projection_checkpoints').updateOne({ _id: projection }, { $set: { log } }, { upsert: true });
  }

  /**
   * Leases in MongoDB. Without a transaction the fence is checked before the writes and the
   * lease renewed with it; a holder that stalls between that check and its writes can still
   * write once, which the position guards on every document make harmless.
   */
  readonly leases: LeaseStore = {
    acquire: async (projection, holder, ttlMs, nowMs): Promise<Lease | null> => {
      const leases = this.db.collection<LeaseDoc>('projection_leases');
      const current = await leases.findOne({ _id: projection });
      const token = current && current.holder === holder ? current.token : (current?.token ?? 0) + 1;
      try {
        const result = await leases.findOneAndUpdate(
          leaseTakeable(projection, holder, nowMs),
          { $set: { holder, token, expiresAt: nowMs + ttlMs } },
          { upsert: true, returnDocument: 'after' },
        );
        return result && result.holder === holder ? { projection, holder, token: BigInt(result.token) } : null;
      } catch (error) {
        // The filter missed an existing lease (held by someone else): the upsert collided on _id.
        if ((error as { code?: number }).code === 11000) return null;
        throw error;
      }
    },
    release: async (lease) => {
      await this.db.collection<LeaseDoc>('projection_leases').deleteOne({ _id: lease.projection, holder: lease.holder, token: Number(lease.token) });
    },
  };

  async fence(lease: Lease, ttlMs: number, nowMs: number): Promise<void> {
    const result = await this.db
      .collection<LeaseDoc>('projection_leases')
      .updateOne({ _id: lease.projection, holder: lease.holder, token: Number(lease.token) }, { $set: { expiresAt: nowMs + ttlMs } });
    if (result.matchedCount === 0) throw new LeaseLostError(lease.projection);
  }

  async writeCheckpoint(projection: string, position: bigint): Promise<void> {
    await this.db
      .collection<CheckpointDoc>('projection_checkpoints')
      .updateOne({ _id: projection }, { $set: { position: position.toString() } }, { upsert: true });
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
    commit: async (projection, position, work, fence) => {
      if (fence) await read.fence(fence, fence.ttlMs, fence.nowMs);
      await work();
      await read.writeCheckpoint(projection, position);
    },
    checkpoint: (projection) => read.checkpoint(projection),
    checkpointLog: (projection) => read.checkpointLog(projection),
    setCheckpointLog: (projection, log) => read.setCheckpointLog(projection, log),
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

import type { Collection } from 'mongodb';
import type { ApiKeyUsageStore } from '../../api-keys/api-key-store';
import type { MongoReadDb } from './mongo-read-db';

/** One key's last use. */
type ApiKeyUsageDoc = { _id: number; lastUsedAt: string };

const API_KEY_USAGE_COLLECTION = 'api_key_usage';

/**
 * Each key's last use on MongoDB, in the database of records that outlast a generation
 * (MongoReadDb.kept). Every call waits for the uses carried over as it opens.
 */
export class MongoApiKeyUsage implements ApiKeyUsageStore {
  private readonly usage: Collection<ApiKeyUsageDoc>;
  private readonly ready: Promise<void>;

  constructor(private readonly readDb: MongoReadDb) {
    this.usage = readDb.kept.collection<ApiKeyUsageDoc>(API_KEY_USAGE_COLLECTION);
    this.ready = this.carryOverUsage();
    // A failure surfaces on the first call that awaits `ready`.
    this.ready.catch(() => undefined);
  }

  /** A later use wins ($max): an earlier instant than the recorded one changes nothing. */
  async recordUse(id: number, at: string): Promise<void> {
    await this.ready;
    await this.usage.updateOne(
      { _id: id },
      { $max: { lastUsedAt: at } },
      { upsert: true, ...this.readDb.sessionOption() },
    );
  }

  async lastUsedAt(ids: readonly number[]): Promise<ReadonlyMap<number, string>> {
    await this.ready;
    const found = await this.usage.find({ _id: { $in: [...ids] } }, this.readDb.readOptions()).toArray();
    return new Map(found.map((u) => [u._id, u.lastUsedAt]));
  }

  /**
   * Uses recorded before they were kept across generations lie in the generation's own
   * `api_key_usage`: carried into the kept records as the store opens (a later use wins), so an
   * upgrade loses none.
   */
  private async carryOverUsage(): Promise<void> {
    if (this.readDb.kept.databaseName === this.readDb.db.databaseName) return;
    const own = this.readDb.db.collection<ApiKeyUsageDoc>(API_KEY_USAGE_COLLECTION);
    for (const { _id, lastUsedAt } of await own.find({}, this.readDb.readOptions()).toArray())
      await this.usage.updateOne({ _id }, { $max: { lastUsedAt } }, { upsert: true });
  }
}

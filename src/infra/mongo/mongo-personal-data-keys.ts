import { randomBytes } from 'node:crypto';
import { Binary, MongoClient } from 'mongodb';
import { mongoClientOptions } from '../../config/mongo-client-options';
import type { PersonalDataKeys } from '../../ports/personal-data-keys';

type KeyDoc = { _id: number; key: Binary; createdAt: Date };

/** Personal-data keys in MongoDB (beside EVENTSTORE_URL): a collection of the database named in MONGODB_URL. */
export class MongoPersonalDataKeys implements PersonalDataKeys {
  private constructor(private readonly client: MongoClient) {}

  static async connect(url: string, queryTimeoutMs: number): Promise<MongoPersonalDataKeys> {
    const client = new MongoClient(url, mongoClientOptions(queryTimeoutMs));
    await client.connect();
    return new MongoPersonalDataKeys(client);
  }

  private get keys() {
    // Acknowledged by a majority: a key an event was sealed under is never rolled back.
    return this.client.db().collection<KeyDoc>('personal_data_keys', { writeConcern: { w: 'majority' } });
  }

  async keyFor(userId: number): Promise<Buffer> {
    // One operation that makes the key or finds it and answers it: a destroy between a write and a
    // later read would leave nothing to read. An upsert that loses a race for the same _id is
    // retried by the server (an equality on _id), so concurrent first calls all answer one key.
    const doc = await this.keys.findOneAndUpdate(
      { _id: userId },
      { $setOnInsert: { key: new Binary(randomBytes(32)), createdAt: new Date() } },
      { upsert: true, returnDocument: 'after' },
    );
    if (!doc) throw new Error(`no personal-data key was made for user ${userId}`);
    return Buffer.from(doc.key.buffer);
  }

  async keysOf(userIds: readonly number[]): Promise<ReadonlyMap<number, Buffer>> {
    const docs = await this.keys.find({ _id: { $in: [...userIds] } }).toArray();
    return new Map(docs.map((doc) => [doc._id, Buffer.from(doc.key.buffer)]));
  }

  async destroy(userId: number): Promise<boolean> {
    return (await this.keys.deleteOne({ _id: userId })).deletedCount > 0;
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}

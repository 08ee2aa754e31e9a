/**
 * A checkpoint read outside a batch decides read-your-writes (a follower answers a write once the
 * checkpoint passed it) and where a new leader resumes. On a replica set a batch committed on the
 * primary is visible to reads of concern "local" before a majority has it, and a failover rolls
 * back what no majority had (MongoDB manual, "Read Concern 'majority'": the data read "has been
 * acknowledged by a majority of the replica set members ... guaranteed to not roll back", where
 * "local" "can return data that may be lost ... such as a rollback"). So checkpoints are read
 * with read concern "majority" and batches commit with write concern "majority" ("Transactions":
 * read concern majority in a transaction holds only if it commits with write concern majority).
 * On the mingo stand-in, which models replication held back and a failover's rollback, and on a
 * real MongoDB, where the driver's command monitoring shows what was sent.
 */
import { MongoClient, type CommandStartedEvent, type Db } from 'mongodb';
import { mongoClientOptions } from '../../src/config/mongo-client-options';
import { MongoReadDb, mongoProjectionStore, supportsTransactions } from '../../src/infra/mongo/mongo-read-db';
import { mingoReadDb, mingoReads, mingoServer } from '../support/mingo-mongo';
import { describeMongo } from '../support/mongo-target';
import { until } from '../support/until';

const NAME = 'resources';

/** A leader's batch: the view of resource 1 at `position` (its privacy), then the checkpoint. */
const commitBatch = (leader: MongoReadDb, position: bigint) =>
  mongoProjectionStore(leader, ['views']).commit(NAME, position, async () => {
    await leader.db
      .collection('views')
      .updateOne(
        { _id: 1 } as object,
        { $set: { privacy: Number(position) } },
        { upsert: true, ...leader.sessionOption() },
      );
  });

describe('checkpoints read for read-your-writes on a replica set (mingo stand-in)', () => {
  it('given a batch applied on the primary but not yet on a majority, when a follower reads the checkpoint, then it does not see the batch; after a failover rolled it back, the batch is committed again and then seen', async () => {
    // given: the leader and a follower (another process) on one replica set; a first batch everywhere
    const leader = mingoReadDb({ transactions: true });
    const follower = mingoReadDb({ server: leader });
    const server = mingoServer(leader);
    await commitBatch(leader, 1n);
    server.holdReplication();
    // when: the second batch (a privacy tightening) commits on the primary and waits for a majority
    const tightening = commitBatch(leader, 2n);
    await until(() => server.awaitingMajority, 'the commit to wait for a majority');
    // then: the primary holds it ("local"), yet the follower's reads of the checkpoint answer what a majority has
    const local = await follower.db.collection('projection_checkpoints').findOne({ _id: NAME } as object);
    expect(local?.position).toBe('2');
    expect(await follower.checkpoints([NAME])).toEqual(new Map([[NAME, 1n]]));
    expect(await follower.checkpoint(NAME)).toBe(1n);
    // when: the primary steps down, rolling back what no majority had
    server.stepDown();
    expect(await follower.checkpoints([NAME])).toEqual(new Map([[NAME, 1n]]));
    // then: the leader's commit learned its outcome was unknown, found the transaction gone and ran it again
    await tightening;
    expect(await follower.checkpoints([NAME])).toEqual(new Map([[NAME, 2n]]));
    expect((await follower.db.collection('views').findOne({ _id: 1 } as object))?.privacy).toBe(2);
  });

  it('given a replica set, then every checkpoint read outside a batch asks for majority and every batch commits with w: majority', async () => {
    const read = mingoReadDb({ transactions: true });
    await commitBatch(read, 1n);
    await read.setCheckpointLog(NAME, 'log-1');

    await read.checkpoints([NAME]);
    await read.checkpoint(NAME);
    await read.checkpointLog(NAME);

    const checkpointReads = mingoReads(read).filter((r) => r.collection === 'projection_checkpoints');
    expect(checkpointReads).toHaveLength(3);
    expect(checkpointReads.map((r) => r.options.readConcern)).toEqual([
      { level: 'majority' },
      { level: 'majority' },
      { level: 'majority' },
    ]);
    expect(mingoServer(read).transactionOptions.map((o) => o.writeConcern)).toEqual([
      { w: 'majority', wtimeoutMS: 10_000 },
    ]);
  });

  it('given a standalone server (no rollback there), then checkpoint reads ask for no read concern', async () => {
    const read = mingoReadDb({ transactions: false });
    await commitBatch(read, 1n);

    await read.checkpoints([NAME]);
    await read.checkpoint(NAME);

    const checkpointReads = mingoReads(read).filter((r) => r.collection === 'projection_checkpoints');
    expect(checkpointReads).toHaveLength(2);
    expect(checkpointReads.map((r) => r.options.readConcern)).toEqual([undefined, undefined]);
  });
});

describeMongo('checkpoint reads and batch commits as sent to MongoDB', (mongo) => {
  it('given a batch committed, when the checkpoints are read, then the reads carried majority and the commit w: majority on a replica set, and the batch is seen at once', async () => {
    const { url, dbName } = mongo();
    const client = new MongoClient(url, { ignoreUndefined: true, monitorCommands: true, ...mongoClientOptions(5000) });
    await client.connect();
    const sent: CommandStartedEvent[] = [];
    client.on('commandStarted', (event) => sent.push(event));
    const db = client.db(dbName());
    try {
      const hello = await client.db('admin').command({ hello: 1 });
      const read = new (
        MongoReadDb as unknown as new (client: MongoClient, db: Db, transactions: boolean) => MongoReadDb
      )(client, db, supportsTransactions(hello));

      await commitBatch(read, 1n);
      // Read your writes: a batch acknowledged by a majority is in the majority's view on the primary.
      expect(await read.checkpoints([NAME])).toEqual(new Map([[NAME, 1n]]));
      expect(await read.checkpoint(NAME)).toBe(1n);

      const finds = sent.filter((e) => e.commandName === 'find' && e.command.find === 'projection_checkpoints');
      expect(finds).toHaveLength(2);
      const majority = read.transactions ? { level: 'majority' } : undefined;
      expect(finds.map((e) => e.command.readConcern as unknown)).toEqual([majority, majority]);
      const commits = sent.filter((e) => e.commandName === 'commitTransaction');
      expect(commits).toHaveLength(read.transactions ? 1 : 0);
      for (const commit of commits) expect(commit.command.writeConcern).toMatchObject({ w: 'majority' });
    } finally {
      await db.dropDatabase();
      await client.close();
    }
  });
});

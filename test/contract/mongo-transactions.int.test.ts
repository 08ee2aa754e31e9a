/**
 * A runner batch on a real MongoDB (MONGODB_URL, or a testcontainers single-node replica set):
 * the batch contract the unit tests run on the mingo stand-in, and what only a server shows, a
 * takeover racing a batch's transaction. Counted as skipped where no MongoDB answers.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { MongoReadDb } from '../../src/infra/mongo/mongo-read-db';
import { MongoResourceViewStore } from '../../src/infra/mongo/mongo-resource-view-store';
import { announceSkip, mongoTransactionsSkipReason } from '../support/external';
import { describeMongo } from '../support/mongo-target';
import { describeMongoBatchContract } from './mongo-batch-contract';
import { resource } from '../resources/resource-view-fixtures';

describeMongo('read-model batches', (mongo) => {
  const connect = async () => {
    const { url, dbName } = mongo();
    return MongoReadDb.connect(url, dbName());
  };

  describeMongoBatchContract('a real MongoDB', async () => {
    const read = await connect();
    return {
      read,
      dispose: async () => {
        await read.db.dropDatabase();
        await read.close();
      },
    };
  });

  it("given a lease held for a minute, when a process whose clock runs ten minutes ahead tries to take it, then it is refused: the server's clock decides", async () => {
    const read = await connect();
    try {
      const a = await read.leases.acquire('resources', 'a', 60_000, Date.now());
      const b = await read.leases.acquire('resources', 'b', 60_000, Date.now() + 10 * 60_000);
      expect(a).toEqual({ projection: 'resources', holder: 'a', token: 1n });
      expect(b).toBeNull();
    } finally {
      await read.db.dropDatabase();
      await read.close();
    }
  });

  // Needs transactions: where the server is not a replica set, declared skipped with the reason.
  const noTransactions = mongoTransactionsSkipReason();
  if (noTransactions) announceSkip('a takeover racing a batch (MongoDB)', noTransactions);
  (noTransactions ? describe.skip : describe)(
    `a takeover racing a batch (needs a replica set)${noTransactions ? ` (skipped: ${noTransactions})` : ''}`,
    () => {
      let read: MongoReadDb;
      /** Process b's own connection to the same database: a process's lease writes follow its own batches. */
      let other: MongoReadDb;
      beforeEach(async () => {
        read = await connect();
        if (!read.transactions)
          throw new Error('given: this MongoDB runs no transactions, yet it was found to be a replica set');
        other = await MongoReadDb.connect(mongo().url, read.db.databaseName);
      });
      afterEach(async () => {
        await read.db.dropDatabase();
        await Promise.all([read.close(), other.close()]);
      });

      /** Whether a write to the leases that is not a batch's (b's findAndModify) runs on the server now. */
      async function takeoverInProgress(): Promise<boolean> {
        const ops = await read.db.client
          .db('admin')
          .aggregate([
            { $currentOp: { allUsers: true } },
            {
              $match: { ns: `${read.db.databaseName}.projection_leases`, 'command.findAndModify': 'projection_leases' },
            },
          ])
          .toArray();
        return ops.length > 0;
      }

      /**
       * Holder a's lease runs out 1 ms after it took it (by the server's clock); its batch renews
       * it for 1 s inside the transaction while b tries to take it over. b's write waits for the
       * transaction: if the batch commits, b finds the renewed lease; if it aborts, b takes the
       * lease that ran out.
       */
      async function race(outcome: 'commit' | 'abort') {
        const store = await MongoResourceViewStore.open(read);
        const a = await read.leases.acquire('resources', 'a', 1, 0);
        if (!a) throw new Error('a could not take the free lease');
        let release!: () => void;
        const gate = new Promise<void>((resolve) => (release = resolve));
        let fenced!: () => void;
        const inside = new Promise<void>((resolve) => (fenced = resolve));
        const batch = store.projectionStore.commit(
          'resources',
          1n,
          async () => {
            await store.putResource(1, resource(1), 1n, []);
            fenced();
            await gate;
            if (outcome === 'abort') throw new Error('crash midway through the batch');
          },
          { ...a, ttlMs: 1000, nowMs: 900 },
        );
        await inside;
        let settled = false;
        const takeover = other.leases.acquire('resources', 'b', 1000, 0).finally(() => (settled = true));
        // b's write has reached the server and waits for the transaction (or b has its answer already)
        await waitUntil(async () => settled || (await takeoverInProgress()), "b's takeover to reach the server");
        release();
        const [committed, taken] = await Promise.allSettled([batch, takeover]);
        return {
          committed,
          taken: taken.status === 'fulfilled' ? taken.value : taken.reason,
          stored: await store.stored(1),
        };
      }

      it('given the batch commits, then the takeover finds the lease renewed and the batch written', async () => {
        const { committed, taken, stored } = await race('commit');
        expect(committed.status).toBe('fulfilled');
        expect(taken).toBeNull();
        expect(stored?.position).toBe(1n);
      });

      it('given the batch aborts, then the takeover gets the lease with a new token and the batch left nothing', async () => {
        const { committed, taken, stored } = await race('abort');
        expect(committed.status).toBe('rejected');
        expect(taken).toEqual({ projection: 'resources', holder: 'b', token: 2n });
        expect(stored).toBeNull();
        expect(await read.checkpoint('resources')).toBeUndefined();
      });
    },
  );
});

/** Polls `condition` until it holds; fails naming `what` after 10 s. */
async function waitUntil(condition: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`waited 10 s for ${what}`);
    await sleep(10);
  }
}

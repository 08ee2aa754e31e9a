/**
 * A batch's transaction is given up TRANSACTION_RETRY_MS after it began: no attempt of its work
 * and no retry of its commit starts later. The driver's `withTransaction` retries a commit whose
 * result is unknown for 120 s (its fixed bound in driver 7.9.0, where `timeoutMS` has no effect:
 * the drivers' convenient transaction API retries "until 120 seconds" without a client-side
 * timeout), so the adapter runs the loop itself. On the mingo stand-in, whose server clock the
 * test moves: with replication held, a commit of write concern "majority" fails after its
 * wtimeoutMS with WriteConcernFailed labelled UnknownTransactionCommitResult (MongoDB manual,
 * "Write Concern": wtimeout; "Transactions": "Retry commit on UnknownTransactionCommitResult").
 */
import { MongoServerError } from 'mongodb';
import { MONGO_WRITE_TIMEOUT_MS } from '../../src/config/mongo-client-options';
import {
  MongoTransactionGaveUpError,
  TRANSACTION_RETRY_MS,
  mongoProjectionStore,
} from '../../src/infra/mongo/mongo-read-db';
import { isTransientStoreError } from '../../src/projections/transient-error';
import { MingoClock, mingoReadDb, mingoServer } from '../support/mingo-mongo';
import { until } from '../support/until';

const START = 1_000_000;

function replicaSet() {
  const clock = new MingoClock(START);
  const read = mingoReadDb({ transactions: true, clock });
  const server = mingoServer(read);
  const store = mongoProjectionStore(read, ['docs']);
  const batch = () =>
    store.commit('p', 1n, async () => {
      await read.db.collection('docs').updateOne(
        { _id: 1 } as object,
        { $set: { n: 1 } },
        {
          upsert: true,
          ...read.sessionOption(),
        },
      );
    });
  return { clock, read, server, store, batch };
}

describe('the bound of a batch transaction (mingo stand-in of a replica set)', () => {
  it('given work that meets a write conflict (TransientTransactionError), when it runs again, then only after a pause on the clock, as the drivers do', async () => {
    // given
    const { clock, read, store } = replicaSet();
    let attempts = 0;
    const conflict = () =>
      new MongoServerError({
        ok: 0,
        code: 112,
        codeName: 'WriteConflict',
        errmsg: 'write conflict',
        errorLabels: ['TransientTransactionError'],
      });
    const turns = async (n: number) => {
      for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
    };
    // when
    const committed = store.commit('p', 1n, async () => {
      attempts += 1;
      if (attempts <= 2) throw conflict();
      await read.db.collection('docs').updateOne({ _id: 1 } as object, { $set: { n: 1 } }, read.sessionOption());
    });
    // then: each rerun waits for the clock to pass its pause (at most 500 ms), never at once
    await until(() => attempts === 1, 'the first attempt');
    await turns(20);
    expect(attempts).toBe(1);
    clock.pass(500);
    await until(() => attempts === 2, 'the second attempt');
    await turns(20);
    expect(attempts).toBe(2);
    clock.pass(500);
    await committed;
    expect(attempts).toBe(3);
  });

  it('given a majority that never acknowledges, when the batch commits, then its commit is retried while the bound lasts and then given up, as a transient error', async () => {
    // given
    const { clock, server, batch } = replicaSet();
    server.holdReplication();
    // when: each commit waits its wtimeoutMS on the server's clock, then its result is unknown
    const outcome = batch().then(
      () => undefined,
      (error: unknown) => error,
    );
    let settled = false;
    void outcome.then(() => (settled = true));
    for (let waits = 0; !settled; waits++) {
      // Far more waits than the bound allows: where nothing gives up, the loop ends here.
      if (waits > 20) break;
      await until(() => settled || server.awaitingMajority, 'a commit to wait for a majority, or the batch to end');
      if (!settled) clock.pass(MONGO_WRITE_TIMEOUT_MS);
    }
    const error = await Promise.race([outcome, Promise.resolve('still retrying' as const)]);
    // then
    expect(error).toBeInstanceOf(MongoTransactionGaveUpError);
    expect((error as Error).cause).toMatchObject({ code: 64, errorLabels: ['UnknownTransactionCommitResult'] });
    expect(isTransientStoreError(error)).toBe(true);
    // The commits asked: the first, and retries begun before the bound ran out; none after it.
    expect(server.commits).toEqual([START, START + MONGO_WRITE_TIMEOUT_MS]);
    expect(server.commits.every((at) => at < START + TRANSACTION_RETRY_MS)).toBe(true);
    server.releaseReplication();
  });

  it('given a commit whose result was unknown, when a majority acknowledges the retried commit, then the batch is written once', async () => {
    // given
    const { clock, read, server, batch } = replicaSet();
    server.holdReplication();
    const committed = batch();
    await until(() => server.awaitingMajority, 'the commit to wait for a majority');
    // when: the first commit's wtimeout passes; the retried commit waits, and replication catches up
    clock.pass(MONGO_WRITE_TIMEOUT_MS);
    await until(() => server.commits.length === 2 && server.awaitingMajority, 'the commit to be asked again');
    server.releaseReplication();
    // then
    await committed;
    expect(await read.checkpoint('p')).toBe(1n);
    expect(await read.db.collection('docs').find({}).toArray()).toEqual([{ _id: 1, n: 1 }]);
    expect(server.transactionOptions).toHaveLength(1);
  });

  it('given work that fails with an error that is not transient, then the batch fails at once with it and nothing is written', async () => {
    const { read, server, store } = replicaSet();
    const bug = new TypeError('a bug in a projection');

    await expect(
      store.commit('p', 1n, async () => {
        await read.db.collection('docs').updateOne(
          { _id: 1 } as object,
          { $set: { n: 1 } },
          {
            upsert: true,
            ...read.sessionOption(),
          },
        );
        throw bug;
      }),
    ).rejects.toBe(bug);
    expect(server.transactionOptions).toHaveLength(1);
    expect(await read.db.collection('docs').find({}).toArray()).toEqual([]);
  });
});

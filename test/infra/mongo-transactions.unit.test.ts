/**
 * The MongoDB read models' transaction path where no MongoDB runs: which deployments get it (a
 * pure reading of the `hello` reply), the fence and the insert half of a guarded upsert as mingo
 * evaluates them, and a batch's commit on the mingo stand-in with and without its transaction
 * model (the stand-in refuses any operation that leaves the open transaction).
 */
import type { Document } from 'mongodb';
import {
  applyGuardedUpsert,
  guardedUpsert,
  insertIfAbsent,
  type GuardedUpsert,
} from '../../src/infra/mongo/mongo-guarded-write';
import { fenceWrite, supportsTransactions } from '../../src/infra/mongo/mongo-read-db';
import { describeMongoBatchContract } from '../contract/mongo-batch-contract';
import { mingoReadDb } from '../support/mingo-mongo';

describe('transaction capability, read from the hello reply', () => {
  it.each([
    ['a standalone server', false, { isWritablePrimary: true, maxWireVersion: 21, logicalSessionTimeoutMinutes: 30 }],
    [
      'a replica set primary',
      true,
      { isWritablePrimary: true, setName: 'rs0', hosts: ['a:27017'], logicalSessionTimeoutMinutes: 30 },
    ],
    ['a replica set secondary', true, { isWritablePrimary: false, secondary: true, setName: 'rs0' }],
    ['a single-node replica set (testcontainers)', true, { isWritablePrimary: true, setName: 'docker-rs' }],
    ['a mongos', true, { isWritablePrimary: true, msg: 'isdbgrid', logicalSessionTimeoutMinutes: 30 }],
    ['an empty set name', false, { isWritablePrimary: true, setName: '' }],
    ['another msg', false, { isWritablePrimary: true, msg: 'something else' }],
  ])('given %s, then transactions: %p', (_, expected, hello) => {
    expect(supportsTransactions(hello)).toBe(expected);
  });
});

describe('the fence, as mingo evaluates it', () => {
  const lease = (holder: string, token: number, expiresAt: number): Document => ({
    _id: 'resources',
    holder,
    token,
    expiresAt,
  });
  /** The fence on the stand-in, whose server clock reads 5000: the document after it, or undefined when it missed. */
  const apply = async (doc: Document, fence: Parameters<typeof fenceWrite>[0]): Promise<Document | undefined> => {
    const leases = mingoReadDb({ serverNow: () => 5000 }).db.collection('projection_leases');
    await leases.updateOne({ _id: doc._id } as Document, { $set: doc }, { upsert: true });
    const { filter, update: modifier } = fenceWrite(fence);
    const { matchedCount } = await leases.updateOne(filter, modifier);
    return matchedCount === 0 ? undefined : ((await leases.findOne({ _id: doc._id } as Document)) ?? undefined);
  };
  // The process's clock (nowMs) is far from the server's: the server's decides.
  const fence = { projection: 'resources', holder: 'a', token: 3n, ttlMs: 1000, nowMs: 999_999 };

  it("given the lease still the holder's, then the fence matches and renews it from the server's now", async () => {
    expect(await apply(lease('a', 3, 4000), fence)).toEqual(lease('a', 3, 6000));
  });

  it("given the lease still the holder's but expired, then the fence still matches: nobody took it over", async () => {
    expect(await apply(lease('a', 3, 100), fence)).toEqual(lease('a', 3, 6000));
  });

  it.each([
    ['taken over by another holder', lease('b', 4, 9000)],
    ['taken back by the same holder after someone else (a new token)', lease('a', 5, 9000)],
    ["another projection's", { ...lease('a', 3, 9000), _id: 'directory' }],
  ])('given the lease %s, then the fence misses', async (_, doc) => {
    expect(await apply(doc, fence)).toBeUndefined();
  });
});

describe('a guarded upsert inside a transaction', () => {
  const write = (position: bigint, name: string) => guardedUpsert(1, position, { name }, { createdAt: 'first' });
  /**
   * On the stand-in: inside its transaction model (which a duplicate key would abort), or as on a standalone
   * server.
   */
  const run = async (transactions: boolean, seed: Document[], writes: GuardedUpsert[]) => {
    const read = mingoReadDb({ transactions });
    const collection = read.db.collection('docs');
    for (const doc of seed) await collection.updateOne({ _id: doc._id }, { $set: doc }, { upsert: true });
    const batch = async () => {
      for (const w of writes) await applyGuardedUpsert(collection, w, read.sessionOption().session);
    };
    await (transactions ? read.transaction(batch) : batch());
    return collection.find({}).toArray();
  };

  it.each([
    ['no document yet', [], [write(5n, 'new')]],
    ['an older document', [{ _id: 1, name: 'old', createdAt: 'then', position: 2 }], [write(5n, 'new')]],
    ['the same position (a replay)', [{ _id: 1, name: 'same', createdAt: 'then', position: 5 }], [write(5n, 'new')]],
    ['a newer document', [{ _id: 1, name: 'newer', createdAt: 'then', position: 9 }], [write(5n, 'new')]],
    ['a document without a position', [{ _id: 1, name: 'bare' }], [write(5n, 'new')]],
    ['several events, one replayed', [], [write(3n, 'a'), write(5n, 'b'), write(4n, 'c'), write(5n, 'd')]],
  ])(
    'given %s, then the update-then-insert leaves what the one upsert (duplicate key ignored) leaves',
    async (_, seed, writes) => {
      expect(await run(true, seed as Document[], writes)).toEqual(await run(false, seed as Document[], writes));
    },
  );

  it("builds the insert from the filter's equalities, $setOnInsert and $set, keyed on _id alone", () => {
    const upload = {
      filter: { _id: 'p/a.pdf', position: { $lt: 5 }, deleted: false },
      update: { $set: { name: 'a.pdf', deleted: false, position: 5 }, $setOnInsert: { uploadedAt: 't' } },
    };
    expect(insertIfAbsent(upload)).toEqual({
      filter: { _id: 'p/a.pdf' },
      update: { $setOnInsert: { deleted: false, uploadedAt: 't', name: 'a.pdf', position: 5 } },
    });
  });

  it('refuses an update it cannot turn into an insert', () => {
    expect(() => insertIfAbsent({ filter: { _id: 1 }, update: { $inc: { n: 1 } } })).toThrow('$inc');
  });
});

describeMongoBatchContract('the mingo stand-in of a replica set', async () => {
  const read = mingoReadDb({ transactions: true });
  expect(read.transactions).toBe(true);
  return { read, dispose: async () => undefined };
});

describeMongoBatchContract('the mingo stand-in of a standalone server', async () => ({
  read: mingoReadDb(),
  dispose: async () => undefined,
}));

describe('a write outside a transaction to a document the transaction read (mingo stand-in of a replica set)', () => {
  it('given a batch that read a checkpoint, when another process changes it before the batch writes it, then the batch meets a write conflict, runs again and keeps the other write', async () => {
    // given
    const a = mingoReadDb({ transactions: true });
    const b = mingoReadDb({ server: a });
    await a.setCheckpointLog('p', 'log-before');
    let letWrite!: () => void;
    const mayWrite = new Promise<void>((resolve) => (letWrite = resolve));
    let readOnce!: () => void;
    const read = new Promise<void>((resolve) => (readOnce = resolve));
    let attempts = 0;
    // when
    const batch = a.transaction(async () => {
      attempts += 1;
      await a.checkpoint('p');
      readOnce();
      await mayWrite;
      await a.writeCheckpoint('p', 42n);
    });
    await read;
    await b.setCheckpointLog('p', 'log-written-beside');
    letWrite();
    await batch;
    // then: as on the server, where the first attempt aborts with WriteConflict (TransientTransactionError)
    expect(attempts).toBe(2);
    expect(await b.checkpointLog('p')).toBe('log-written-beside');
    expect(await b.checkpoint('p')).toBe(42n);
  });
});

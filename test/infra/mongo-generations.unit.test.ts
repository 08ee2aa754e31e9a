import { REBUILD_LOCK_TTL_MS, mongoGenerations } from '../../src/infra/read-generations';
import type { MongoReadDb } from '../../src/infra/mongo/mongo-read-db';
import { mingoReadDb } from '../support/mingo-mongo';

/*
 * The read-model generation pointer on MongoDB, on the mingo stand-in: every process reads it every
 * 500 ms, through one client kept open, not a client per read.
 */
describe('MongoDB generation pointer', () => {
  it('given the pointer read many times and moved, then one client serves every read and sees the move', async () => {
    // given
    const base = mingoReadDb();
    const connects: (string | undefined)[] = [];
    const generations = mongoGenerations('mongodb://stand-in/reads', 1000, async (dbName?: string) => {
      connects.push(dbName);
      return base as MongoReadDb;
    });
    // when
    const before = [];
    for (let i = 0; i < 20; i++) before.push(await generations.current());
    await generations.switchTo(3);
    const after = await generations.current();
    // then
    expect(new Set(before)).toEqual(new Set([0]));
    expect(after).toBe(3);
    expect(connects).toEqual([undefined]);
    await generations.close();
  });

  it('given the pointer closed, when read again, then it connects anew', async () => {
    // given
    const connects: (string | undefined)[] = [];
    const generations = mongoGenerations('mongodb://stand-in/reads', 1000, async (dbName?: string) => {
      connects.push(dbName);
      return mingoReadDb() as MongoReadDb;
    });
    await generations.current();
    await generations.close();
    // when
    await generations.current();
    // then
    expect(connects).toEqual([undefined, undefined]);
  });
});

describe('MongoDB rebuild lock', () => {
  afterEach(() => jest.useRealTimers());

  /** Two processes' generations over one database, whose server clock the test moves. */
  function twoProcesses() {
    let now = 1_000_000;
    const base = mingoReadDb({ serverNow: () => now });
    const processOf = () => mongoGenerations('mongodb://stand-in/reads', 1000, async () => base as MongoReadDb);
    return { a: processOf(), b: processOf(), pass: (ms: number) => (now += ms) };
  }

  it('given one process rebuilding, when another asks for the lock, then it is refused until the first releases it', async () => {
    const { a, b } = twoProcesses();
    const first = await a.lockRebuild();

    expect(first?.held).toBe(true);
    expect(await b.lockRebuild()).toBeNull();
    await first?.release();
    const second = await b.lockRebuild();
    expect(second?.held).toBe(true);
    await second?.release();
  });

  it("given a rebuild that stopped renewing its lock, when the server's clock passes the TTL, then another takes it and the first finds it lost", async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    const { a, b, pass } = twoProcesses();
    const stalled = await a.lockRebuild();
    pass(REBUILD_LOCK_TTL_MS);

    const taker = await b.lockRebuild();
    expect(taker?.held).toBe(true);
    // The stalled one's next renewal finds the lease taken.
    await jest.advanceTimersByTimeAsync(REBUILD_LOCK_TTL_MS / 4);
    expect(stalled?.held).toBe(false);
    expect(taker?.held).toBe(true);
    await stalled?.release();
    expect(await a.lockRebuild()).toBeNull();
    await taker?.release();
  });

  it('given a lock renewed while its rebuild runs, then it outlives its TTL', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    const { a, b, pass } = twoProcesses();
    const lock = await a.lockRebuild();
    for (let i = 0; i < 12; i++) {
      pass(REBUILD_LOCK_TTL_MS / 6);
      await jest.advanceTimersByTimeAsync(REBUILD_LOCK_TTL_MS / 6);
    }

    expect(lock?.held).toBe(true);
    expect(await b.lockRebuild()).toBeNull();
    await lock?.release();
  });
});

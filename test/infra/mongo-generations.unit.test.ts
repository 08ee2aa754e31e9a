import { mongoGenerations } from '../../src/infra/read-generations';
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

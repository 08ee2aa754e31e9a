/**
 * A key's lastUsedAt on MongoDB is written by the API processes, not projected from events, so a
 * blue/green rebuild, which projects the log into a new database (`<name>_g<n>`), cannot rebuild
 * it: it lives in generation 0's database, named in MONGODB_URL, which outlives every generation.
 * On the mingo stand-in, one server holding the generations' databases, opened through the
 * generations as the service opens them, and on a real MongoDB.
 */
import { READ_MODELS } from '../../src/app/read-model-list';
import { MongoReadDb } from '../../src/infra/mongo/mongo-read-db';
import { mongoGenerations } from '../../src/infra/read-generations';
import { mingoReadDb } from '../support/mingo-mongo';
import { describeMongo } from '../support/mongo-target';
import { rebuilt, usedKey as key } from '../support/api-key-fixtures';

const USER = key.userId;
const USED_AT = '2026-01-02T03:04:00.000Z';

/** The service's generations over one stand-in server whose base database is `reads`. */
function generationsOnOneServer() {
  const base = mingoReadDb({ transactions: true, dbName: 'reads' });
  const generations = mongoGenerations('mongodb://stand-in/reads', 1000, async (dbName, keptDbName) =>
    dbName === undefined ? base : mingoReadDb({ server: base, dbName, keptDbName }),
  );
  const storeOf = async (generation: number) => {
    const opened = await generations.open(generation);
    if (opened.kind !== 'mongo') throw new Error('given: a MongoDB generation');
    return READ_MODELS.apiKeys.mongo(opened.mongo);
  };
  return { base, generations, storeOf };
}

describe("a key's lastUsedAt across blue/green rebuilds on MongoDB (mingo stand-in)", () => {
  it('given a key used while generation 0 served, when generation 1 is built, then 2 and generation 1 dropped, then each new one lists the key with its lastUsedAt', async () => {
    // given
    const { generations, storeOf } = generationsOnOneServer();
    const first = await rebuilt(await storeOf(0));
    await first.recordUse(key.id, USED_AT);
    // when
    const second = await rebuilt(await storeOf(1));
    // then
    expect((await second.listForUser(USER)).map((k) => k.lastUsedAt)).toEqual([USED_AT]);
    // when
    const third = await rebuilt(await storeOf(2));
    await generations.drop(1);
    // then
    expect((await third.listForUser(USER)).map((k) => k.lastUsedAt)).toEqual([USED_AT]);
    expect(await third.byKeyId(key.keyId)).toMatchObject({ lastUsedAt: USED_AT });
  });

  it('given a use recorded through a later generation, then every generation answers the latest', async () => {
    const { storeOf } = generationsOnOneServer();
    const older = await rebuilt(await storeOf(0));
    const newer = await rebuilt(await storeOf(1));

    await older.recordUse(key.id, USED_AT);
    await newer.recordUse(key.id, '2026-01-03T00:00:00.000Z');
    await older.recordUse(key.id, '2026-01-02T23:00:00.000Z');

    expect((await older.listForUser(USER))[0]?.lastUsedAt).toBe('2026-01-03T00:00:00.000Z');
    expect((await newer.listForUser(USER))[0]?.lastUsedAt).toBe('2026-01-03T00:00:00.000Z');
  });

  it("given uses recorded in a generation's own database (before they were kept apart), when the store opens, then they are carried over", async () => {
    // given: generation 3 served by a version that kept usage beside the projected keys
    const { base, storeOf } = generationsOnOneServer();
    const before: MongoReadDb = mingoReadDb({ server: base, dbName: 'reads_g3' });
    await before.db
      .collection('api_key_usage')
      .updateOne({ _id: key.id } as object, { $set: { lastUsedAt: USED_AT } }, { upsert: true });
    // when
    const store = await rebuilt(await storeOf(3));
    // then
    expect((await store.listForUser(USER))[0]?.lastUsedAt).toBe(USED_AT);
    // and the next rebuild finds them kept
    expect((await (await rebuilt(await storeOf(4))).listForUser(USER))[0]?.lastUsedAt).toBe(USED_AT);
  });
});

describeMongo("a key's lastUsedAt across generations", (mongo) => {
  it('given a use recorded through generation 0, when generation 1 is built in its own database, then it lists the key with that use', async () => {
    const { url, dbName } = mongo();
    const base = dbName();
    const g0 = await MongoReadDb.connect(url, base);
    const g1 = await MongoReadDb.connect(url, `${base}_g1`, undefined, base);
    try {
      const first = await rebuilt(await READ_MODELS.apiKeys.mongo(g0));
      await first.recordUse(key.id, USED_AT);

      const second = await rebuilt(await READ_MODELS.apiKeys.mongo(g1));

      expect((await second.listForUser(USER)).map((k) => k.lastUsedAt)).toEqual([USED_AT]);
    } finally {
      await g1.db.dropDatabase();
      await g0.db.dropDatabase();
      await Promise.all([g0.close(), g1.close()]);
    }
  });
});

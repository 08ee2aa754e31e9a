import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import type { PersonalDataKeys } from '../../src/ports/personal-data-keys';
import { SqlitePersonalDataKeys } from '../../src/infra/sqlite/sqlite-personal-data-keys';
import { PostgresPersonalDataKeys } from '../../src/infra/postgres/postgres-personal-data-keys';
import { MongoPersonalDataKeys } from '../../src/infra/mongo/mongo-personal-data-keys';
import { describeExternal, externalTarget } from '../support/external';
import { describeMongo } from '../support/mongo-target';
import { dropSchema, freshSchema } from '../support/postgres';
import type { OpenedStore } from '../support/read-db-adapters';

/**
 * The personal-data key port's contract. `open` gives two handles on one fresh store, as two
 * processes of one deployment would hold, so "every process gets the same key" is tested as such.
 */
type TwoHandles = { first: PersonalDataKeys; second: PersonalDataKeys };

function personalDataKeysContract(open: () => Promise<OpenedStore<TwoHandles>>) {
  let first: PersonalDataKeys;
  let second: PersonalDataKeys;
  let dispose: () => Promise<void>;
  beforeEach(async () => {
    ({
      store: { first, second },
      dispose,
    } = await open());
  });
  afterEach(() => dispose());

  it('given no key, keyFor makes one of 32 bytes, and every later call, on any handle, gives the same', async () => {
    const key = await first.keyFor(7);
    expect(key).toHaveLength(32);
    expect(await first.keyFor(7)).toEqual(key);
    expect(await second.keyFor(7)).toEqual(key);
    expect(await first.keyFor(8)).not.toEqual(key);
  });

  it('given many concurrent first calls for one person on both handles, all give one key', async () => {
    // An append seals several events of one caller at once, and two processes append side by side.
    const keys = await Promise.all(Array.from({ length: 24 }, (_, i) => (i % 2 === 0 ? first : second).keyFor(42)));
    expect(new Set(keys.map((key) => key.toString('hex'))).size).toBe(1);
    expect((await second.keysOf([42])).get(42)).toEqual(keys[0]);
  });

  it('given a key destroyed on one handle while the other asks for it again and again, every call answers a key of 32 bytes', async () => {
    // An erasure on one process while another appends for the same person.
    await first.keyFor(9);
    const asked = Promise.all(Array.from({ length: 40 }, () => first.keyFor(9)));
    const destroyed = Promise.all(Array.from({ length: 10 }, () => second.destroy(9)));
    const [keys] = await Promise.all([asked, destroyed]);
    for (const key of keys) expect(key).toHaveLength(32);
  });

  it('keysOf gives only the keys that exist; destroy removes one for good and says whether it was there', async () => {
    const a = await first.keyFor(1);
    const b = await first.keyFor(2);
    expect(await second.keysOf([1, 2, 3])).toEqual(
      new Map([
        [1, a],
        [2, b],
      ]),
    );
    expect(await second.destroy(1)).toBe(true);
    expect(await second.destroy(1)).toBe(false);
    expect(await first.keysOf([1, 2])).toEqual(new Map([[2, b]]));
    // A person who acts again after an erasure gets a new key: what was sealed before stays unreadable.
    const again = await first.keyFor(1);
    expect(again).not.toEqual(a);
  });
}

describe('personal-data keys contract (SQLite file)', () => {
  personalDataKeysContract(async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prs-keys-'));
    const file = path.join(dir, 'personal-data-keys.sqlite');
    const first = SqlitePersonalDataKeys.open(file);
    const second = SqlitePersonalDataKeys.open(file);
    return {
      store: { first, second },
      dispose: async () => {
        await first.close();
        await second.close();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  });
});

const postgres = externalTarget('postgres');
describeExternal('personal-data keys contract (PostgreSQL)', postgres, () => {
  personalDataKeysContract(async () => {
    const url = postgres.kind === 'url' ? postgres.url : '';
    const schema = freshSchema('keys');
    const first = await PostgresPersonalDataKeys.connect(url, schema);
    const second = await PostgresPersonalDataKeys.connect(url, schema);
    return {
      store: { first, second },
      dispose: async () => {
        await first.close();
        await second.close();
        await dropSchema(url, schema);
      },
    };
  });
});

describeMongo('personal-data keys contract', (mongo) => {
  personalDataKeysContract(async () => {
    const { url, dbName } = mongo();
    const withDb = new URL(url);
    withDb.pathname = `/${dbName()}`;
    const first = await MongoPersonalDataKeys.connect(withDb.toString(), 5_000);
    const second = await MongoPersonalDataKeys.connect(withDb.toString(), 5_000);
    return {
      store: { first, second },
      dispose: async () => {
        const client = await MongoClient.connect(withDb.toString());
        await client.db().dropDatabase();
        await client.close();
        await first.close();
        await second.close();
      },
    };
  });
});

import { MongoReadDb } from '../../src/infra/mongo/mongo-read-db';
import { SqliteReadDb } from '../../src/infra/sqlite/sqlite-read-db';
import { mingoReadDb, unboundedReads } from './mingo-mongo';
import { describeMongo } from './mongo-target';
import { PostgresReadDb } from '../../src/infra/postgres/postgres-read-db';
import { describeExternal, externalTarget } from './external';
import { dropSchema, freshSchema } from './postgres';

export type OpenedStore<Store> = { store: Store; dispose: () => Promise<void> };

/** A contract suite: declared once per adapter, with the adapter's name and a way to open a fresh store. */
export type StoreContract<Store> = (name: string, open: () => Promise<OpenedStore<Store>>) => void;

/**
 * Opens a fresh store before each test of the enclosing block, hands it to `use`, and disposes of it after
 * the test.
 */
export function withFreshStore<Store>(open: () => Promise<OpenedStore<Store>>, use: (store: Store) => void): void {
  let dispose: () => Promise<void> = async () => undefined;
  beforeEach(async () => {
    const opened = await open();
    dispose = opened.dispose;
    use(opened.store);
  });
  afterEach(async () => dispose());
}

/**
 * Runs a read model's contract against every adapter: its SQLite adapter on `:memory:`, its
 * MongoDB adapter on the in-process mingo stand-in (where each of its queries must carry its time
 * bound), and on a real MongoDB when one answers
 * (otherwise declared as skipped, see describeMongo), each on a fresh database dropped after.
 */
export function describeOnEveryReadDb<Store>(
  contract: StoreContract<Store>,
  adapters: {
    readonly sqlite: readonly [name: string, open: (read: SqliteReadDb) => Store];
    readonly mongo: readonly [name: string, open: (read: MongoReadDb) => Promise<Store>];
    readonly postgres?: readonly [name: string, open: (read: PostgresReadDb) => Promise<Store>];
  },
): void {
  const [sqliteName, openSqlite] = adapters.sqlite;
  if (adapters.postgres) describeOnPostgres(contract, ...adapters.postgres);
  const [mongoName, openMongo] = adapters.mongo;
  contract(sqliteName, async () => {
    const read = SqliteReadDb.open(':memory:');
    return { store: openSqlite(read), dispose: async () => read.close() };
  });
  contract(`${mongoName} on the mingo stand-in`, async () => {
    const read = mingoReadDb();
    return {
      store: await openMongo(read),
      // Every query the contract made carried a server-side time bound (readOptions(), or the digest's own).
      dispose: async () => expect(unboundedReads(read)).toEqual([]),
    };
  });
  describeOnRealMongo(mongoName, contract, mongoName, openMongo);
}

/**
 * Runs a contract, as `name`, against a real MongoDB (`suite` names the describeMongo block: skipped
 * when none answers), each store on a fresh database dropped after.
 */
export function describeOnRealMongo<Store>(
  suite: string,
  contract: StoreContract<Store>,
  name: string,
  open: (read: MongoReadDb) => Promise<Store> | Store,
): void {
  describeMongo(suite, (mongo) => {
    contract(name, async () => {
      const { url, dbName } = mongo();
      const read = await MongoReadDb.connect(url, dbName());
      return {
        store: await open(read),
        dispose: async () => {
          await read.db.dropDatabase();
          await read.close();
        },
      };
    });
  });
}

/**
 * Runs a contract against the PostgreSQL server of the suites (never skipped in CI: see
 * test/support/global-setup.ts), each store on a fresh schema dropped after. `bulkLoad`: on a read
 * database loading a new generation (PostgresReadDbOptions.bulkLoad), where `open` resets the store.
 */
export function describeOnPostgres<Store>(
  contract: StoreContract<Store>,
  name: string,
  open: (read: PostgresReadDb) => Promise<Store> | Store,
  options: { readonly bulkLoad?: boolean } = {},
): void {
  const target = externalTarget('postgres');
  describeExternal(`${name} on PostgreSQL${options.bulkLoad ? ', bulk-loading' : ''}`, target, () => {
    contract(name, async () => {
      const url = target.kind === 'url' ? target.url : '';
      const schema = freshSchema('read');
      const read = await PostgresReadDb.connect(url, { schema, queryTimeoutMs: 10_000, bulkLoad: options.bulkLoad });
      return {
        store: await open(read),
        dispose: async () => {
          await read.close();
          await dropSchema(url, schema);
        },
      };
    });
  });
}

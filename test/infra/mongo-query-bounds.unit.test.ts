/**
 * Every MongoDB read-model query carries a server-side time bound (`maxTimeMS`, from
 * MONGO_QUERY_TIMEOUT_MS through `MongoReadDb.readOptions()`), so that a slow or stuck query fails
 * instead of holding a request, a projection or readiness; and the client bounds the rest. Run on
 * the mingo stand-in, which records the options of every query it answers. The contract suites of
 * the directory, application, files and resource-view stores check the same on the stand-in after
 * each test (`describeOnEveryReadDb`); here are the stores those suites run elsewhere, the read db's own
 * reads, and a slow query against a real server.
 */
import { MongoClient } from 'mongodb';
import { mongoClientOptions, MONGO_WRITE_TIMEOUT_MS } from '../../src/config/mongo-client-options';
import { READ_MODELS } from '../../src/app/read-model-list';
import { MongoReadDb, mongoProjectionStore } from '../../src/infra/mongo/mongo-read-db';
import { isTransientStoreError } from '../../src/projections/transient-error';
import { mingoReadDb, mingoReads, unboundedReads } from '../support/mingo-mongo';
import { describeMongo } from '../support/mongo-target';
import { keyCreated } from '../support/api-key-fixtures';

const TIMEOUT = 1234;
/** The queries bounded by something else than the configured query bound. */
const boundedOtherwise = (read: MongoReadDb) => mingoReads(read).filter((r) => r.options.maxTimeMS !== TIMEOUT);

describe('read options', () => {
  it('given a configured bound, then every query option carries it, with the batch session inside a transaction only', async () => {
    const read = mingoReadDb({ transactions: true, queryTimeoutMs: TIMEOUT });
    expect(read.readOptions()).toEqual({ maxTimeMS: TIMEOUT });
    await read.transaction(async () => {
      expect(read.readOptions()).toEqual({ session: read.sessionOption().session, maxTimeMS: TIMEOUT });
      expect(read.readOptions().session).toBeDefined();
    });
  });
});

describe('every query path of the MongoDB read models is bounded', () => {
  it('given the API keys store, when each query runs (keys and their usage), then each carries maxTimeMS', async () => {
    const read = mingoReadDb({ queryTimeoutMs: TIMEOUT });
    const store = await READ_MODELS.apiKeys.mongo(read);
    await keyCreated(store, {
      id: 1,
      keyId: 'k1',
      userId: 7,
      name: 'n',
      secretHash: 'h',
      createdAt: '2025-01-01T00:00:00.000Z',
      expiresAt: '2026-01-01T00:00:00.000Z',
      readOnly: false,
      ratePerHour: null,
    });

    expect(await store.byKeyId('k1')).toMatchObject({ keyId: 'k1' });
    expect(await store.listForUser(7)).toHaveLength(1);

    expect(mingoReads(read).map((r) => `${r.collection}.${r.operation}`)).toEqual(
      expect.arrayContaining(['doc_api_keys.find', 'api_key_usage.find']),
    );
    expect(mingoReads(read).length).toBeGreaterThanOrEqual(4);
    expect(unboundedReads(read)).toEqual([]);
    expect(boundedOtherwise(read)).toEqual([]);
  });

  it.each([false, true])(
    "given the runner's side (transactions: %p), when it reads checkpoints and takes a lease, then each read carries maxTimeMS",
    async (transactions) => {
      const read = mingoReadDb({ transactions, queryTimeoutMs: TIMEOUT });
      const store = mongoProjectionStore(read, ['docs']);
      const lease = await read.leases.acquire('docs', 'a', 1000, 0);
      expect(lease).not.toBeNull();
      await store.commit('docs', 5n, async () => undefined, {
        projection: 'docs',
        holder: 'a',
        token: lease!.token,
        ttlMs: 1000,
        nowMs: 1,
      });
      await store.setCheckpointLog('docs', 'log');

      expect(await store.checkpoint('docs')).toBe(5n);
      expect(await store.checkpointLog('docs')).toBe('log');

      expect(mingoReads(read).map((r) => r.collection)).toEqual(
        expect.arrayContaining(['projection_leases', 'projection_checkpoints']),
      );
      expect(unboundedReads(read)).toEqual([]);
      expect(boundedOtherwise(read)).toEqual([]);
    },
  );
});

describe('the client options and readiness', () => {
  it('given no server answering, when readiness pings, then it fails within the query bound, not after server selection', async () => {
    // given: nothing listens on port 1, so server selection alone would wait its 5 s and fail
    // with MongoServerSelectionError
    const client = new MongoClient('mongodb://127.0.0.1:1/x', mongoClientOptions(200));
    const read = new (
      MongoReadDb as unknown as new (
        client: MongoClient,
        db: unknown,
        transactions: boolean,
        queryTimeoutMs: number,
      ) => MongoReadDb
    )(client, client.db(), false, 200);
    // when
    const failure = await read.ping().then(
      () => undefined,
      (error: unknown) => error,
    );
    await read.close();
    // then: what ended it is the query bound's timeout, not the server selection's
    expect(failure).toBeInstanceOf(DOMException);
    expect(failure).toMatchObject({ name: 'TimeoutError' });
  });

  it.each([1000, 5000, 30_000])(
    'given a query bound of %p ms, then server selection is bounded and the socket backstop lies above every server-side bound',
    (queryTimeoutMs) => {
      const options = mongoClientOptions(queryTimeoutMs);
      expect(options.serverSelectionTimeoutMS).toBe(5000);
      // a new connection, and a wait for a pooled one, bounded too (the driver's defaults: 30 s, for ever)
      expect(options.connectTimeoutMS).toBeLessThanOrEqual(options.serverSelectionTimeoutMS!);
      expect(options.waitQueueTimeoutMS).toBe(queryTimeoutMs);
      expect(options.socketTimeoutMS).toBeGreaterThan(queryTimeoutMs);
      expect(options.socketTimeoutMS).toBeGreaterThan(MONGO_WRITE_TIMEOUT_MS);
      // Deprecated in this driver and without effect: a bound that only seems to be there.
      expect(options).not.toHaveProperty('timeoutMS');
    },
  );
});

describeMongo('a slow query against MongoDB', (mongo) => {
  it('given a query slower than MONGO_QUERY_TIMEOUT_MS, then it fails fast with MaxTimeMSExpired, a transient error', async () => {
    const { url, dbName } = mongo();
    const read = await MongoReadDb.connect(url, dbName(), 200);
    try {
      const docs = read.db.collection('slow');
      await docs.insertOne({ _id: 1 } as never);
      const started = Date.now();
      // $where runs JavaScript on the server; sleep holds the query well past its bound.
      const error = await docs.findOne({ $where: 'sleep(3000) || true' }, read.readOptions()).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toMatchObject({ code: 50 });
      expect(isTransientStoreError(error)).toBe(true);
      expect(Date.now() - started).toBeLessThan(2500);
    } finally {
      await read.db.dropDatabase();
      await read.close();
    }
  });
});

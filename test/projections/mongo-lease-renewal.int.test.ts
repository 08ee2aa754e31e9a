/**
 * A projector's lease on MongoDB while its own batch runs long. The batch's transaction writes the
 * lease document at its fence and holds it until it commits; a write outside the transaction to
 * that document waits until the transaction ends (MongoDB manual, "Transactions: Production
 * Considerations", "In-progress Transactions and Write Conflicts"), and fails once its maxTimeMS
 * has passed ("maxTimeMS": the operation is terminated with MaxTimeMSExpired). A renewal sent
 * beside a batch slower than that bound failed, and the holder demoted itself, then led again: it
 * flapped. The holder's renewals now follow its batches, and each batch renews the lease again as
 * its work ends, so the lease committed with a batch runs its whole TTL from there. On the mingo
 * stand-in, whose server clock the test moves (a batch "running" 20 s), and on a real MongoDB.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { MONGO_WRITE_TIMEOUT_MS } from '../../src/config/mongo-client-options';
import type { RecordedEvent } from '../../src/ports/event-store';
import { SqliteEventStore } from '../../src/infra/sqlite/sqlite-event-store';
import { leaseTimingOf } from '../../src/infra/read-db';
import { MongoReadDb, mongoProjectionStore } from '../../src/infra/mongo/mongo-read-db';
import type { LeaseStore } from '../../src/projections/projection-lease';
import type { ReadModelProjection } from '../../src/projections/read-model-projection';
import { ReadModelRunner } from '../../src/projections/read-model-runner';
import { isTransientStoreError } from '../../src/projections/transient-error';
import { announceSkip, mongoTransactionsSkipReason } from '../support/external';
import { MingoClock, mingoReadDb, mingoServer } from '../support/mingo-mongo';
import { describeMongo } from '../support/mongo-target';
import { until } from '../support/until';

const metadata = {
  actor: { userId: 0, credential: 'system' as const },
  correlationId: 't',
  at: '2026-01-01T00:00:00.000Z',
};
const START = 1_000_000;
/** MongoDB's lease timing in production (leaseTimingOf): 15 s, renewed every 2 s. */
const { ttlMs: TTL } = leaseTimingOf({ kind: 'mongo', mongo: undefined as unknown as MongoReadDb });
/** The renewal's server-side bound (MONGO_QUERY_TIMEOUT_MS's default). */
const QUERY_TIMEOUT_MS = 5000;
/** How long the slow batch runs by the server's clock: past the renewal's bound and past the TTL. */
const SLOW_MS = 20_000;

/** A batch whose one event writes a document and then waits until `release()`. */
function slowBatch(read: MongoReadDb) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  const projection: ReadModelProjection = {
    name: 'slow',
    store: mongoProjectionStore(read, ['docs']),
    async apply(event: RecordedEvent) {
      await read.db.collection('docs').updateOne(
        { _id: String(event.position) } as object,
        { $set: { at: 1 } },
        {
          upsert: true,
          ...read.sessionOption(),
        },
      );
      started();
      await gate;
    },
  };
  return { projection, running, release };
}

describe('a holder renewing its MongoDB lease while its own batch runs long (mingo stand-in of a replica set)', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  it('given a batch that runs past the renewal bound and the TTL, when the lease is renewed meanwhile, then the holder is never demoted and keeps the lease', async () => {
    // given: a projector leading on a replica set, its first batch slow
    const clock = new MingoClock(START);
    const read = mingoReadDb({ transactions: true, clock, queryTimeoutMs: QUERY_TIMEOUT_MS });
    const standby = mingoReadDb({ server: read });
    const events = SqliteEventStore.open(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'prs-renewal-')), 'e.sqlite'));
    await events.appendToStream('s-1', [{ type: 'Happened', data: {}, metadata }], 'any');
    const { projection, running, release } = slowBatch(read);
    const renewals = { asked: 0, answered: 0 };
    const leases: LeaseStore = {
      acquire: async (...args) => {
        renewals.asked += 1;
        try {
          return await read.leases.acquire(...args);
        } finally {
          renewals.answered += 1;
        }
      },
      release: (lease) => read.leases.release(lease),
    };
    const lines: { msg?: string }[] = [];
    const logger = pino(
      { level: 'info' },
      { write: (line: string) => lines.push(JSON.parse(line) as { msg?: string }) },
    );
    const runner = new ReadModelRunner(events, projection, logger, {
      role: 'project',
      isTransient: isTransientStoreError,
      lease: { store: leases, holder: 'a', ttlMs: TTL, retryMs: 5, now: clock.now },
    });
    cleanups.push(async () => {
      release();
      await runner.stop();
      await events.close();
    });
    const started = runner.start();
    await running;
    // when: renewals are asked while the batch runs, and the batch runs 20 s by the server's clock
    const askedBefore = renewals.asked;
    await until(() => renewals.asked > askedBefore, 'a renewal asked for while the batch runs');
    clock.pass(SLOW_MS);
    const asked = renewals.asked;
    release();
    await started;
    await until(() => renewals.answered >= asked + 1, 'the renewals asked during the batch, and one after, answered');
    // then
    expect(lines.filter((l) => l.msg === 'lost the lease on the projection; standing by')).toEqual([]);
    expect(runner.isLeading).toBe(true);
    expect(await standby.leases.acquire('slow', 'b', TTL, 0)).toBeNull();
    expect(await read.leases.acquire('slow', 'a', TTL, 0)).toMatchObject({ holder: 'a', token: 1n });
    expect(await read.checkpoint('slow')).toBe(1n);
  });

  it('given a standby waiting on the lease the batch holds, when the slow batch commits, then the lease was renewed as the work ended and the standby finds it live', async () => {
    // given: a's lease taken at START, expiring at START + TTL by the server's clock
    const clock = new MingoClock(START);
    const read = mingoReadDb({ transactions: true, clock, queryTimeoutMs: QUERY_TIMEOUT_MS });
    const standby = mingoReadDb({ server: read });
    const lease = await read.leases.acquire('slow', 'a', TTL, 0);
    if (!lease) throw new Error('given: a took the free lease');
    const { projection, running, release } = slowBatch(read);
    const committed = projection.store.commit('slow', 1n, () => projection.apply({} as RecordedEvent), {
      ...lease,
      ttlMs: TTL,
      nowMs: 0,
    });
    await running;
    clock.pass(SLOW_MS);
    // when: another process asks for the lease, which waits on the batch's transaction
    const takeover = standby.leases.acquire('slow', 'b', TTL, 0);
    await until(() => mingoServer(read).waitingOnLocks > 0, "the standby's write to wait on the batch");
    release();
    await committed;
    // then
    expect(await takeover).toBeNull();
    const doc = await read.db.collection('projection_leases').findOne({ _id: 'slow' } as object);
    expect(doc).toMatchObject({ holder: 'a', token: 1, expiresAt: START + SLOW_MS + TTL });
  });

  it('given the production bounds, then a commit is bounded below the lease TTL, so the lease renewed as the work ends outlives the commit', () => {
    expect(MONGO_WRITE_TIMEOUT_MS).toBeLessThan(TTL);
  });
});

// Needs transactions: where the server is not a replica set, declared skipped with the reason.
describeMongo('a holder renewing its lease while its own batch runs long', (mongo) => {
  const noTransactions = mongoTransactionsSkipReason();
  if (noTransactions) announceSkip('a renewal beside a slow batch (MongoDB)', noTransactions);
  (noTransactions ? it.skip : it)(
    `given a batch slower than the renewal's maxTimeMS, when the holder renews meanwhile, then the renewal keeps the lease${noTransactions ? ` (skipped: ${noTransactions})` : ''}`,
    async () => {
      const { url, dbName } = mongo();
      const queryTimeoutMs = 200;
      const read = await MongoReadDb.connect(url, dbName(), queryTimeoutMs);
      try {
        const lease = await read.leases.acquire('slow', 'a', TTL, Date.now());
        if (!lease) throw new Error('given: a took the free lease');
        let renewal: Promise<unknown> | undefined;
        await mongoProjectionStore(read, ['docs']).commit(
          'slow',
          1n,
          async () => {
            await read.db.collection('docs').insertOne({ _id: 1 } as never, read.sessionOption());
            // The renewal is asked while the batch holds the lease document ...
            renewal = read.leases.acquire('slow', 'a', TTL, Date.now()).catch((error: unknown) => error);
            // ... and the batch runs well past the renewal's server-side bound (the slowness under test).
            await sleep(queryTimeoutMs * 3);
          },
          { ...lease, ttlMs: TTL, nowMs: Date.now() },
        );
        expect(await renewal).toEqual({ projection: 'slow', holder: 'a', token: lease.token });
      } finally {
        await read.db.dropDatabase();
        await read.close();
      }
    },
  );
});

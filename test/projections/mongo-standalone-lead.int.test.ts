/**
 * A projector on a standalone MongoDB: its fence is a separate write, so a stale holder's batch
 * could land beside the new holder's. It refuses to lead there and says why; on a replica set
 * (transactions) it leads. The lease store is MongoReadDb's own, on the in-process stand-in.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { RecordedEvent } from '../../src/ports/event-store';
import { SqliteEventStore } from '../../src/infra/sqlite/sqlite-event-store';
import { createLogger } from '../../src/observability/logger';
import { followPollMsOf, leaseTimingOf } from '../../src/infra/read-db';
import { mongoProjectionStore, type MongoReadDb } from '../../src/infra/mongo/mongo-read-db';
import { SqliteReadDb } from '../../src/infra/sqlite/sqlite-read-db';
import type { ReadModelProjection } from '../../src/projections/read-model-projection';
import { ReadModelRunner } from '../../src/projections/read-model-runner';
import { mingoReadDb } from '../support/mingo-mongo';

const metadata = {
  actor: { userId: 0, credential: 'system' as const },
  correlationId: 't',
  at: '2026-01-01T00:00:00.000Z',
};

function counting(read: MongoReadDb): ReadModelProjection & { folded: () => number } {
  let folded = 0;
  return {
    name: 'counting',
    store: mongoProjectionStore(read, []),
    async apply(_event: RecordedEvent) {
      folded += 1;
    },
    folded: () => folded,
  };
}

describe('a projector on MongoDB', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  async function projectorOn(transactions: boolean) {
    const events = SqliteEventStore.open(
      path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'prs-standalone-')), 'events.sqlite'),
    );
    await events.appendToStream('s-1', [{ type: 'Happened', data: {}, metadata }], 'any');
    const mongo = mingoReadDb({ transactions });
    const projection = counting(mongo);
    const runner = new ReadModelRunner(events, projection, createLogger('silent'), {
      role: 'project',
      lease: { store: mongo.leases, holder: 'projector', ttlMs: 15_000, retryMs: 5, now: () => Date.now() },
    });
    cleanups.push(async () => {
      await runner.stop();
      await events.close();
    });
    return { runner, projection };
  }

  it('given a standalone server (no transactions), when a projector starts, then it refuses to lead and readiness says why', async () => {
    // given / when
    const { runner, projection } = await projectorOn(false);
    await runner.start();
    // then
    expect(runner.isLeading).toBe(false);
    expect(projection.folded()).toBe(0);
    expect(runner.problem).toBeDefined();
  });

  it('given a replica set (transactions), when a projector starts, then it leads and folds the log', async () => {
    // given / when
    const { runner, projection } = await projectorOn(true);
    await runner.start();
    // then
    expect(runner.isLeading).toBe(true);
    expect(projection.folded()).toBe(1);
    expect(runner.problem).toBeUndefined();
  });

  it('given MongoDB read models, then a lease lives at least 15 s, renewed several times within it', () => {
    const { ttlMs, retryMs } = leaseTimingOf({ kind: 'mongo', mongo: mingoReadDb({ transactions: true }) });
    expect(ttlMs).toBeGreaterThanOrEqual(15_000);
    expect(retryMs * 3).toBeLessThanOrEqual(ttlMs);
  });

  it('given MongoDB read models, then a process that follows them polls the shared checkpoint at most every 10 ms while a write waits', () => {
    expect(followPollMsOf({ kind: 'mongo', mongo: mingoReadDb({ transactions: true }) })).toBeGreaterThanOrEqual(10);
  });

  it('given SQLite read models over an EventStoreDB log, then a follower also polls at most every 10 ms (each poll reads the log)', () => {
    const read = SqliteReadDb.open(':memory:');
    try {
      expect(followPollMsOf({ kind: 'sqlite', sqlite: read }, true)).toBeGreaterThanOrEqual(10);
      expect(followPollMsOf({ kind: 'sqlite', sqlite: read }, false)).toBeLessThan(10);
    } finally {
      read.close();
    }
  });

  it('given two projectors racing for the leases of one replica set, then exactly one leads, and the other takes over when it stops', async () => {
    // given: one log, one read database, two processes started at once
    const events = SqliteEventStore.open(
      path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'prs-race-')), 'events.sqlite'),
    );
    await events.appendToStream('s-1', [{ type: 'Happened', data: {}, metadata }], 'any');
    const mongo = mingoReadDb({ transactions: true });
    const projection = counting(mongo);
    const runnerOf = (holder: string) =>
      new ReadModelRunner(events, projection, createLogger('silent'), {
        role: 'project',
        lease: { store: mongo.leases, holder, ttlMs: 15_000, retryMs: 5, now: () => Date.now() },
      });
    const [a, b] = [runnerOf('a'), runnerOf('b')];
    cleanups.push(async () => {
      await Promise.all([a.stop(), b.stop()]);
      await events.close();
    });
    // when
    await Promise.all([a.start(), b.start()]);
    // then: one leader, the log folded once
    expect([a.isLeading, b.isLeading].filter(Boolean)).toHaveLength(1);
    expect(projection.folded()).toBe(1);
    // when the leader stops (and releases its lease)
    const [leader, standby] = a.isLeading ? [a, b] : [b, a];
    await leader.stop();
    await events.appendToStream('s-2', [{ type: 'Happened', data: {}, metadata }], 'any');
    // then the standby leads, folding only what the leader had not
    while (!standby.isLeading || projection.folded() < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(projection.folded()).toBe(2);
  });
});

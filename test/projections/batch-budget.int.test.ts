/**
 * A catch-up batch is cut into several transactions once one has done enough (operations sent,
 * time spent), so that no transaction outlives MongoDB's 60 s limit; each part commits with its
 * own checkpoint and nothing is skipped. On the mingo stand-in of a replica set.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RecordedEvent } from '../../src/ports/event-store';
import { SqliteEventStore } from '../../src/infra/sqlite/sqlite-event-store';
import { createLogger } from '../../src/observability/logger';
import { mongoProjectionStore, type MongoReadDb } from '../../src/infra/mongo/mongo-read-db';
import type { ProjectionStore, ReadModelProjection } from '../../src/projections/read-model-projection';
import { ReadModelRunner } from '../../src/projections/read-model-runner';
import { type BatchBudget, DEFAULT_BATCH_BUDGET } from '../../src/projections/checkpointed-commits';
import { mingoReadDb } from '../support/mingo-mongo';

const metadata = {
  actor: { userId: 0, credential: 'system' as const },
  correlationId: 't',
  at: '2026-01-01T00:00:00.000Z',
};

const EVENTS = 10;
const WRITES_PER_EVENT = 10;

/** The store, recording the checkpoint after each commit. */
function recordingCommits(store: ProjectionStore, committed: bigint[]): ProjectionStore {
  return {
    ...store,
    commit: async (projection, position, work, fence) => {
      await store.commit(projection, position, work, fence);
      committed.push((await store.checkpoint(projection)) ?? -1n);
    },
  };
}

/** Each event writes `WRITES_PER_EVENT` documents, in the batch's transaction; `slowMs` per event. */
function writing(read: MongoReadDb, committed: bigint[], slowMs = 0): ReadModelProjection {
  return {
    name: 'writing',
    store: recordingCommits(mongoProjectionStore(read, ['docs']), committed),
    async apply(event: RecordedEvent) {
      for (let i = 0; i < WRITES_PER_EVENT; i++)
        await read.db
          .collection('docs')
          .updateOne(
            { _id: `${event.position}-${i}` } as object,
            { $set: { at: Number(event.position) } },
            { upsert: true, ...read.sessionOption() },
          );
      if (slowMs > 0) await sleep(slowMs);
    },
  };
}

describe('catch-up batches bounded by operations and time', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  async function catchUp(budget: BatchBudget, slowMs = 0) {
    const events = SqliteEventStore.open(
      path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'prs-budget-')), 'events.sqlite'),
    );
    for (let i = 1; i <= EVENTS; i++)
      await events.appendToStream(`s-${i}`, [{ type: 'Happened', data: {}, metadata }], 'any');
    const read = mingoReadDb({ transactions: true });
    const committed: bigint[] = [];
    const runner = new ReadModelRunner(events, writing(read, committed, slowMs), createLogger('silent'), {
      role: 'project',
      batchBudget: budget,
    });
    cleanups.push(async () => {
      await runner.stop();
      await events.close();
    });
    await runner.start();
    const written = await read.db.collection('docs').countDocuments({});
    return { committed, written, checkpoint: runner.checkpoint };
  }

  it('given events of 10 writes each and a budget of 25 operations, when the log is caught up, then each transaction holds the events that fit and together they hold every event', async () => {
    const { committed, written, checkpoint } = await catchUp({ maxMs: 60_000, maxOperations: 25 });

    // 10, 20, then 30 operations: the budget is spent after the third event of each part.
    expect(committed).toEqual([3n, 6n, 9n, 10n]);
    expect(written).toBe(EVENTS * WRITES_PER_EVENT);
    expect(checkpoint).toBe(10n);
  });

  it('given events that each take longer than the time budget, when the log is caught up, then each event commits on its own', async () => {
    const { committed, written } = await catchUp({ maxMs: 1, maxOperations: 1_000_000 }, 5);

    expect(committed).toEqual([1n, 2n, 3n, 4n, 5n, 6n, 7n, 8n, 9n, 10n]);
    expect(written).toBe(EVENTS * WRITES_PER_EVENT);
  });

  it('given the default budget, then a batch of these events commits in one transaction', async () => {
    const { committed } = await catchUp(DEFAULT_BATCH_BUDGET);

    expect(committed).toEqual([10n]);
  });
});

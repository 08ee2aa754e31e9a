/**
 * Followers of several read models on one MongoDB poll together: one query for all their
 * checkpoints and one read of the log per poll, not two round trips per read model (before
 * this, followers polled every 2 ms per projection while a write waited). On the mingo stand-in, with
 * the embedded event log counting its reads.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { EventStore, RecordedEvent } from '../../src/ports/event-store';
import { SqliteEventStore } from '../../src/infra/sqlite/sqlite-event-store';
import { createLogger } from '../../src/observability/logger';
import { mongoProjectionStore, type MongoReadDb } from '../../src/infra/mongo/mongo-read-db';
import { SqliteReadDb, sqliteProjectionStore } from '../../src/infra/sqlite/sqlite-read-db';
import type { ReadModelProjection } from '../../src/projections/read-model-projection';
import { ReadModels } from '../../src/projections/read-models';
import { mingoReadDb, mingoReads } from '../support/mingo-mongo';
import { eventStoreExcept } from '../support/event-store-double';

const metadata = {
  actor: { userId: 0, credential: 'system' as const },
  correlationId: 't',
  at: '2026-01-01T00:00:00.000Z',
};

const PROJECTIONS = ['a', 'b', 'c', 'd', 'e'];

const ignoring = (read: MongoReadDb, name: string): ReadModelProjection => ({
  name,
  store: mongoProjectionStore(read, []),
  async apply(_event: RecordedEvent) {},
});

function countingReads(inner: EventStore): EventStore & { readonly reads: number } {
  let reads = 0;
  const store = eventStoreExcept(inner, {
    async readAll(from, maxCount, types) {
      reads += 1;
      return inner.readAll(from, maxCount, types);
    },
  });
  return Object.defineProperty(store, 'reads', { get: () => reads }) as EventStore & { readonly reads: number };
}

describe('followers of several read models on MongoDB', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  it('given five followed read models, when a write waits and the projector catches up, then each poll reads all checkpoints in one query and the log once', async () => {
    const inner = SqliteEventStore.open(
      path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'prs-follower-polls-')), 'events.sqlite'),
    );
    const events = countingReads(inner);
    const read = mingoReadDb();
    const models = new ReadModels(
      events,
      PROJECTIONS.map((name) => ignoring(read, name)),
      createLogger('silent'),
      { role: 'follow', followPollMs: 10 },
    );
    cleanups.push(async () => {
      await models.stop();
      await inner.close();
    });
    await models.start();
    const { position } = await inner.appendToStream('s-1', [{ type: 'Happened', data: {}, metadata }], 'any');
    const checkpointReads = () => mingoReads(read).filter((r) => r.collection === 'projection_checkpoints');
    const [checkpointsBefore, logBefore] = [checkpointReads().length, events.reads];

    const waiting = models.waitFor(position, 5000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    // The projector (elsewhere) commits every read model's checkpoint past the write.
    for (const name of PROJECTIONS) await read.writeCheckpoint(name, position);
    await waiting;

    const polls = checkpointReads().slice(checkpointsBefore);
    expect(polls.length).toBeGreaterThan(1);
    for (const poll of polls) expect(poll.filter).toEqual({ _id: { $in: PROJECTIONS } });
    // One read of the log per poll: every follower stood at the same position.
    expect(events.reads - logBefore).toBeLessThanOrEqual(polls.length + 1);
    expect(models.checkpoint).toBe(position);
  });

  it.each([
    ['MongoDB (mingo stand-in)', () => mingoReadDb()],
    ['SQLite', () => SqliteReadDb.open(':memory:')],
  ] as const)(
    'given the checkpoints of several projections on %s, when read together, then each projection gets its own and one missing or without a position is absent',
    async (_, open) => {
      const read = open();
      await read.writeCheckpoint('a', 5n);
      await read.writeCheckpoint('b', 9n);
      await read.setCheckpointLog('d', 'log-1');
      const source =
        read instanceof SqliteReadDb
          ? sqliteProjectionStore(read, []).checkpointSource
          : mongoProjectionStore(read, []).checkpointSource;

      expect(await source?.checkpoints(['a', 'b', 'c', 'd'])).toEqual(
        new Map([
          ['a', 5n],
          ['b', 9n],
        ]),
      );
    },
  );
});

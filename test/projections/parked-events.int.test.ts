import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { RecordedEvent } from '../../src/ports/event-store';
import { SqliteEventStore } from '../../src/infra/sqlite/sqlite-event-store';
import { createLogger } from '../../src/observability/logger';
import { SqliteReadDb, sqliteProjectionStore } from '../../src/infra/sqlite/sqlite-read-db';
import type { ReadModelProjection } from '../../src/projections/read-model-projection';
import { ReadModelRunner, type RunnerOptions } from '../../src/projections/read-model-runner';
import { ReadModels } from '../../src/projections/read-models';
import { isTransientStoreError } from '../../src/projections/transient-error';

/**
 * A projection that keeps failing on one event parks it after PROJECTION_PARK_AFTER failures and
 * goes on; one that fails once is retried by the runner's backoff and never parked.
 */

const metadata = {
  actor: { userId: 0, credential: 'system' as const },
  correlationId: 't',
  at: '2026-01-01T00:00:00.000Z',
};

function openEvents(): SqliteEventStore {
  return SqliteEventStore.open(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'prs-parked-')), 'events.sqlite'));
}

/**
 * A read model of one table, the event types it folded; it fails on the events `fails` says it
 * fails on (counted in `attempts`), the rows of a failed event rolled back with its batch.
 */
function failingProjection(read: SqliteReadDb, fails: (event: RecordedEvent, attempt: number) => boolean) {
  read.db.exec('create table if not exists seen (position integer primary key, type text not null)');
  const insert = read.db.prepare('insert into seen (position, type) values (?, ?)');
  const attempts = new Map<string, number>();
  const projection: ReadModelProjection = {
    name: 'recording',
    store: sqliteProjectionStore(read, ['seen']),
    async apply(event: RecordedEvent) {
      insert.run(event.position, event.type);
      const attempt = (attempts.get(event.type) ?? 0) + 1;
      attempts.set(event.type, attempt);
      if (fails(event, attempt)) throw new Error(`cannot fold ${event.type}`);
    },
  };
  const seen = () =>
    (read.db.prepare('select type from seen order by position').all() as { type: string }[]).map((r) => r.type);
  return { projection, seen, attempts };
}

const underLease = (read: SqliteReadDb, parkAfter: number): RunnerOptions => ({
  role: 'project',
  isTransient: isTransientStoreError,
  lease: { store: read.leases, holder: 'only', ttlMs: 3000, retryMs: 5, now: () => Date.now() },
  failureBackoff: { firstMs: 10, maxMs: 20 },
  parkAfter,
});

async function waitUntil(condition: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('parked events', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });
  const append = (events: SqliteEventStore, stream: string, type: string) =>
    events.appendToStream(stream, [{ type, data: {}, metadata }], 'any');
  const started = async (events: SqliteEventStore, runner: ReadModelRunner) => {
    cleanups.push(async () => {
      await runner.stop();
      await events.close();
    });
    await runner.start();
    return runner;
  };

  it('given an event the projection fails on once, then the backoff retries it, it is folded and nothing is parked', async () => {
    // given
    const events = openEvents();
    const read = SqliteReadDb.open(':memory:');
    const { projection, seen, attempts } = failingProjection(read, (e, attempt) => e.type === 'Flaky' && attempt === 1);
    await append(events, 's-1', 'Before');
    await append(events, 's-2', 'Flaky');
    const { position } = await append(events, 's-3', 'After');
    // when
    const runner = await started(
      events,
      new ReadModelRunner(events, projection, createLogger('silent'), underLease(read, 3)),
    );
    await waitUntil(() => runner.isLeading && runner.checkpoint === position);
    // then
    expect(attempts.get('Flaky')).toBe(2);
    expect(seen()).toEqual(['Before', 'Flaky', 'After']);
    expect(await projection.store.parked('recording')).toEqual([]);
  });

  it('given an event the projection always fails on, then after PROJECTION_PARK_AFTER failures it is parked, the next events are folded and the checkpoint passes it', async () => {
    // given
    const events = openEvents();
    const read = SqliteReadDb.open(':memory:');
    const { projection, seen, attempts } = failingProjection(read, (e) => e.type === 'Poison');
    await append(events, 's-1', 'Before');
    const poison = await append(events, 's-2', 'Poison');
    const after = await append(events, 's-3', 'After');
    // when
    const runner = await started(
      events,
      new ReadModelRunner(events, projection, createLogger('silent'), underLease(read, 3)),
    );
    await waitUntil(() => runner.isLeading && runner.checkpoint === after.position);
    const { position: live } = await append(events, 's-4', 'Live');
    await runner.waitFor(live, 5000);
    // then
    expect(attempts.get('Poison')).toBe(3);
    expect(seen()).toEqual(['Before', 'After', 'Live']);
    expect(await projection.store.checkpoint('recording')).toBe(live);
    expect(await projection.store.parked('recording')).toEqual([
      {
        readModel: 'recording',
        streamId: 's-2',
        position: poison.position,
        type: 'Poison',
        error: 'cannot fold Poison',
        failures: 3,
        firstFailedAt: expect.any(String),
        lastFailedAt: expect.any(String),
      },
    ]);
    expect(runner.problem).toBeUndefined();
  });

  it('given a parked event, when retried while the projection still fails on it, then it stays parked with one failure more; once it folds, it is applied and no longer parked', async () => {
    // given
    const events = openEvents();
    const read = SqliteReadDb.open(':memory:');
    let fixed = false;
    const { projection, seen } = failingProjection(read, (e) => e.type === 'Poison' && !fixed);
    const poison = await append(events, 's-1', 'Poison');
    const after = await append(events, 's-2', 'After');
    const runner = await started(
      events,
      new ReadModelRunner(events, projection, createLogger('silent'), underLease(read, 2)),
    );
    await waitUntil(() => runner.isLeading && runner.checkpoint === after.position);
    // when
    const failed = await runner.retryParked(poison.position, new Date('2026-11-28T12:00:00.000Z'));
    // then
    expect(failed).toMatchObject({
      outcome: 'failed',
      parked: { failures: 3, lastFailedAt: '2026-11-28T12:00:00.000Z' },
    });
    expect(await projection.store.parked('recording')).toMatchObject([{ position: poison.position, failures: 3 }]);
    // when
    fixed = true;
    const applied = await runner.retryParked(poison.position, new Date());
    // then: folded, unparked, and the checkpoint where it was
    expect(applied).toEqual({ outcome: 'applied' });
    expect(seen()).toEqual(['Poison', 'After']);
    expect(await projection.store.parked('recording')).toEqual([]);
    expect(await projection.store.checkpoint('recording')).toBe(after.position);
    expect(await runner.retryParked(poison.position, new Date())).toEqual({ outcome: 'unknown' });
  });

  it('given a rebuild whose new generation fails on an event the served one folds, then the new generation parks it and is built, and the served one has nothing parked', async () => {
    // given: the served generation, projecting under its lease
    const events = openEvents();
    await append(events, 's-1', 'Before');
    const changed = await append(events, 's-2', 'ChangedMeaning');
    const after = await append(events, 's-3', 'After');
    const servedRead = SqliteReadDb.open(':memory:');
    const served = failingProjection(servedRead, () => false);
    const runner = await started(
      events,
      new ReadModelRunner(events, served.projection, createLogger('silent'), underLease(servedRead, 2)),
    );
    await waitUntil(() => runner.isLeading && runner.checkpoint === after.position);
    // when: the new generation's projection (the flag set for it) is built as a rebuild builds, without a lease
    const nextRead = SqliteReadDb.open(':memory:');
    const next = failingProjection(nextRead, (e) => e.type === 'ChangedMeaning');
    const builder = new ReadModels(events, [next.projection], createLogger('silent'), {
      role: 'project',
      isTransient: isTransientStoreError,
      parkAfter: 2,
    });
    await builder.start();
    await builder.stop();
    // then
    expect(next.seen()).toEqual(['Before', 'After']);
    expect(await next.projection.store.checkpoint('recording')).toBe(after.position);
    expect(await next.projection.store.parked('recording')).toMatchObject([
      { position: changed.position, type: 'ChangedMeaning', failures: 2 },
    ]);
    expect(served.seen()).toEqual(['Before', 'ChangedMeaning', 'After']);
    expect(await served.projection.store.parked('recording')).toEqual([]);
  });
});

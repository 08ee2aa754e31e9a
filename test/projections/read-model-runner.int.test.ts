import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { EventStore, RecordedEvent } from '../../src/ports/event-store';
import { SqliteEventStore } from '../../src/infra/sqlite/sqlite-event-store';
import { createLogger } from '../../src/observability/logger';
import { SqliteReadDb, sqliteProjectionStore } from '../../src/infra/sqlite/sqlite-read-db';
import type { LeaseStore } from '../../src/projections/projection-lease';
import type { ReadModelProjection } from '../../src/projections/read-model-projection';
import { ProjectionFailedError } from '../../src/projections/projection-failed-error';
import { ReadModelRunner } from '../../src/projections/read-model-runner';
import { isTransientStoreError } from '../../src/projections/transient-error';
import { eventStoreExcept } from '../support/event-store-double';

const metadata = {
  actor: { userId: 0, credential: 'system' as const },
  correlationId: 't',
  at: '2026-01-01T00:00:00.000Z',
};

function openEvents(): SqliteEventStore {
  return SqliteEventStore.open(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'prs-runner-')), 'events.sqlite'));
}

/** A read model of one table: the event types it folded, in order. */
function recordingProjection(read: SqliteReadDb, failOn?: string): ReadModelProjection & { seen(): string[] } {
  read.db.exec('create table if not exists seen (position integer primary key, type text not null)');
  const insert = read.db.prepare('insert into seen (position, type) values (?, ?)');
  return {
    name: 'recording',
    store: sqliteProjectionStore(read, ['seen']),
    async apply(event: RecordedEvent) {
      insert.run(event.position, event.type);
      if (event.type === failOn) throw new Error('boom');
    },
    seen: () =>
      (read.db.prepare('select type from seen order by position').all() as { type: string }[]).map((r) => r.type),
  };
}

/** The recording read model, folding every event but those of type `Ignored`. */
function ignoringProjection(): ReturnType<typeof recordingProjection> {
  return {
    ...recordingProjection(SqliteReadDb.open(':memory:')),
    handles: (event: RecordedEvent) => event.type !== 'Ignored',
  };
}

/** The projection, except that its first event is refused as busy (another process held the write lock too long). */
function busyOnce(projection: ReadModelProjection): ReadModelProjection {
  let refusals = 1;
  return {
    ...projection,
    async apply(event: RecordedEvent) {
      if (refusals-- > 0) throw Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
      await projection.apply(event);
    },
  };
}

/**
 * The event store, except that its first live subscription drops right after it starts;
 * `subscriptions` counts the live subscriptions asked for, the dropped one included.
 */
function droppingOnce(inner: EventStore): EventStore & { readonly subscriptions: number } {
  let subscriptions = 0;
  const store = eventStoreExcept(inner, {
    subscribeToAll(from, onEvent, onError) {
      subscriptions += 1;
      if (subscriptions > 1) return inner.subscribeToAll(from, onEvent, onError);
      setTimeout(() => onError?.(new Error('connection reset')), 10);
      return { close: async () => undefined };
    },
  });
  return Object.defineProperty(store, 'subscriptions', { get: () => subscriptions }) as EventStore & {
    readonly subscriptions: number;
  };
}

/**
 * The lease retry of the runners whose lease loops are counted: a delay no other timer of the
 * runner, its follower or its backoff uses, so that a timer of this delay is a lease tick.
 */
const LEASE_RETRY_MS = 7;

/**
 * The runner's lease ticks, seen through the timers they are scheduled with: those pending, and
 * those whose callback is running (a tick runs until it has scheduled the next one, or led).
 */
const leaseTicks = { pending: new Set<unknown>(), running: 0 };
const realSetTimeout = globalThis.setTimeout;
const realClearTimeout = globalThis.clearTimeout;
beforeEach(() => {
  leaseTicks.pending.clear();
  leaseTicks.running = 0;
  globalThis.setTimeout = ((callback: (...args: unknown[]) => unknown, ms?: number, ...args: unknown[]) => {
    if (ms !== LEASE_RETRY_MS) return realSetTimeout(callback, ms, ...args);
    const timer = realSetTimeout(async () => {
      leaseTicks.pending.delete(timer);
      leaseTicks.running += 1;
      try {
        await callback(...args);
      } finally {
        leaseTicks.running -= 1;
      }
    }, ms);
    leaseTicks.pending.add(timer);
    return timer;
  }) as typeof setTimeout;
  globalThis.clearTimeout = ((timer?: Parameters<typeof clearTimeout>[0]) => {
    leaseTicks.pending.delete(timer);
    realClearTimeout(timer);
  }) as typeof clearTimeout;
});
afterEach(() => {
  globalThis.setTimeout = realSetTimeout;
  globalThis.clearTimeout = realClearTimeout;
});

/**
 * A lease store that can count the runner's lease loops (their retry must be LEASE_RETRY_MS):
 * while attempts are held (`hold`), each live loop stops at its next attempt; once no lease tick
 * is pending and every running tick waits at a held attempt, the held attempts are the loops.
 */
function countingLeases(inner: LeaseStore) {
  const held: (() => void)[] = [];
  let holding = false;
  const control = {
    store: {
      acquire: async (projection, holder, ttlMs, nowMs) => {
        if (holding) await new Promise<void>((resolve) => held.push(resolve));
        return inner.acquire(projection, holder, ttlMs, nowMs);
      },
      release: (lease) => inner.release(lease),
    } satisfies LeaseStore,
    /** How many attempts wait at the store. */
    get held(): number {
      return held.length;
    },
    hold(): void {
      holding = true;
    },
    /** Lets the held attempts through; answers how many there were. */
    resume(): number {
      holding = false;
      const count = held.length;
      for (const go of held.splice(0)) go();
      return count;
    },
    /** How many lease loops the runner runs: held until every one of them waits at the store. */
    async loops(): Promise<number> {
      control.hold();
      await waitUntil(() => held.length > 0 && leaseTicks.pending.size === 0 && leaseTicks.running === held.length);
      return control.resume();
    },
  };
  return control;
}

describe('read-model runner', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });
  const track = (runner: ReadModelRunner, events: SqliteEventStore) => {
    cleanups.push(async () => {
      await runner.stop();
      await events.close();
    });
    return runner;
  };
  const append = (events: EventStore, stream: string, type: string) =>
    events.appendToStream(stream, [{ type, data: {}, metadata }], 'any');

  it('given a subscription that drops, when events are appended later, then it resubscribes and projects them', async () => {
    // given
    const events = openEvents();
    const projection = recordingProjection(SqliteReadDb.open(':memory:'));
    const dropping = droppingOnce(events);
    const runner = track(new ReadModelRunner(dropping, projection, createLogger('silent')), events);
    await runner.start();
    await waitUntil(() => dropping.subscriptions === 2); // the first one dropped, and the runner subscribed again
    // when
    const { position } = await append(events, 's-1', 'Happened');
    await runner.waitFor(position, 5000);
    // then
    expect(projection.seen()).toEqual(['Happened']);
    expect(runner.problem).toBeUndefined();
  });

  it('given a projection that throws mid-batch, then nothing of the batch is kept and the checkpoint stays', async () => {
    // given
    const events = openEvents();
    await append(events, 's-1', 'Fine');
    await append(events, 's-2', 'Poison');
    const projection = recordingProjection(SqliteReadDb.open(':memory:'), 'Poison');
    const runner = new ReadModelRunner(events, projection, createLogger('silent'));
    cleanups.push(async () => events.close());
    // when
    const starting = runner.start();
    // then: it fails as the projection's failure, naming it, and the batch rolled back as a whole
    await expect(starting).rejects.toBeInstanceOf(ProjectionFailedError);
    await expect(starting).rejects.toMatchObject({ projection: 'recording' });
    expect(projection.seen()).toEqual([]);
    expect(await projection.store.checkpoint('recording')).toBeUndefined();
  });

  it('given a live event that fails, then the runner stops and reports it instead of skipping the event', async () => {
    // given
    const events = openEvents();
    const projection = recordingProjection(SqliteReadDb.open(':memory:'), 'Poison');
    const runner = track(new ReadModelRunner(events, projection, createLogger('silent')), events);
    await runner.start();
    // when
    await append(events, 's-1', 'Poison');
    const { position } = await append(events, 's-2', 'After');
    // then
    await expect(runner.waitFor(position, 500)).rejects.toMatchObject({ kind: 'unavailable' });
    expect(runner.problem).toBe('projection recording failed');
    expect(projection.seen()).toEqual([]);
  });

  it('given a process that follows a read model nobody projects, when a write appends only events that read model ignores, then the write is not held waiting for it', async () => {
    // given
    const events = openEvents();
    const ignoring = ignoringProjection();
    const follower = track(new ReadModelRunner(events, ignoring, createLogger('silent'), { role: 'follow' }), events);
    await follower.start();
    // when
    await append(events, 's-1', 'Ignored');
    const { position } = await append(events, 's-2', 'Ignored');
    // then: the read model is the same with or without those events, so the wait is over
    await expect(follower.waitFor(position, 2000)).resolves.toBeUndefined();
    const { position: handled } = await append(events, 's-3', 'Handled');
    await expect(follower.waitFor(handled, 300)).rejects.toMatchObject({ kind: 'unavailable' });
  });

  it('given a projecting process, when only events its read model ignores are appended, then their checkpoint is written a moment later, without waiting for a handled event', async () => {
    // given
    const events = openEvents();
    const ignoring = ignoringProjection();
    const runner = track(new ReadModelRunner(events, ignoring, createLogger('silent')), events);
    await runner.start();
    // when
    await append(events, 's-1', 'Ignored');
    const { position } = await append(events, 's-2', 'Ignored');
    // then: what other processes read as this read model's position (restarts fold from it)
    const deadline = Date.now() + 2000;
    while ((await ignoring.store.checkpoint('recording')) !== position && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await ignoring.store.checkpoint('recording')).toBe(position);
    expect(ignoring.seen()).toEqual([]);
  });

  it('given ignored events whose checkpoint is not written yet, when the runner stops, then it is written before it has stopped', async () => {
    // given
    const events = openEvents();
    const ignoring = ignoringProjection();
    const runner = new ReadModelRunner(events, ignoring, createLogger('silent'));
    await runner.start();
    const { position } = await append(events, 's-1', 'Ignored');
    await runner.waitFor(position, 2000);
    // when
    await runner.stop();
    // then
    expect(await ignoring.store.checkpoint('recording')).toBe(position);
    await events.close();
  });

  it('given a read model with a checkpoint, when it starts again, then it folds only the events after the checkpoint', async () => {
    // given
    const events = openEvents();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prs-read-'));
    const first = SqliteReadDb.open(path.join(dir, 'read.sqlite'));
    const before = new ReadModelRunner(events, recordingProjection(first), createLogger('silent'));
    await append(events, 's-1', 'A');
    await before.start();
    await before.stop();
    first.close();
    await append(events, 's-2', 'B');
    // when
    const projection = recordingProjection(SqliteReadDb.open(path.join(dir, 'read.sqlite')));
    const runner = track(new ReadModelRunner(events, projection, createLogger('silent')), events);
    await runner.start();
    // then: A was not folded again (its row would collide on the primary key and stop the runner)
    expect(projection.seen()).toEqual(['A', 'B']);
    expect(runner.problem).toBeUndefined();
  });

  it('given a subscription that delivers every event twice, then each is applied once', async () => {
    // given
    const events = openEvents();
    const projection = recordingProjection(SqliteReadDb.open(':memory:'));
    const twice: EventStore = {
      ...droppingOnce(events),
      subscribeToAll: (from, onEvent, onError) =>
        events.subscribeToAll(
          from,
          async (event) => {
            await onEvent(event);
            await onEvent(event);
          },
          onError,
        ),
    };
    const runner = track(new ReadModelRunner(twice, projection, createLogger('silent')), events);
    await runner.start();
    // when
    await append(events, 's-1', 'A');
    const { position } = await append(events, 's-2', 'B');
    await runner.waitFor(position, 5000);
    // then
    expect(projection.seen()).toEqual(['A', 'B']);
  });

  it('given 300 events appended at once while the runner follows live, then they are committed in a few transactions, not one each', async () => {
    // given: a read model whose store counts its transactions
    const events = openEvents();
    const projection = recordingProjection(SqliteReadDb.open(':memory:'));
    let commits = 0;
    const store = projection.store;
    const counting = {
      ...projection,
      store: {
        ...store,
        commit: (...args: Parameters<typeof store.commit>) => ((commits += 1), store.commit(...args)),
      },
    };
    const runner = track(new ReadModelRunner(events, counting, createLogger('silent')), events);
    await runner.start();
    const before = commits;
    // when
    const { position } = await events.appendToStream(
      's-bulk',
      Array.from({ length: 300 }, () => ({ type: 'Bulk', data: {}, metadata })),
      'any',
    );
    await runner.waitFor(position, 5000);
    // then: all of them folded, in order, by a handful of commits
    expect(projection.seen()).toEqual(Array(300).fill('Bulk'));
    expect(commits - before).toBeLessThanOrEqual(5);
  });

  it('given a transient store error on a live event, then the runner retries from its checkpoint instead of stopping', async () => {
    // given: the store refuses the first commit as busy (another process held the write lock too long)
    const events = openEvents();
    const read = SqliteReadDb.open(':memory:');
    const projection = recordingProjection(read);
    const flaky = busyOnce(projection);
    const runner = track(
      new ReadModelRunner(events, flaky, createLogger('silent'), {
        role: 'project',
        isTransient: isTransientStoreError,
      }),
      events,
    );
    await runner.start();
    // when
    const { position } = await append(events, 's-1', 'AfterABusyMoment');
    // then
    await runner.waitFor(position, 5000);
    expect(projection.seen()).toEqual(['AfterABusyMoment']);
    expect(runner.problem).toBeUndefined();
  });

  describe('under a lease', () => {
    it('given a holder whose lease expired and was taken over, when it commits, then its writes are refused and it stands by', async () => {
      // given: A projects under a lease; then its clock-time passes the lease and B takes over
      const events = openEvents();
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prs-lease-'));
      const readA = SqliteReadDb.open(path.join(dir, 'read.sqlite'));
      const readB = SqliteReadDb.open(path.join(dir, 'read.sqlite'));
      let now = 1_000_000;
      const lease = (read: SqliteReadDb, holder: string) => ({
        store: read.leases,
        holder,
        ttlMs: 3000,
        retryMs: 60_000,
        now: () => now,
      });
      const a = new ReadModelRunner(events, recordingProjection(readA), createLogger('silent'), {
        role: 'project',
        lease: lease(readA, 'a'),
      });
      const projectionB = recordingProjection(readB);
      const b = new ReadModelRunner(events, projectionB, createLogger('silent'), {
        role: 'project',
        lease: lease(readB, 'b'),
      });
      cleanups.push(async () => {
        await Promise.all([a.stop(), b.stop()]);
        await events.close();
      });
      await a.start();
      await b.start();
      expect([a.isLeading, b.isLeading]).toEqual([true, false]);
      now += 3001;
      expect(await readB.leases.acquire('recording', 'b', 3000, now)).toMatchObject({ holder: 'b', token: 2n });

      // when an event reaches A's live subscription
      await append(events, 's-1', 'WrittenWhileStale');
      // then A's commit is refused by the fence, nothing of it is stored, and A stops leading
      await waitUntil(() => !a.isLeading);
      expect(projectionB.seen()).toEqual([]);
    });

    /**
     * A standby of `projection` that finds the lease of a holder that is gone; the lease expires when
     * `expire()` is called.
     */
    async function standbyOf(projection: ReadModelProjection, read: SqliteReadDb, events: SqliteEventStore) {
      let now = 1_000_000;
      await read.leases.acquire(projection.name, 'gone', 3000, now);
      const leases = countingLeases(read.leases);
      const standby = new ReadModelRunner(events, projection, createLogger('silent'), {
        role: 'project',
        isTransient: isTransientStoreError,
        lease: { store: leases.store, holder: 'standby', ttlMs: 3000, retryMs: LEASE_RETRY_MS, now: () => now },
      });
      cleanups.push(async () => {
        await standby.stop();
        await events.close();
      });
      return { standby, leases, expire: () => (now += 3001) };
    }

    it('given a lease nobody renews, when a standby looks again after it expired, then the standby takes over and catches up', async () => {
      // given
      const events = openEvents();
      const read = SqliteReadDb.open(':memory:');
      const projection = recordingProjection(read);
      const { standby, expire } = await standbyOf(projection, read, events);
      await append(events, 's-1', 'Before');
      await standby.start();
      expect(standby.isLeading).toBe(false);
      // when
      expire();
      // then
      await waitUntil(() => standby.isLeading);
      expect(projection.seen()).toEqual(['Before']);
    });

    it('given a takeover whose catch-up finds the store busy, then it keeps its lease loop and catches up after the backoff', async () => {
      // given: the first commit after the takeover is refused as busy
      const events = openEvents();
      const read = SqliteReadDb.open(':memory:');
      const projection = recordingProjection(read);
      const flaky = busyOnce(projection);
      const { standby, leases, expire } = await standbyOf(flaky, read, events);
      await append(events, 's-1', 'Before');
      await standby.start();
      // when
      expire();
      // then
      await waitUntil(() => projection.seen().length === 1);
      expect(projection.seen()).toEqual(['Before']);
      expect(standby.isLeading).toBe(true);
      expect(standby.problem).toBeUndefined();
      expect(await leases.loops()).toBe(1);
    });

    it('given a takeover whose catch-up fails in the projection, then it reports the failure and gives the lease up', async () => {
      // given
      const events = openEvents();
      const read = SqliteReadDb.open(':memory:');
      const { standby, expire } = await standbyOf(recordingProjection(read, 'Poison'), read, events);
      await append(events, 's-1', 'Poison');
      await standby.start();
      // when
      const now = expire();
      // then: it says it is not keeping the read model, stands down, and another process may take the lease
      await waitUntil(() => standby.stopped && !standby.isLeading);
      expect(standby.problem).toBe('projection recording failed');
      await waitUntilAsync(async () => (await read.leases.acquire('recording', 'other', 3000, now + 1000)) !== null);
    });

    /** A projection that fails on `Poison` while `poisoned.on`: a bug that a new version fixes. */
    function fixableProjection(read: SqliteReadDb) {
      const poisoned = { on: true };
      const inner = recordingProjection(read);
      const projection: ReadModelProjection = {
        ...inner,
        async apply(event: RecordedEvent) {
          if (poisoned.on && event.type === 'Poison') throw new Error('boom');
          await inner.apply(event);
        },
      };
      return { projection, poisoned, seen: () => inner.seen() };
    }

    /** A lease store that counts the attempts to take or renew the lease. */
    function attemptCounting(inner: LeaseStore) {
      const counted = { attempts: 0 };
      const store: LeaseStore = {
        acquire: (...args) => {
          counted.attempts += 1;
          return inner.acquire(...args);
        },
        release: (lease) => inner.release(lease),
      };
      return { store, counted };
    }

    it('given a start whose catch-up fails in the projection, then the start resolves, the lease is given up, and it leads again once the projection folds', async () => {
      // given: the only process starts on a log whose first event its projection cannot fold
      const events = openEvents();
      const read = SqliteReadDb.open(':memory:');
      const { projection, poisoned, seen } = fixableProjection(read);
      await append(events, 's-1', 'Poison');
      const { store, counted } = attemptCounting(read.leases);
      const runner = track(
        new ReadModelRunner(events, projection, createLogger('silent'), {
          role: 'project',
          isTransient: isTransientStoreError,
          lease: { store, holder: 'only', ttlMs: 3000, retryMs: 5, now: () => Date.now() },
          failureBackoff: { firstMs: 20, maxMs: 40 },
        }),
        events,
      );
      // when
      await runner.start();
      // then: it is up, following, says why it does not project, and the lease is free meanwhile
      expect(runner.isLeading).toBe(false);
      expect(runner.stopped).toBe(true);
      expect(await read.leases.acquire('recording', 'probe', 1, 0)).not.toBeNull();
      await read.leases.release({ projection: 'recording', holder: 'probe', token: 2n });
      // and it tries again on its backoff, and leads once the projection folds the event
      const before = counted.attempts;
      await waitUntil(() => counted.attempts > before + 1);
      poisoned.on = false;
      await waitUntil(() => runner.isLeading && !runner.stopped);
      expect(seen()).toEqual(['Poison']);
      expect(runner.problem).toBeUndefined();
    });

    it('given a start whose catch-up finds the store busy, then the start resolves and it leads after the backoff', async () => {
      // given
      const events = openEvents();
      const read = SqliteReadDb.open(':memory:');
      const projection = recordingProjection(read);
      await append(events, 's-1', 'Before');
      const runner = track(
        new ReadModelRunner(events, busyOnce(projection), createLogger('silent'), {
          role: 'project',
          isTransient: isTransientStoreError,
          lease: { store: read.leases, holder: 'only', ttlMs: 3000, retryMs: 5, now: () => Date.now() },
        }),
        events,
      );
      // when
      await runner.start();
      // then
      await waitUntil(() => runner.isLeading && projection.seen().length === 1);
      expect(runner.problem).toBeUndefined();
    });

    it('given a live event the projection cannot fold, then the leader gives its lease up and reports the failure', async () => {
      // given
      const events = openEvents();
      const read = SqliteReadDb.open(':memory:');
      const runner = track(
        new ReadModelRunner(events, recordingProjection(read, 'Poison'), createLogger('silent'), {
          role: 'project',
          lease: { store: read.leases, holder: 'a', ttlMs: 60_000, retryMs: 5, now: () => Date.now() },
          failureBackoff: { firstMs: 60_000, maxMs: 60_000 },
        }),
        events,
      );
      await runner.start();
      expect(runner.isLeading).toBe(true);
      // when
      await append(events, 's-1', 'Poison');
      // then: a standby need not wait for the lease (60 s) to run out
      await waitUntil(() => runner.stopped && !runner.isLeading);
      await waitUntilAsync(async () => (await read.leases.acquire('recording', 'b', 60_000, Date.now())) !== null);
    });

    it('given a long catch-up, then the lease is renewed while it runs, not only after it', async () => {
      // given: the catch-up's read of the log waits until released
      const sqlite = openEvents();
      await append(sqlite, 's-1', 'Before');
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let reading!: () => void;
      const inRead = new Promise<void>((resolve) => (reading = resolve));
      const events = eventStoreExcept(sqlite, {
        async readAll(from, max, types) {
          reading();
          await gate;
          return sqlite.readAll(from, max, types);
        },
      });
      const read = SqliteReadDb.open(':memory:');
      const { store, counted } = attemptCounting(read.leases);
      const runner = track(
        new ReadModelRunner(events, recordingProjection(read), createLogger('silent'), {
          role: 'project',
          lease: { store, holder: 'a', ttlMs: 3000, retryMs: 5, now: () => Date.now() },
        }),
        sqlite,
      );
      // when
      const starting = runner.start();
      await inRead;
      const atRead = counted.attempts;
      // then
      await waitUntil(() => counted.attempts > atRead + 2);
      release();
      await starting;
      expect(runner.isLeading).toBe(true);
    });

    it('given a leader demoted again and again, by a failed renewal and by a refused commit, then it keeps exactly one lease loop', async () => {
      // given: A leads; B, when it wants the lease, takes it at a time past A's lease (A's clock stays put)
      const events = openEvents();
      const read = SqliteReadDb.open(':memory:');
      let now = 1_000_000;
      const leases = countingLeases(read.leases);
      const a = new ReadModelRunner(events, recordingProjection(read), createLogger('silent'), {
        role: 'project',
        lease: { store: leases.store, holder: 'a', ttlMs: 3000, retryMs: LEASE_RETRY_MS, now: () => now },
      });
      cleanups.push(async () => {
        await a.stop();
        await events.close();
      });
      const bTakesOver = async () =>
        expect(await read.leases.acquire('recording', 'b', 3000, now + 10_000)).toMatchObject({ holder: 'b' });
      const aTakesBack = async () => {
        now += 20_000;
        await waitUntil(() => a.isLeading);
      };
      await a.start();
      expect(a.isLeading).toBe(true);
      const loops = [await leases.loops()];

      for (let round = 0; round < 3; round += 1) {
        // when A's renewal fails: B holds the lease
        await bTakesOver();
        await waitUntil(() => !a.isLeading);
        loops.push(await leases.loops());
        await aTakesBack();
        loops.push(await leases.loops());

        // when A's commit is refused by the fence while its renewal is still under way (held in the store)
        leases.hold();
        await waitUntil(() => leases.held > 0); // the renewal under way waits at the store
        await bTakesOver();
        await append(events, `s-${round}`, 'RefusedByTheFence');
        await waitUntil(() => !a.isLeading);
        expect(leases.resume()).toBeGreaterThanOrEqual(1);
        loops.push(await leases.loops());
        await aTakesBack();
        loops.push(await leases.loops());
      }

      // then: one lease loop throughout, leading or standing by
      expect(loops).toEqual(Array.from({ length: 13 }, () => 1));
    });
  });
});

async function waitUntilAsync(condition: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met');
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function waitUntil(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met');
    await new Promise((r) => setTimeout(r, 10));
  }
}

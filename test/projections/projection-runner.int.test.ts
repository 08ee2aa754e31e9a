import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { EventStore, RecordedEvent } from '../../src/infra/event-store/event-store';
import { SqliteEventStore } from '../../src/infra/event-store/sqlite-event-store';
import { createLogger } from '../../src/infra/logger';
import { MemoryReadStore } from '../../src/infra/read-store/memory-read-store';
import type { Projection } from '../../src/projections/projection';
import { ProjectionRunner } from '../../src/projections/projection-runner';

const metadata = { actor: { userId: 0, credential: 'system' as const }, correlationId: 't', at: '2026-01-01T00:00:00.000Z' };

function openStore(): SqliteEventStore {
  return SqliteEventStore.open(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'prs-runner-')), 'events.sqlite'));
}

/** Records what it saw, like a read model would. */
function recordingProjection(failOn?: string): Projection & { seen: string[] } {
  const seen: string[] = [];
  return {
    name: 'recording',
    collections: [],
    indexes: [],
    seen,
    async apply(event: RecordedEvent) {
      if (event.type === failOn) throw new Error('boom');
      seen.push(event.type);
    },
  };
}

/** The event store, except that its first live subscription drops right after it starts. */
function droppingOnce(inner: EventStore): EventStore {
  let dropped = false;
  return {
    appendToStream: inner.appendToStream.bind(inner),
    readStream: inner.readStream.bind(inner),
    readLastEvent: inner.readLastEvent.bind(inner),
    readAll: inner.readAll.bind(inner),
    ping: inner.ping.bind(inner),
    close: inner.close.bind(inner),
    subscribeToAll(from, onEvent, onError) {
      if (dropped) return inner.subscribeToAll(from, onEvent, onError);
      dropped = true;
      setTimeout(() => onError?.(new Error('connection reset')), 10);
      return { close: async () => undefined };
    },
  };
}

describe('projection runner', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });
  const track = (runner: ProjectionRunner, store: SqliteEventStore) => {
    cleanups.push(async () => {
      await runner.stop();
      await store.close();
    });
    return runner;
  };

  it('given a subscription that drops, when events are appended later, then it resubscribes and projects them', async () => {
    const store = openStore();
    const projection = recordingProjection();
    const runner = track(new ProjectionRunner(droppingOnce(store), new MemoryReadStore(), [projection], createLogger('silent')), store);
    await runner.start();
    await new Promise((r) => setTimeout(r, 50));
    const { position } = await store.appendToStream('s-1', [{ type: 'Happened', data: {}, metadata }], 'no_stream');
    await runner.waitFor(position, 5000);
    expect(projection.seen).toEqual(['Happened']);
    expect(runner.problem).toBeUndefined();
  });

  it('given a projection that throws, then the runner stops and reports it instead of skipping the event', async () => {
    const store = openStore();
    const projection = recordingProjection('Poison');
    const runner = track(new ProjectionRunner(store, new MemoryReadStore(), [projection], createLogger('silent')), store);
    await runner.start();
    await store.appendToStream('s-1', [{ type: 'Poison', data: {}, metadata }], 'no_stream');
    const { position } = await store.appendToStream('s-2', [{ type: 'After', data: {}, metadata }], 'no_stream');
    await expect(runner.waitFor(position, 500)).rejects.toMatchObject({ kind: 'unavailable' });
    expect(runner.problem).toBe('projection failed');
    expect(projection.seen).toEqual([]);
  });

  it('given a subscription that delivers every event twice, then each is applied once', async () => {
    const store = openStore();
    const projection = recordingProjection();
    const twice: EventStore = {
      appendToStream: store.appendToStream.bind(store),
      readStream: store.readStream.bind(store),
      readLastEvent: store.readLastEvent.bind(store),
      readAll: store.readAll.bind(store),
      ping: store.ping.bind(store),
      close: store.close.bind(store),
      subscribeToAll: (from, onEvent, onError) =>
        store.subscribeToAll(from, async (event) => {
          await onEvent(event);
          await onEvent(event);
        }, onError),
    };
    const runner = track(new ProjectionRunner(twice, new MemoryReadStore(), [projection], createLogger('silent')), store);
    await runner.start();
    await store.appendToStream('s-1', [{ type: 'A', data: {}, metadata }], 'no_stream');
    const { position } = await store.appendToStream('s-2', [{ type: 'B', data: {}, metadata }], 'no_stream');
    await runner.waitFor(position, 5000);
    expect(projection.seen).toEqual(['A', 'B']);
  });
});

/**
 * A catch-up of some event types on EventStoreDB is filtered on the server: a subscription to $all
 * with an event-type filter and checkpointReached (the client's readAll takes no filter), which
 * stores how far it looked, so a rare type is not looked for again from its last event, and moves
 * the checkpoint while a long scan finds nothing. Against a fake client whose subscription plays
 * the server: it sends only the events its filter's regex matches, its checkpoints, then caught-up.
 */
import { Readable } from 'node:stream';
import { BACKWARDS, type Filter, type Position } from '@eventstore/db-client';
import { EsdbEventStore } from '../../../src/infra/eventstoredb/esdb-event-store';
import { scanFiltered } from '../../../src/infra/eventstoredb/filtered-scan';
import { createLogger } from '../../../src/observability/logger';
import { SqliteReadDb, sqliteProjectionStore } from '../../../src/infra/sqlite/sqlite-read-db';
import type { RecordedEvent } from '../../../src/ports/event-store';
import { ReadModelRunner } from '../../../src/projections/read-model-runner';
import { FakeRead } from './fake-read';

const metadata = { actor: { userId: 1, credential: 'session' }, correlationId: 'c', at: '2024-05-01T10:00:00.000Z' };

type Step = { event: { type: string; position: bigint } } | { checkpoint: bigint } | 'caughtUp';

const resolved = (type: string, position: bigint) => ({
  event: {
    streamId: `s-${position}`,
    revision: 0n,
    type,
    data: {},
    metadata,
    position: { commit: position, prepare: position },
  },
});

/** The server side of a subscription: what its filter lets through, its checkpoints, caught-up; then it stays live. */
class FakeSubscription extends Readable {
  /** Events that crossed the wire. */
  sent = 0;
  private stopped = false;
  readonly unsubscribe = jest.fn(async () => {
    this.stopped = true;
  });

  constructor(steps: readonly Step[], filter: Filter | undefined) {
    super({ objectMode: true });
    const matches = (type: string) => !filter || !('regex' in filter) || new RegExp(filter.regex).test(type);
    void (async () => {
      for (const step of steps) {
        await new Promise((resolve) => setImmediate(resolve));
        if (this.stopped) return;
        if (step === 'caughtUp') this.emit('caughtUp');
        else if ('checkpoint' in step) {
          const position: Position = { commit: step.checkpoint, prepare: step.checkpoint };
          await filter?.checkpointReached?.(this as never, position);
        } else if (matches(step.event.type)) {
          this.sent += 1;
          this.push(resolved(step.event.type, step.event.position));
        }
      }
    })();
  }

  override _read(): void {}
}

/**
 * A log of `length` events, one per position 1..length, of type Other but for `rare` ones, with
 * the server's checkpoint every `every` events and caught-up at the end.
 */
function logOf(length: number, rare: readonly bigint[], every = 1000): Step[] {
  const steps: Step[] = [];
  for (let p = 1n; p <= BigInt(length); p++) {
    steps.push({ event: { type: rare.includes(p) ? 'Rare' : 'Other', position: p } });
    if (p % BigInt(every) === 0n) steps.push({ checkpoint: p + 1n });
  }
  steps.push('caughtUp');
  return steps;
}

function fakeClient(log: Step[]) {
  const subscriptions: FakeSubscription[] = [];
  const head = [...log]
    .reverse()
    .find((s): s is { event: { type: string; position: bigint } } => typeof s === 'object' && 'event' in s);
  const client = {
    readAll: jest.fn((options: { direction?: unknown }) => {
      if (options.direction === BACKWARDS)
        return new FakeRead(head ? [resolved(head.event.type, head.event.position)] : []);
      throw new Error('a scan reads no page of $all');
    }),
    // The scan's subscription plays the log; the live one afterwards stays quiet.
    subscribeToAll: jest.fn((options: { filter?: Filter }) => {
      const scanning = options.filter?.checkpointReached !== undefined;
      const subscription = new FakeSubscription(scanning ? log : [], options.filter);
      subscriptions.push(subscription);
      return subscription;
    }),
    dispose: jest.fn(async () => undefined),
  };
  return { client, subscriptions };
}

function storeOn(client: object): EsdbEventStore {
  const Store = EsdbEventStore as unknown as new (client: object) => EsdbEventStore;
  return new Store(client);
}

class LeaseGone extends Error {}

describe('EventStoreDB catch-up filtered on the server', () => {
  it('given a rare type among 10,050 events, when scanned, then only its events cross the wire, and the scan reached the head', async () => {
    const { client, subscriptions } = fakeClient(logOf(10_050, [100n, 5000n]));

    const scanned = await storeOn(client).scanAll(undefined, 1000, new Set(['Rare']));

    expect(scanned.events.map((e) => [e.type, e.position])).toEqual([
      ['Rare', 100n],
      ['Rare', 5000n],
    ]);
    expect(scanned.scannedTo).toBe(10_050n);
    expect(subscriptions[0]?.sent).toBe(2);
    expect(subscriptions[0]?.unsubscribe).toHaveBeenCalled();
  });

  it('given a long scan that finds nothing at first, then each checkpoint passed before the first event is told as it goes', async () => {
    const { client } = fakeClient(logOf(6000, [4500n]));
    const told: bigint[] = [];

    await storeOn(client).scanAll(undefined, 1000, new Set(['Rare']), async (position) => {
      told.push(position);
    });

    expect(told).toEqual([1000n, 2000n, 3000n, 4000n]);
  });

  it('given the caller stops the scan (its lease lost), then the scan fails with its error and is unsubscribed', async () => {
    const { client, subscriptions } = fakeClient(logOf(6000, [4500n]));

    const scanning = storeOn(client).scanAll(undefined, 1000, new Set(['Rare']), async () => {
      throw new LeaseGone();
    });

    await expect(scanning).rejects.toBeInstanceOf(LeaseGone);
    expect(subscriptions[0]?.unsubscribe).toHaveBeenCalled();
  });

  it('given more events of the type than asked for, then the scan stops at the count, scanned to the last one', async () => {
    const { client, subscriptions } = fakeClient(logOf(3000, [10n, 20n, 30n, 40n]));

    const scanned = await storeOn(client).scanAll(15n, 2, new Set(['Rare']));

    expect(scanned.events.map((e) => e.position)).toEqual([20n, 30n]);
    expect(scanned.scannedTo).toBe(30n);
    expect(subscriptions[0]?.unsubscribe).toHaveBeenCalled();
  });

  it('given a server that goes quiet without saying it caught up, then the scan ends, not complete, with what it found', async () => {
    const steps = logOf(250, [7n], 100).filter((s) => s !== 'caughtUp');
    const scanned = await scanFiltered(
      (onCheckpoint) =>
        new FakeSubscription(steps, {
          filterOn: 'eventType',
          regex: '^Rare$',
          checkpointInterval: 1,
          checkpointReached: (_, position) => onCheckpoint(position),
        }),
      {
        from: undefined,
        maxCount: 10,
        head: 250n,
        quietMs: 300,
        accept: (r) => (r.event ? { position: r.event.position?.commit ?? 0n } : undefined),
      },
    );

    expect(scanned).toEqual({ events: [{ position: 7n }], scannedTo: 200n, complete: false });
  });

  it('given a projection of a rare type catching up on EventStoreDB, then its checkpoint is stored at the head it scanned to, not at its last event', async () => {
    const { client } = fakeClient(logOf(10_050, [100n, 5000n]));
    const events = storeOn(client);
    jest.spyOn(events, 'identity').mockResolvedValue('esdb:test-log');
    const read = SqliteReadDb.open(':memory:');
    const folded: bigint[] = [];
    const projection = {
      name: 'rare',
      store: sqliteProjectionStore(read, []),
      eventTypes: new Set(['Rare']),
      handles: (event: RecordedEvent) => event.type === 'Rare',
      async apply(event: RecordedEvent) {
        folded.push(event.position);
      },
    };
    const runner = new ReadModelRunner(events, projection, createLogger('silent'));
    try {
      await runner.start();
      const deadline = Date.now() + 5000;
      while ((await projection.store.checkpoint('rare')) !== 10_050n && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 5));

      expect(folded).toEqual([100n, 5000n]);
      expect(await projection.store.checkpoint('rare')).toBe(10_050n);
    } finally {
      await runner.stop();
      read.close();
    }
  });
});

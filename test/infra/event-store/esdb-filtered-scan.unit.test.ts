/**
 * A catch-up of some event types on EventStoreDB is filtered on the server: a subscription to $all
 * with an event-type filter and checkpointReached (the client's readAll takes no filter), which
 * stores how far it looked, so a rare type is not looked for again from its last event, and moves
 * the checkpoint while a long scan finds nothing. Against the stand-in server
 * (test/support/fake-eventstoredb.ts): positions are byte offsets of records, a read or a
 * subscription from a position where no record starts fails with InvalidPosition, and a filtered
 * subscription sends a checkpoint every checkpointInterval × 32 records it looked through, naming
 * a record it has passed (kurrent-io/KurrentDB Enumerator.AllSubscriptionFiltered.cs).
 */
import { eventTypeFilter } from '@eventstore/db-client';
import { EsdbEventStore } from '../../../src/infra/eventstoredb/esdb-event-store';
import { scanFiltered } from '../../../src/infra/eventstoredb/filtered-scan';
import { createLogger } from '../../../src/observability/logger';
import { SqliteReadDb, sqliteProjectionStore } from '../../../src/infra/sqlite/sqlite-read-db';
import type { RecordedEvent } from '../../../src/ports/event-store';
import { ReadModelRunner } from '../../../src/projections/read-model-runner';
import { FakeEventStoreDb, InvalidPositionError } from '../../support/fake-eventstoredb';

function storeOn(server: FakeEventStoreDb): EsdbEventStore {
  // The constructor is private: production code connects through a connection string.
  const Store = EsdbEventStore as unknown as new (client: object) => EsdbEventStore;
  return new Store(server);
}

const RARE = new Set(['Rare']);

/** A log of `length` events of type Other, but Rare at the given (0-based) places; answers the rare ones' positions. */
function logOf(server: FakeEventStoreDb, length: number, rareAt: readonly number[]): bigint[] {
  const rare: bigint[] = [];
  let written = 0;
  for (const at of [...rareAt].sort((a, b) => a - b)) {
    server.fill('Other', at - written);
    rare.push(...server.write(`rare-${at}`, [{ type: 'Rare' }]));
    written = at + 1;
  }
  server.fill('Other', length - written);
  return rare;
}

/** The newest record's position: what the scan calls the head. */
const headOf = (server: FakeEventStoreDb): bigint => server.records(server.length - 1, 1)[0]!.position;

/** Waits for the condition itself, a bounded number of times; fails naming what never happened. */
async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`never happened: ${what}`);
}

class LeaseGone extends Error {}

describe('EventStoreDB catch-up filtered on the server', () => {
  it('given a rare type among 10,050 events, when scanned, then only its events cross the wire, and the scan reached the head', async () => {
    const server = new FakeEventStoreDb();
    const rare = logOf(server, 10_050, [100, 5000]);

    const scanned = await storeOn(server).scanAll(undefined, 1000, RARE);

    expect(scanned.events.map((e) => [e.type, e.position])).toEqual(rare.map((p) => ['Rare', p]));
    expect(scanned.scannedTo).toBe(headOf(server));
    expect(server.subscriptions[0]?.sent).toBe(2);
    // The head is one record read backwards; nothing else of $all reached the client.
    expect(server.sentFromAll).toBe(3);
    expect(server.subscriptions[0]?.unsubscribed).toBe(true);
  });

  it('given a long scan that finds nothing at first, then each checkpoint the server sends before the first event is told as it is', async () => {
    const server = new FakeEventStoreDb();
    logOf(server, 14_000, [13_500]);
    const told: bigint[] = [];

    await storeOn(server).scanAll(undefined, 1000, RARE, async (position) => {
      told.push(position);
    });

    // One every 100 windows of 32 records: 3,200, 6,400, 9,600, 12,800 records looked through.
    expect(told).toEqual(server.subscriptions[0]?.checkpoints.slice(0, 4));
    expect(told).toHaveLength(4);
    expect(told.every((position) => server.isRecordStart(position))).toBe(true);
  });

  it('given a scan stopped after its first checkpoint (a projector that lost its lease), when resumed from the position it stored, then reads and subscriptions start there and every rare event comes once', async () => {
    // given: more non-matching events than one checkpoint interval (100 × 32) before each rare one
    const server = new FakeEventStoreDb();
    const rare = logOf(server, 8000, [3500, 3501, 7000]);
    const store = storeOn(server);
    let stored: bigint | undefined;
    const stopping = store.scanAll(undefined, 10, RARE, async (position) => {
      stored = position;
      throw new LeaseGone();
    });
    await expect(stopping).rejects.toBeInstanceOf(LeaseGone);
    expect(stored).toBe(server.subscriptions[0]?.checkpoints[0]);
    const from = stored!;

    // when: the next projector catches up and then follows the log from it
    const resumed = await store.scanAll(from, 10, RARE);
    const read = await store.readAll(from, 10, RARE);
    const delivered: bigint[] = [];
    const failures: unknown[] = [];
    const subscription = store.subscribeToAll(
      from,
      async (event) => {
        if (event.type === 'Rare') delivered.push(event.position);
      },
      (error) => failures.push(error),
    );
    try {
      await until(() => delivered.length >= rare.length || failures.length > 0, 'the subscription delivered');
    } finally {
      await subscription.close();
    }

    // then
    expect(failures).toEqual([]);
    expect(resumed.events.map((e) => e.position)).toEqual(rare);
    expect(read.map((e) => e.position)).toEqual(rare);
    expect(delivered).toEqual(rare);
  });

  it('given events appended while a scan runs, when it ends past the head it began with, then the position it answers is one the server reads from', async () => {
    // given
    const server = new FakeEventStoreDb();
    logOf(server, 7000, []);
    const head = headOf(server);
    const store = storeOn(server);
    let appended = false;
    // when: 500 more events come in once the scan is under way
    const scanned = await store.scanAll(undefined, 10, RARE, async () => {
      if (appended) return;
      appended = true;
      server.fill('Other', 500);
    });
    // then: the server's last checkpoint names a record past that head; the scan answers one it can read from
    expect(server.subscriptions[0]!.checkpoints.at(-1)! > head).toBe(true);
    expect(scanned.events).toEqual([]);
    expect(scanned.scannedTo).toBe(head);
    server.write('rare-late', [{ type: 'Rare' }]);
    const after = await store.scanAll(scanned.scannedTo, 10, RARE);
    expect(after.events.map((e) => e.streamId)).toEqual(['rare-late']);
  });

  it('given a server that names its last checkpoint at the end of the log (before 25.1), when a scan ends there, then it answers the head, and a later scan from it finds the next event once', async () => {
    // given: checkpoints (commit, 0) while catching up, then one at the end of the log, where no record starts
    const server = new FakeEventStoreDb({ checkpointStyle: 'v23' });
    const rare = logOf(server, 7000, [3500]);
    const head = headOf(server);
    const store = storeOn(server);
    // when
    const scanned = await store.scanAll(undefined, 10, RARE);
    // then
    expect(server.subscriptions[0]!.checkpoints.at(-1)).toBe(server.endOfLog);
    expect(scanned.events.map((e) => e.position)).toEqual(rare);
    expect(scanned.scannedTo).toBe(head);
    server.write('rare-late', [{ type: 'Rare' }]);
    const after = await store.scanAll(scanned.scannedTo, 10, RARE);
    expect(after.events.map((e) => e.streamId)).toEqual(['rare-late']);
  });

  it('given a position where no record starts, when $all is read or scanned from it, then the server refuses it (InvalidPosition)', async () => {
    const server = new FakeEventStoreDb();
    const [, second] = logOf(server, 5000, [10, 4000]);
    const store = storeOn(server);

    await expect(store.readAll(second! - 1n, 10)).rejects.toBeInstanceOf(InvalidPositionError);
    await expect(store.scanAll(second! - 1n, 10, RARE)).rejects.toBeInstanceOf(InvalidPositionError);
  });

  it('given the caller stops the scan (its lease lost), then the scan fails with its error and is unsubscribed', async () => {
    const server = new FakeEventStoreDb();
    logOf(server, 6000, [4500]);

    const scanning = storeOn(server).scanAll(undefined, 1000, RARE, async () => {
      throw new LeaseGone();
    });

    await expect(scanning).rejects.toBeInstanceOf(LeaseGone);
    expect(server.subscriptions[0]?.unsubscribed).toBe(true);
  });

  it('given more events of the type than asked for, then the scan stops at the count, scanned to the last one', async () => {
    const server = new FakeEventStoreDb();
    const rare = logOf(server, 3000, [10, 20, 30, 40]);

    const scanned = await storeOn(server).scanAll(rare[0], 2, RARE);

    expect(scanned.events.map((e) => e.position)).toEqual([rare[1], rare[2]]);
    expect(scanned.scannedTo).toBe(rare[2]);
    expect(server.subscriptions[0]?.unsubscribed).toBe(true);
  });

  it('given a server that goes quiet without saying it caught up, then the scan ends, not complete, with what it found', async () => {
    const server = new FakeEventStoreDb({ saysCaughtUp: false });
    const [rare] = logOf(server, 250, [7]);
    const scanned = await scanFiltered(
      (onCheckpoint) =>
        server.subscribeToAll({
          filter: eventTypeFilter({
            regex: '^Rare$',
            checkpointInterval: 1,
            checkpointReached: (_, position) => onCheckpoint(position),
          }),
        }),
      {
        from: undefined,
        maxCount: 10,
        head: headOf(server),
        quietMs: 300,
        accept: (r) => (r.event ? { position: r.event.position?.commit ?? 0n } : undefined),
      },
    );

    expect(scanned).toEqual({
      events: [{ position: rare }],
      scannedTo: server.subscriptions[0]?.checkpoints.at(-1),
      complete: false,
    });
  });

  it('given a projection of a rare type catching up on EventStoreDB, then its checkpoint is stored at the head it scanned to, not at its last event', async () => {
    const server = new FakeEventStoreDb();
    const rare = logOf(server, 10_050, [100, 5000]);
    const events = storeOn(server);
    jest.spyOn(events, 'identity').mockResolvedValue('esdb:test-log');
    const read = SqliteReadDb.open(':memory:');
    const folded: bigint[] = [];
    const projection = {
      name: 'rare',
      store: sqliteProjectionStore(read, []),
      eventTypes: RARE,
      handles: (event: RecordedEvent) => event.type === 'Rare',
      async apply(event: RecordedEvent) {
        folded.push(event.position);
      },
    };
    const runner = new ReadModelRunner(events, projection, createLogger('silent'));
    try {
      await runner.start();
      const head = headOf(server);
      await until(async () => (await projection.store.checkpoint('rare')) === head, 'the checkpoint reached the head');

      expect(folded).toEqual(rare);
      expect(server.isRecordStart(head)).toBe(true);
    } finally {
      await runner.stop();
      read.close();
    }
  });
});

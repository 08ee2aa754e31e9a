/**
 * Reads of the log that want some event types are filtered on the EventStoreDB server: the
 * client's readAll sends no filter (@eventstore/db-client 6.2.1, readAll.ts sets NoFilter), so
 * the adapter asks a filtered subscription instead, and a rebuild of read models over a log of
 * mostly other events does not bring those across the wire. Against the stand-in server
 * (test/support/fake-eventstoredb.ts), which counts every record of $all it sends to the client.
 */
import { EsdbEventStore } from '../../../src/infra/eventstoredb/esdb-event-store';
import { SqliteReadDb, sqliteProjectionStore } from '../../../src/infra/sqlite/sqlite-read-db';
import { createLogger } from '../../../src/observability/logger';
import type { RecordedEvent } from '../../../src/ports/event-store';
import type { ReadModelProjection } from '../../../src/projections/read-model-projection';
import { ReadModels } from '../../../src/projections/read-models';
import { FakeEventStoreDb } from '../../support/fake-eventstoredb';

function storeOn(server: FakeEventStoreDb): EsdbEventStore {
  // The constructor is private: production code connects through a connection string.
  const Store = EsdbEventStore as unknown as new (client: object) => EsdbEventStore;
  return new Store(server);
}

/** Waits for the condition itself, a bounded number of times; fails naming what never happened. */
async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`never happened: ${what}`);
}

function projectionOf(read: SqliteReadDb, name: string, type: string) {
  const folded: bigint[] = [];
  const projection: ReadModelProjection = {
    name,
    store: sqliteProjectionStore(read, []),
    eventTypes: new Set([type]),
    handles: (event: RecordedEvent) => event.type === type,
    async apply(event: RecordedEvent) {
      folded.push(event.position);
    },
  };
  return { projection, folded };
}

describe('EventStoreDB reads of some types', () => {
  it('given a rebuild over 12,000 events the read models do not fold, when it catches up and follows the log, then only the events they fold cross the wire', async () => {
    // given: the read models' events early in the log, then 12,000 others
    const server = new FakeEventStoreDb();
    server.fill('Other', 500);
    const opened = server.write('account-1', [{ type: 'Opened' }, { type: 'Opened' }]);
    const tagged = server.write('tags-1', [{ type: 'Tagged' }]);
    server.fill('Other', 12_000);
    const read = SqliteReadDb.open(':memory:');
    const accounts = projectionOf(read, 'accounts', 'Opened');
    const tags = projectionOf(read, 'tags', 'Tagged');
    // The builder of a blue/green rebuild: one shared catch-up, no lease.
    const builder = new ReadModels(storeOn(server), [accounts.projection, tags.projection], createLogger('silent'), {
      role: 'project',
    });
    const head = server.endOfLog;
    try {
      // when
      await builder.start();
      await until(
        () => server.subscriptions.every((s) => s.caughtUp || s.unsubscribed),
        'every subscription caught up',
      );
    } finally {
      await builder.stop();
    }
    // then
    expect(accounts.folded).toEqual(opened);
    expect(tags.folded).toEqual(tagged);
    // The folded events, and the newest record for each scan's head (the log's identity is a system event).
    const folded = opened.length + tagged.length;
    expect(server.sentFromAll - folded).toBeLessThanOrEqual(2);
    // Each read model follows the log from where the scan looked to, not from its last event.
    expect(await accounts.projection.store.checkpoint('accounts')).toBeGreaterThan(head - 1000n);
    read.close();
  });

  it('given $all holds events of other types between those asked for, when 2 are read by type, then only those types come back and only they cross the wire', async () => {
    // given
    const server = new FakeEventStoreDb();
    const [from] = server.write('resource-0', [{ type: 'ResourceCreated' }]);
    server.write('sequence-resource', [{ type: 'IdAllocated' }]);
    const [first] = server.write('resource-1', [{ type: 'ResourceCreated' }]);
    server.fill('IdAllocated', 3000);
    const [second] = server.write('resource-2', [{ type: 'ResourceCreated' }]);
    server.write('resource-3', [{ type: 'ResourceCreated' }]);
    // when
    const events = await storeOn(server).readAll(from, 2, new Set(['ResourceCreated']));
    // then
    expect(events.map((e) => [e.streamId, e.position])).toEqual([
      ['resource-1', first],
      ['resource-2', second],
    ]);
    expect(server.allReads.filter((r) => r.direction === 'forwards')).toEqual([]);
    // The head (one record read backwards) and the three events of the type after `from`, at most.
    expect(server.sentFromAll).toBeLessThanOrEqual(4);
  });

  it('given a follower looking for the next event after its position, when it reads one, then the server is asked for that one only', async () => {
    // given
    const server = new FakeEventStoreDb();
    const [position] = server.write('resource-1', [{ type: 'ResourceCreated' }]);
    const [next] = server.write('resource-2', [{ type: 'ResourceCreated' }]);
    server.fill('IdAllocated', 3000);
    // when
    const ahead = await storeOn(server).readAll(position, 1);
    // then
    expect(ahead.map((e) => e.position)).toEqual([next]);
    expect(server.allReads).toEqual([{ direction: 'forwards', maxCount: 2 }]);
    expect(server.sentFromAll).toBe(2);
  });
});

/**
 * The audit's reads of one stream go a page at a time, from where a cursor falls in the stream
 * (src/audit/stream-pages.ts): on the EventStoreDB adapter over its stand-in server, whose
 * positions are byte offsets and whose streams may have lost their oldest events to `$maxAge`, the
 * pages after every cursor hold exactly the stream's events past it, each once, in order.
 */
import { readAuditPage } from '../../src/audit/audit-queries';
import { revisionAfter } from '../../src/audit/stream-pages';
import { EsdbEventStore } from '../../src/infra/eventstoredb/esdb-event-store';
import type { EventMetadata } from '../../src/domain/event';
import type { RecordedEvent } from '../../src/ports/event-store';
import { FakeEventStoreDb } from '../support/fake-eventstoredb';

const metadata: EventMetadata = {
  actor: { userId: 1, credential: 'session' },
  correlationId: 'c',
  at: '2025-06-01T12:00:00.000Z',
};

function storeOn(server: FakeEventStoreDb): EsdbEventStore {
  // The constructor is private: production code connects through a connection string.
  const Store = EsdbEventStore as unknown as new (client: object) => EsdbEventStore;
  return new Store(server);
}

/** A stream of `count` events interleaved with another stream's, the first `expired` of them past `$maxAge`. */
async function interleaved(count: number, expired: number) {
  let now = Date.UTC(2025, 5, 1, 12);
  const server = new FakeEventStoreDb({ now: () => now });
  const store = storeOn(server);
  for (let i = 0; i < count; i++) {
    await store.appendToStream('directory', [{ type: 'Happened', data: { i }, metadata }], 'any');
    await store.appendToStream('other', [{ type: 'Elsewhere', data: { i }, metadata }], 'any');
    if (i === expired - 1) now += 10_000;
  }
  if (expired > 0) await server.setStreamMetadata('directory', { maxAge: 5 });
  return { store, stream: await store.readStream('directory') };
}

describe('audit reads of one stream, a page at a time', () => {
  it.each([
    [7, 0],
    [7, 3],
    [40, 0],
    [40, 17],
  ])(
    'given a stream of %i events (%i of them expired), when a read resumes after any position of the log, then it starts at the first event past it',
    async (count, expired) => {
      const { store, stream } = await interleaved(count, expired);
      expect(stream).toHaveLength(count - expired);
      const positions = (await store.readAll(undefined, 1000)).map((e) => e.position);

      for (const position of [0n, ...positions]) {
        const from = await revisionAfter(store, 'directory', position);
        const expected = stream.find((e) => e.position > position);
        if (!expected) expect(from).toBeUndefined();
        else expect((await store.readStream('directory', { fromRevision: from!, maxCount: 1 }))[0]).toEqual(expected);
      }
    },
  );

  it('given pages of 3 followed by their cursor, then they join into the stream, each event once and in order', async () => {
    const { store, stream } = await interleaved(20, 5);
    const seen: RecordedEvent[] = [];
    let after: bigint | undefined;
    for (let pages = 0; pages < 20; pages++) {
      const page = await readAuditPage(store, { stream: 'directory' }, after, 3);
      seen.push(...page.items);
      after = page.lastSeen;
      if (!page.hasMore) break;
    }
    expect(seen).toEqual(stream);
  });

  it('given a selective filter on a long stream, then a page examines at most the scan bound and says where to resume', async () => {
    const { store, stream } = await interleaved(30, 0);
    const page = await readAuditPage(store, { stream: 'directory', type: 'Nothing' }, undefined, 10, 12);
    expect(page).toEqual({ items: [], lastSeen: stream[11]!.position, hasMore: true });
    const rest = await readAuditPage(store, { stream: 'directory', type: 'Nothing' }, page.lastSeen, 10, 100);
    expect(rest).toEqual({ items: [], lastSeen: stream[29]!.position, hasMore: false });
  });
});

/**
 * The EventStoreDB adapter against a server that accepts the connection and never answers (a
 * stalled node, a proxy holding the line): the real client, no stand-in. The client sends reads
 * with an infinite gRPC deadline and makes an append wait first on a probe with none; every call
 * of the adapter must still end, as a passing failure (a 503), within its call deadline. No timing
 * is asserted: without the deadline these calls never settle and the test fails on jest's timeout.
 */
import net from 'node:net';
import type { EventMetadata } from '../../../src/domain/event';
import { EsdbEventStore } from '../../../src/infra/eventstoredb/esdb-event-store';
import { isTransientStoreError } from '../../../src/projections/transient-error';

const metadata: EventMetadata = {
  actor: { userId: 1, credential: 'session' },
  correlationId: 'c',
  at: '2025-03-01T00:00:00.000Z',
};

describe('EventStoreDB that accepts and never answers', () => {
  jest.setTimeout(30_000);
  const held = new Set<net.Socket>();
  let server: net.Server;
  let store: EsdbEventStore;

  beforeAll(async () => {
    server = net.createServer((socket) => {
      held.add(socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    store = EsdbEventStore.connect(`esdb://127.0.0.1:${port}?tls=false`, { callDeadlineMs: 500 });
  });
  afterAll(async () => {
    await store.close().catch(() => undefined);
    for (const socket of held) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it.each<[string, () => Promise<unknown>]>([
    ['a stream read', () => store.readStream('resource-1')],
    ["a stream's last event", () => store.readLastEvent('resource-1')],
    ['a page of the log', () => store.readAll(undefined, 10)],
    ["the log's head", () => store.headPosition()],
    ['an append', () => store.appendToStream('resource-1', [{ type: 'Happened', data: {}, metadata }], 'no_stream')],
  ])('when %s is asked, then it fails as a passing failure instead of waiting for ever', async (_what, call) => {
    const failed = await call().then(
      () => null,
      (error: unknown) => error,
    );

    expect(failed).toBeInstanceOf(Error);
    expect(isTransientStoreError(failed)).toBe(true);
  });
});

import { WrongExpectedVersionError, type JSONEventData } from '@eventstore/db-client';
import {
  EsdbEventStore,
  LOG_IDENTITY_STREAM,
  MalformedLogIdentityError,
} from '../../../src/infra/eventstoredb/esdb-event-store';
import { FakeRead } from './fake-read';

/*
 * The EventStoreDB log identity against a stand-in server (streams in a map, appends checked at
 * `no_stream` like EventStoreDB does): no EventStoreDB runs here. The contract suite asks a real
 * one where it runs (test/contract/event-store.int.test.ts).
 */

type Stored = { type: string; data: unknown; id: string };

function fakeServer() {
  const streams = new Map<string, Stored[]>();
  const client = {
    appendToStream: jest.fn(async (stream: string, events: JSONEventData[], options: { expectedRevision: unknown }) => {
      // Every caller awaits before the server decides: concurrent first contacts really race.
      await new Promise((resolve) => setImmediate(resolve));
      const existing = streams.get(stream);
      if (options.expectedRevision === 'no_stream' && existing)
        throw new WrongExpectedVersionError(undefined, {
          streamName: stream,
          expected: 'no_stream',
          actual: BigInt(existing.length - 1),
        } as never);
      streams.set(stream, [...(existing ?? []), ...events.map((e) => ({ type: e.type, data: e.data, id: e.id }))]);
      return { success: true, nextExpectedRevision: 0n, position: { commit: 1n, prepare: 1n } };
    }),
    readStream: jest.fn(
      (stream: string) =>
        new FakeRead(
          (streams.get(stream) ?? []).map((e, i) => ({
            event: {
              streamId: stream,
              revision: BigInt(i),
              type: e.type,
              data: e.data,
              metadata: {},
              id: e.id,
              position: { commit: BigInt(i + 1), prepare: BigInt(i + 1) },
            },
          })),
        ),
    ),
  };
  return { streams, client };
}

function storeOn(client: object): EsdbEventStore {
  // The constructor is private: production code connects through a connection string.
  const Store = EsdbEventStore as unknown as new (client: object) => EsdbEventStore;
  return new Store(client);
}

describe('EsdbEventStore log identity', () => {
  it('given a server never asked, when several processes ask at once, then one id is written and all get it', async () => {
    // given
    const { client, streams } = fakeServer();
    const processes = [storeOn(client), storeOn(client), storeOn(client)];
    // when
    const identities = await Promise.all(processes.map((store) => store.identity()));
    // then
    expect(new Set(identities).size).toBe(1);
    expect(identities[0]).toMatch(/^esdb:[0-9a-f-]{36}$/);
    expect(streams.get(LOG_IDENTITY_STREAM)).toHaveLength(1);
  });

  it('given an id in the log, when another connection (another host name) asks, then it gets the same id', async () => {
    // given
    const { client } = fakeServer();
    const first = await storeOn(client).identity();
    // when
    const later = await storeOn(client).identity();
    // then
    expect(later).toBe(first);
  });

  it('given a recreated, empty server under the same name, when asked, then its id is another', async () => {
    // given
    const before = await storeOn(fakeServer().client).identity();
    // when
    const after = await storeOn(fakeServer().client).identity();
    // then
    expect(after).not.toBe(before);
  });

  it('given the identity stream written by something else, when asked, then it fails rather than guess', async () => {
    // given
    const { client, streams } = fakeServer();
    streams.set(LOG_IDENTITY_STREAM, [{ type: 'Something', data: { other: 1 }, id: 'x' }]);
    // when
    const asking = storeOn(client).identity();
    // then
    await expect(asking).rejects.toBeInstanceOf(MalformedLogIdentityError);
  });

  it('given the event the id is written in, then its type is one reads of the log skip', async () => {
    // given
    const { client, streams } = fakeServer();
    // when
    await storeOn(client).identity();
    // then
    expect(streams.get(LOG_IDENTITY_STREAM)?.[0]?.type.startsWith('$')).toBe(true);
  });
});

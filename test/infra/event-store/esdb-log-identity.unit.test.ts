import {
  EsdbEventStore,
  LOG_IDENTITY_STREAM,
  MalformedLogIdentityError,
} from '../../../src/infra/eventstoredb/esdb-event-store';
import { FakeEventStoreDb } from '../../support/fake-eventstoredb';

/*
 * The EventStoreDB log identity against the stand-in server (test/support/fake-eventstoredb.ts:
 * appends checked at their expected revision as EventStoreDB does): no EventStoreDB runs here. The
 * contract suite asks a real one where it runs (test/contract/event-store.int.test.ts).
 */

function storeOn(client: object): EsdbEventStore {
  // The constructor is private: production code connects through a connection string.
  const Store = EsdbEventStore as unknown as new (client: object) => EsdbEventStore;
  return new Store(client);
}

describe('EsdbEventStore log identity', () => {
  it('given a server never asked, when several processes ask at once, then one id is written and all get it', async () => {
    // given
    const server = new FakeEventStoreDb();
    const processes = [storeOn(server), storeOn(server), storeOn(server)];
    // when
    const identities = await Promise.all(processes.map((store) => store.identity()));
    // then
    expect(new Set(identities).size).toBe(1);
    expect(identities[0]).toMatch(/^esdb:[0-9a-f-]{36}$/);
    expect(server.storedIn(LOG_IDENTITY_STREAM)).toHaveLength(1);
  });

  it('given a client that resolves a lost append instead of throwing (throwOnAppendFailure=false), when several processes ask at once, then still one id for all', async () => {
    // given
    const server = new FakeEventStoreDb({ throwOnAppendFailure: false });
    const processes = [storeOn(server), storeOn(server), storeOn(server)];
    // when
    const identities = await Promise.all(processes.map((store) => store.identity()));
    // then
    expect(new Set(identities).size).toBe(1);
    expect(server.storedIn(LOG_IDENTITY_STREAM)).toHaveLength(1);
  });

  it('given an id in the log, when another connection (another host name) asks, then it gets the same id', async () => {
    // given
    const server = new FakeEventStoreDb();
    const first = await storeOn(server).identity();
    // when
    const later = await storeOn(server).identity();
    // then
    expect(later).toBe(first);
  });

  it('given a recreated, empty server under the same name, when asked, then its id is another', async () => {
    // given
    const before = await storeOn(new FakeEventStoreDb()).identity();
    // when
    const after = await storeOn(new FakeEventStoreDb()).identity();
    // then
    expect(after).not.toBe(before);
  });

  it('given the identity stream written by something else, when asked, then it fails rather than guess', async () => {
    // given
    const server = new FakeEventStoreDb();
    server.write(LOG_IDENTITY_STREAM, [{ type: 'Something', data: { other: 1 } }]);
    // when
    const asking = storeOn(server).identity();
    // then
    await expect(asking).rejects.toBeInstanceOf(MalformedLogIdentityError);
  });

  it('given the event the id is written in, then its type is one reads of the log skip', async () => {
    // given
    const server = new FakeEventStoreDb();
    // when
    await storeOn(server).identity();
    // then
    expect(server.storedIn(LOG_IDENTITY_STREAM)[0]?.type.startsWith('$')).toBe(true);
  });
});

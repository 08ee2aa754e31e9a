import { StreamNotFoundError } from '@eventstore/db-client';
import { EsdbEventStore, NoPositionError } from '../../../src/infra/eventstoredb/esdb-event-store';
import { ReadDeadlineExceededError } from '../../../src/infra/eventstoredb/streaming-read';
import { FakeRead } from './fake-read';

/*
 * EsdbEventStore's reads against a fake client whose reads are FakeReads: no EventStoreDB runs
 * here. Positions are byte offsets of records, as the server's are (test/support/fake-eventstoredb.ts).
 * The contract suite covers their results against a real server where one runs.
 */

type FakeClient = { readStream: jest.Mock; readAll: jest.Mock };

function storeOn(client: FakeClient): EsdbEventStore {
  // The constructor is private: production code connects through a connection string.
  const Store = EsdbEventStore as unknown as new (client: FakeClient) => EsdbEventStore;
  return new Store(client);
}

const metadata = { actor: { userId: 1, credential: 'session' }, correlationId: 'c', at: '2024-05-01T10:00:00.000Z' };

function resolved(streamId: string, revision: bigint, position: bigint | undefined, type = 'Happened') {
  return {
    event: {
      streamId,
      revision,
      type,
      data: { revision: Number(revision) },
      metadata,
      position: position === undefined ? undefined : { commit: position, prepare: position },
    },
  };
}

describe('EsdbEventStore reads', () => {
  it('given a backwards read the server keeps open, when the last event is read, then it is returned and the call cancelled', async () => {
    // given
    const read = new FakeRead([resolved('resource-1', 4n, 5418n)], 'stall');
    const store = storeOn({ readStream: jest.fn(() => read), readAll: jest.fn() });
    // when
    const last = await store.readLastEvent('resource-1');
    // then
    expect(last).toMatchObject({ streamId: 'resource-1', revision: 4n, position: 5418n });
    expect(read.cancel).toHaveBeenCalledTimes(1);
  });

  it('given a missing stream, when the last event is read, then there is none', async () => {
    // given
    const read = new FakeRead([], { failWith: new StreamNotFoundError(undefined, 'resource-9') });
    const store = storeOn({ readStream: jest.fn(() => read), readAll: jest.fn() });
    // when
    const last = await store.readLastEvent('resource-9');
    // then
    expect(last).toBeUndefined();
  });

  it('given an event without a position mid-stream, when the stream is read, then it fails and the call is cancelled', async () => {
    // given
    const read = new FakeRead([resolved('resource-1', 0n, 1296n), resolved('resource-1', 1n, undefined)], 'stall');
    const store = storeOn({ readStream: jest.fn(() => read), readAll: jest.fn() });
    // when
    const reading = store.readStream('resource-1');
    // then
    await expect(reading).rejects.toBeInstanceOf(NoPositionError);
    expect(read.cancel).toHaveBeenCalledTimes(1);
  });

  it('given an event whose position the server says it does not know (-1, read as 2^64 - 1), when the stream is read, then it fails as one without a position', async () => {
    // given
    const unknown = 0xffff_ffff_ffff_ffffn;
    const read = new FakeRead([resolved('resource-1', 0n, 1296n), resolved('resource-1', 1n, unknown)], 'stall');
    const store = storeOn({ readStream: jest.fn(() => read), readAll: jest.fn() });
    // when
    const reading = store.readStream('resource-1');
    // then
    await expect(reading).rejects.toBeInstanceOf(NoPositionError);
  });

  it('given a whole stream, when it is read, then every event comes back in order', async () => {
    // given
    const read = new FakeRead([resolved('resource-1', 0n, 1296n), resolved('resource-1', 1n, 1418n)]);
    const store = storeOn({ readStream: jest.fn(() => read), readAll: jest.fn() });
    // when
    const events = await store.readStream('resource-1');
    // then
    expect(events.map((e) => [e.revision, e.position])).toEqual([
      [0n, 1296n],
      [1n, 1418n],
    ]);
  });

  it('given $all holds more than asked for, when 2 events are read after a position, then the page is left early and cancelled', async () => {
    // given
    const page = [
      resolved('resource-1', 0n, 1296n),
      resolved('$stats', 0n, 1418n, '$statsCollected'),
      resolved('resource-2', 0n, 1540n),
      resolved('resource-3', 0n, 1662n),
      resolved('resource-4', 0n, 1784n),
    ];
    const read = new FakeRead(page, 'stall');
    const store = storeOn({ readStream: jest.fn(), readAll: jest.fn(() => read) });
    // when
    const events = await store.readAll(1296n, 2);
    // then
    expect(events.map((e) => e.streamId)).toEqual(['resource-2', 'resource-3']);
    expect(read.cancel).toHaveBeenCalledTimes(1);
  });

  describe('ping', () => {
    afterEach(() => jest.useRealTimers());

    it('given a server that never answers, when pinged, then it fails at its own deadline and the call is cancelled', async () => {
      // given
      jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
      const read = new FakeRead([], 'stall');
      const readStream = jest.fn(() => read);
      const store = storeOn({ readStream, readAll: jest.fn() });
      // when
      const pinged = store.ping();
      const outcome = pinged.then(
        () => 'answered',
        (error: unknown) => error,
      );
      await jest.advanceTimersByTimeAsync(2000);
      // then
      await expect(outcome).resolves.toBeInstanceOf(ReadDeadlineExceededError);
      expect(read.cancel).toHaveBeenCalled();
    });

    it('given the ping stream does not exist, when pinged, then the server answered', async () => {
      // given
      const read = new FakeRead([], { failWith: new StreamNotFoundError(undefined, 'ping') });
      const store = storeOn({ readStream: jest.fn(() => read), readAll: jest.fn() });
      // when
      const pinged = store.ping();
      // then
      await expect(pinged).resolves.toBeUndefined();
    });
  });
});

import { handleCommand, MAX_ATTEMPTS } from '../../src/commands/command-handler';
import { DomainError } from '../../src/domain/errors';
import type { EventStore, NewEvent, RecordedEvent } from '../../src/infra/event-store/event-store';
import { WrongExpectedRevisionError } from '../../src/infra/event-store/event-store';

const metadata = { actor: { userId: 1, credential: 'session' as const }, correlationId: 'c', at: '2025-01-01T00:00:00.000Z' };

/** A store where another writer wins the race `losses` times before this one gets through. */
function contendedStore(losses: number): EventStore & { appended: NewEvent[][] } {
  let remaining = losses;
  const appended: NewEvent[][] = [];
  return {
    identity: 'test:contended',
    appended,
    appendToStream(streamId, events, expected) {
      if (remaining > 0) {
        remaining -= 1;
        return Promise.reject(new WrongExpectedRevisionError(streamId, expected, 0n));
      }
      appended.push([...events]);
      return Promise.resolve({ nextExpectedRevision: 0n, position: 1n });
    },
    readStream: () => Promise.resolve([] as RecordedEvent[]),
    readLastEvent: () => Promise.resolve(undefined),
    readAll: () => Promise.resolve([]),
    headPosition: () => Promise.resolve(undefined),
    subscribeToAll: () => ({ close: () => Promise.resolve() }),
    ping: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
}

const run = (store: EventStore, waits: number[]) =>
  handleCommand(store, 'resource-1', () => null, () => [{ type: 'Happened', data: {} }] as const, metadata, (attempt) => {
    waits.push(attempt);
    return Promise.resolve();
  });

describe('handleCommand under contention', () => {
  it('given a few lost races, then it waits between attempts and appends once', async () => {
    const store = contendedStore(3);
    const waits: number[] = [];
    const result = await run(store, waits);
    expect(result.position).toBe(1n);
    expect(store.appended).toHaveLength(1);
    expect(waits).toEqual([1, 2, 3]);
  });

  it('given every attempt lost, then a DomainError unavailable and nothing appended', async () => {
    const store = contendedStore(Number.POSITIVE_INFINITY);
    const waits: number[] = [];
    const outcome = await run(store, waits).catch((error: unknown) => error);
    expect(outcome).toBeInstanceOf(DomainError);
    expect((outcome as DomainError).kind).toBe('unavailable');
    expect(store.appended).toHaveLength(0);
    expect(waits).toHaveLength(MAX_ATTEMPTS - 1);
  });
});

import { handleCommand, MAX_ATTEMPTS } from '../../src/commands/command-handler';
import type { Decider } from '../../src/domain/decider';
import { DomainError } from '../../src/domain/errors';
import type { EventStore, ExpectedRevision, NewEvent, RecordedEvent } from '../../src/ports/event-store';
import { WrongExpectedRevisionError } from '../../src/ports/event-store';

const metadata = {
  actor: { userId: 1, credential: 'session' as const },
  correlationId: 'c',
  at: '2025-01-01T00:00:00.000Z',
};

type Counted = { readonly type: 'Counted'; readonly data: { readonly n: number } };

/** A counter: each Count records the next number, decided on the count read. */
const counter: Decider<number, { type: 'Count' }, Counted> = {
  decide: (_command, count) => [{ type: 'Counted', data: { n: count + 1 } }],
  evolve: (_count, event) => event.data.n,
  initialState: () => 0,
};

const recorded = (n: number): RecordedEvent => ({
  type: 'Counted',
  data: { n },
  metadata,
  revision: BigInt(n - 1),
  position: BigInt(n),
  streamId: 'counter-1',
});

/**
 * A stream already holding two events, where another writer wins the race `losses` times before
 * this one gets through: before each of those appends the other writer appends an event of its
 * own. Like a real store, an append is refused unless its expected revision is the stream's
 * current one, so a command that appended at a stale or 'any' revision would get through and be
 * recorded. Every read, every expected revision and every stored append is counted.
 */
function contendedStore(losses: number) {
  let remaining = losses;
  const history: RecordedEvent[] = [recorded(1), recorded(2)];
  const calls = { reads: 0, appended: [] as NewEvent[][], expected: [] as ExpectedRevision[] };
  const store: EventStore = {
    identity: () => Promise.resolve('test:contended'),
    appendToStream(streamId, events, expected) {
      calls.expected.push(expected);
      if (remaining > 0) {
        remaining -= 1;
        history.push(recorded(history.length + 1));
      }
      const current = BigInt(history.length - 1);
      if (expected !== 'any' && expected !== current)
        return Promise.reject(new WrongExpectedRevisionError(streamId, expected, current));
      calls.appended.push([...events]);
      for (const event of events) history.push({ ...recorded(history.length + 1), ...event });
      return Promise.resolve({ nextExpectedRevision: BigInt(history.length - 1), position: BigInt(history.length) });
    },
    readStream: () => {
      calls.reads += 1;
      return Promise.resolve([...history]);
    },
    readLastEvent: () => Promise.resolve(history.at(-1)),
    readAll: () => Promise.resolve([]),
    headPosition: () => Promise.resolve(undefined),
    subscribeToAll: () => ({ close: () => Promise.resolve() }),
    ping: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
  return { store, calls };
}

function run(store: EventStore, newStream = false) {
  const waits: number[] = [];
  const built: number[] = [];
  const outcome = handleCommand(
    store,
    'counter-1',
    counter,
    (count) => {
      built.push(count);
      return Promise.resolve({ type: 'Count' as const });
    },
    metadata,
    {
      backoff: (attempt) => {
        waits.push(attempt);
        return Promise.resolve();
      },
      newStream,
    },
  );
  return { outcome, waits, built };
}

describe('handleCommand', () => {
  it('given a stream, when a command runs, then it reads the stream once, builds the command from its state and appends at the revision read', async () => {
    const { store, calls } = contendedStore(0);
    const { outcome, built } = run(store);

    const result = await outcome;

    expect(calls.reads).toBe(1);
    expect(built).toEqual([2]);
    expect(calls.expected).toEqual([1n]);
    expect(calls.appended).toEqual([[{ type: 'Counted', data: { n: 3 }, metadata }]]);
    expect(result).toEqual({
      position: 3n,
      write: { position: 3n, stream: { id: 'counter-1', firstRevision: 2n } },
      events: [{ type: 'Counted', data: { n: 3 } }],
      state: 3,
    });
  });

  it('given a few lost races, then each attempt reads the stream once, waits, and it appends once', async () => {
    const { store, calls } = contendedStore(3);
    const { outcome, waits, built } = run(store);

    const result = await outcome;

    // the other writer's three events, then this one's, decided on the count it last read
    expect(result.position).toBe(6n);
    expect(calls.reads).toBe(4);
    expect(built).toEqual([2, 3, 4, 5]);
    expect(calls.expected).toEqual([1n, 2n, 3n, 4n]);
    expect(calls.appended).toEqual([[{ type: 'Counted', data: { n: 6 }, metadata }]]);
    expect(calls.appended).toHaveLength(1);
    expect(waits).toEqual([1, 2, 3]);
  });

  it('given every attempt lost, then a DomainError unavailable and nothing appended', async () => {
    const { store, calls } = contendedStore(Number.POSITIVE_INFINITY);
    const { outcome, waits } = run(store);

    const error = await outcome.catch((e: unknown) => e);

    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).kind).toBe('unavailable');
    expect(calls.appended).toHaveLength(0);
    expect(calls.reads).toBe(MAX_ATTEMPTS);
    expect(waits).toHaveLength(MAX_ATTEMPTS - 1);
  });

  it('given a decision that records nothing, then nothing is appended', async () => {
    const { store, calls } = contendedStore(0);
    const idle: Decider<number, { type: 'Count' }, Counted> = { ...counter, decide: () => [] };

    const result = await handleCommand(store, 'counter-1', idle, () => ({ type: 'Count' as const }), metadata);

    expect(result).toEqual({ position: undefined, events: [], state: 2 });
    expect(calls.expected).toEqual([]);
  });

  it('given a stream named by a fresh id, then the first attempt appends without reading it, where no stream exists; a stream found there after all is read by the next attempt', async () => {
    const { store, calls } = contendedStore(0);
    const { outcome, built } = run(store, true);

    const result = await outcome;

    expect(calls.expected).toEqual(['no_stream', 1n]);
    expect(calls.reads).toBe(1);
    expect(built).toEqual([0, 2]);
    expect(result.position).toBe(3n);
  });
});

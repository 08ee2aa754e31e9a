import type { EventMetadata } from '../domain/event';
import { WrongExpectedRevisionError, type EventStore } from '../ports/event-store';
import { contentionExhausted } from './contention';

const maxAttempts = 20;

function lastId(data: unknown): number {
  const id = (data as { id?: unknown } | null)?.id;
  if (typeof id !== 'number' || !Number.isSafeInteger(id))
    throw new Error(`malformed IdAllocated event: ${JSON.stringify(data)}`);
  return id;
}

/** Spreads colliding allocators apart so that the next round does not collide again. */
function backoff(attempt: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(2 ** attempt, 50)));
}

/**
 * The last allocation this process made of each sequence, per event store: a guess of the
 * stream's revision, checked by the append's expected revision, so that concurrent allocations
 * here need not wait for each other's commit (they go out in one group commit, in order).
 * A wrong guess (another process allocated meanwhile) is a WrongExpectedRevisionError: the
 * guess is dropped and the allocation retried from the stream itself.
 */
const guesses = new WeakMap<EventStore, Map<string, { revision: bigint; id: number }>>();

async function reserve(store: EventStore, streamId: string): Promise<{ expected: bigint | 'no_stream'; id: number }> {
  let perStore = guesses.get(store);
  if (!perStore) guesses.set(store, (perStore = new Map()));
  let last = perStore.get(streamId);
  if (!last) {
    const event = await store.readLastEvent(streamId);
    // Another reservation may have been made while this one read the stream.
    last =
      perStore.get(streamId) ??
      (event ? { revision: event.revision, id: lastId(event.data) } : { revision: -1n, id: 0 });
  }
  perStore.set(streamId, { revision: last.revision + 1n, id: last.id + 1 });
  return { expected: last.revision < 0n ? 'no_stream' : last.revision, id: last.id + 1 };
}

function forget(store: EventStore, streamId: string): void {
  guesses.get(store)?.delete(streamId);
}

/**
 * Allocates the next integer id of a sequence. The id is claimed by appending to the sequence's
 * stream with the expected revision, so two processes can never hand out the same id.
 */
export async function nextId(store: EventStore, sequence: string, metadata: EventMetadata): Promise<number> {
  const streamId = `sequence-${sequence}`;
  // Who allocated and when, not from where: the event the id is for, appended next under the same
  // correlation id, carries the client's address. Without personal data an allocation seals
  // nothing, so it waits for no look-up of its person's key.
  const { clientAddress: _, ...bookkeeping } = metadata;
  for (let attempt = 1; ; attempt += 1) {
    const { expected, id } = await reserve(store, streamId);
    try {
      await store.appendToStream(streamId, [{ type: 'IdAllocated', data: { id }, metadata: bookkeeping }], expected);
      return id;
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      forget(store, streamId);
      if (attempt >= maxAttempts) throw contentionExhausted(streamId);
      await backoff(attempt);
    }
  }
}

import type { EventMetadata } from '../domain/event';
import { WrongExpectedRevisionError, type EventStore } from '../infra/event-store/event-store';
import { contentionExhausted } from './contention';

const maxAttempts = 20;

function lastId(data: unknown): number {
  const id = (data as { id?: unknown } | null)?.id;
  if (typeof id !== 'number' || !Number.isSafeInteger(id)) throw new Error(`malformed IdAllocated event: ${JSON.stringify(data)}`);
  return id;
}

/** Spreads colliding allocators apart so that the next round does not collide again. */
function backoff(attempt: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(2 ** attempt, 50)));
}

/**
 * Allocations of one sequence through one event store, queued in this process: concurrent
 * requests here would otherwise all read the same last id and all but one lose the append,
 * retrying with backoff (that was the largest part of a create's latency under load).
 * Conflicts with other processes are still settled by the expected revision.
 */
const queues = new WeakMap<EventStore, Map<string, Promise<unknown>>>();

function inTurn<T>(store: EventStore, sequence: string, work: () => Promise<T>): Promise<T> {
  let perStore = queues.get(store);
  if (!perStore) queues.set(store, (perStore = new Map()));
  const previous = perStore.get(sequence) ?? Promise.resolve();
  const next = previous.then(work, work);
  const settled = next.catch(() => undefined);
  perStore.set(sequence, settled);
  void settled.then(() => {
    if (perStore.get(sequence) === settled) perStore.delete(sequence);
  });
  return next;
}

/**
 * Allocates the next integer id of a sequence. The id is claimed by appending to the sequence's
 * stream with the expected revision, so two processes can never hand out the same id; nothing is
 * cached, because a cache would break that with several API processes.
 */
export function nextId(store: EventStore, sequence: string, metadata: EventMetadata): Promise<number> {
  return inTurn(store, sequence, () => allocate(store, sequence, metadata));
}

async function allocate(store: EventStore, sequence: string, metadata: EventMetadata): Promise<number> {
  const streamId = `sequence-${sequence}`;
  for (let attempt = 1; ; attempt += 1) {
    const last = await store.readLastEvent(streamId);
    const id = (last ? lastId(last.data) : 0) + 1;
    try {
      await store.appendToStream(streamId, [{ type: 'IdAllocated', data: { id }, metadata }], last?.revision ?? 'no_stream');
      return id;
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      if (attempt >= maxAttempts) throw contentionExhausted(streamId);
      await backoff(attempt);
    }
  }
}

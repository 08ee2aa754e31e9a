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
 * Allocates the next integer id of a sequence. The id is claimed by appending to the sequence's
 * stream with the expected revision, so two processes can never hand out the same id; nothing is
 * cached, because a cache would break that with several API processes.
 */
export async function nextId(store: EventStore, sequence: string, metadata: EventMetadata): Promise<number> {
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

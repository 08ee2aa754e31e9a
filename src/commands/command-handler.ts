import type { EventMetadata } from '../domain/event';
import type { EventStore, RecordedEvent } from '../infra/event-store/event-store';
import { WrongExpectedRevisionError } from '../infra/event-store/event-store';
import type { Backoff } from './contention';
import { contentionExhausted, jitteredBackoff } from './contention';

export type EventData = { readonly type: string; readonly data: unknown };

export const MAX_ATTEMPTS = 10;

/**
 * Load, decide, append — retried when another writer appended to the stream in between, so
 * the decision is always taken on the latest state, with a jittered wait between attempts; when
 * they run out, a DomainError 'unavailable' (503). Returns the global position of the last
 * appended event (undefined when the decision appended nothing).
 */
export async function handleCommand<State, Result extends readonly EventData[]>(
  store: EventStore,
  streamId: string,
  fold: (events: readonly RecordedEvent[]) => State,
  decide: (state: State) => Result,
  metadata: EventMetadata,
  backoff: Backoff = jitteredBackoff,
): Promise<{ position: bigint | undefined; events: Result; state: State }> {
  for (let attempt = 1; ; attempt++) {
    const history = await store.readStream(streamId);
    const state = fold(history);
    const events = decide(state);
    if (events.length === 0) return { position: undefined, events, state };
    const last = history.at(-1);
    try {
      const result = await store.appendToStream(
        streamId,
        events.map((e) => ({ type: e.type, data: e.data, metadata })),
        last ? last.revision : 'no_stream',
      );
      return { position: result.position, events, state };
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      if (attempt >= MAX_ATTEMPTS) throw contentionExhausted(streamId);
      await backoff(attempt);
    }
  }
}

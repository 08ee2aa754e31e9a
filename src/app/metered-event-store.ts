import type { Metrics } from '../observability/metrics';
import type { EventStore } from '../ports/event-store';

/** Counts appended events by stream type (`resource`, `directory`, `sequence`), nothing else changes. */
export function meteredEventStore(inner: EventStore, metrics: Metrics): EventStore {
  return {
    identity: () => inner.identity(),
    async appendToStream(streamId, events, expected, options) {
      const result = await inner.appendToStream(streamId, events, expected, options);
      metrics.eventsAppended.inc({ stream_type: streamId.split('-')[0] ?? streamId }, events.length);
      return result;
    },
    readStream: (streamId, range) => inner.readStream(streamId, range),
    readLastEvent: (streamId) => inner.readLastEvent(streamId),
    readAll: (from, maxCount, types) => inner.readAll(from, maxCount, types),
    ...(inner.scanAll && { scanAll: inner.scanAll.bind(inner) }),
    headPosition: () => inner.headPosition(),
    subscribeToAll: (from, onEvent, onError) => inner.subscribeToAll(from, onEvent, onError),
    ping: () => inner.ping(),
    close: () => inner.close(),
  };
}

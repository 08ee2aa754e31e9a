import type { EventStore } from '../../src/ports/event-store';

/** The event store `inner`, with some of its methods replaced: a test double that changes one behaviour only. */
export function eventStoreExcept(inner: EventStore, replaced: Partial<EventStore>): EventStore {
  return {
    identity: inner.identity.bind(inner),
    appendToStream: inner.appendToStream.bind(inner),
    readStream: inner.readStream.bind(inner),
    readLastEvent: inner.readLastEvent.bind(inner),
    readAll: inner.readAll.bind(inner),
    headPosition: inner.headPosition.bind(inner),
    subscribeToAll: inner.subscribeToAll.bind(inner),
    ping: inner.ping.bind(inner),
    close: inner.close.bind(inner),
    ...replaced,
  };
}

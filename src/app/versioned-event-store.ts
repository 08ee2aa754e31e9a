import type { EventMetadata } from '../domain/event';
import type { EventCatalog } from '../domain/event-upcasting';
import { currentVersionOf, SCHEMA_VERSION, storedVersionOf, upcastData } from '../domain/event-upcasting';
import type { EventStore, NewEvent, RecordedEvent } from '../ports/event-store';
import type { IdempotencyKeys } from '../ports/idempotency-keys';
import type { LogIntegrity } from '../ports/log-integrity';
import { hasLogIntegrity } from '../ports/log-integrity';

/**
 * The one place where event versions are handled, at the port's boundary: every
 * appended event is stamped with its type's current version (metadata `schemaVersion`), and every
 * event read (readStream, readLastEvent, readAll, subscribeToAll) is lifted to the current version
 * by the catalog's upcasters, its `schemaVersion` taken off. Above this, decide, evolve, the
 * projections and the audit code see current shapes only. The adapters store what they are given.
 */
export function versionedEventStore<S extends EventStore & IdempotencyKeys>(
  inner: S,
  catalog: EventCatalog,
): EventStore & IdempotencyKeys & Partial<LogIntegrity> {
  const currentOf = currentIn(catalog);
  const stamped = stampedIn(catalog);
  const scanAll = inner.scanAll?.bind(inner);
  const store: EventStore & IdempotencyKeys = {
    identity: () => inner.identity(),
    appendToStream: (streamId, events, expected, options) =>
      inner.appendToStream(streamId, events.map(stamped), expected, options),
    readStream: async (streamId, range) => (await inner.readStream(streamId, range)).map(currentOf),
    readLastEvent: async (streamId) => {
      const event = await inner.readLastEvent(streamId);
      return event && currentOf(event);
    },
    readAll: async (from, maxCount, types) => (await inner.readAll(from, maxCount, types)).map(currentOf),
    ...(scanAll && {
      scanAll: async (...args: Parameters<typeof scanAll>) => {
        const scanned = await scanAll(...args);
        return { events: scanned.events.map(currentOf), scannedTo: scanned.scannedTo };
      },
    }),
    headPosition: () => inner.headPosition(),
    subscribeToAll: (from, onEvent, onError) =>
      inner.subscribeToAll(from, (event) => onEvent(currentOf(event)), onError),
    ping: () => inner.ping(),
    close: () => inner.close(),
    readIdempotencyKey: (ref, now) => inner.readIdempotencyKey(ref, now),
    claimIdempotencyKey: (claim, record, replacing) => inner.claimIdempotencyKey(claim, record, replacing),
    completeIdempotencyKey: (claim, answer) => inner.completeIdempotencyKey(claim, answer),
    releaseIdempotencyKey: (claim) => inner.releaseIdempotencyKey(claim),
  };
  if (!hasLogIntegrity(inner)) return store;
  return {
    ...store,
    integrityHead: () => inner.integrityHead(),
    verifyIntegrity: () => inner.verifyIntegrity(),
    hashAt: (position) => inner.hashAt(position),
  };
}

/** The event stamped with its type's current version. */
const stampedIn =
  (catalog: EventCatalog) =>
  (event: NewEvent): NewEvent => ({
    ...event,
    metadata: { ...event.metadata, [SCHEMA_VERSION]: currentVersionOf(catalog, event.type) } as EventMetadata,
  });

/** The event as the current code knows it. */
export const currentIn =
  (catalog: EventCatalog) =>
  (event: RecordedEvent): RecordedEvent => {
    const stored = event.metadata as EventMetadata & { readonly [SCHEMA_VERSION]?: unknown };
    if (stored[SCHEMA_VERSION] === undefined) {
      const data = upcastData(catalog, event.type, event.data, 1);
      return data === event.data ? event : { ...event, data };
    }
    const { [SCHEMA_VERSION]: _version, ...metadata } = stored;
    return { ...event, data: upcastData(catalog, event.type, event.data, storedVersionOf(stored)), metadata };
  };

import type { EventMetadata } from '../domain/event';
import type { IdempotencyClaim } from './idempotency-keys';

/** The expected state of a stream at append time: optimistic concurrency. */
export type ExpectedRevision =
  | 'no_stream' // the stream must not exist yet
  | 'any' // no check
  | bigint; // the revision of the stream's last event (0-based)

export type NewEvent = {
  readonly type: string;
  readonly data: unknown;
  readonly metadata: EventMetadata;
};

export type RecordedEvent = {
  readonly streamId: string;
  readonly type: string;
  readonly data: unknown;
  readonly metadata: EventMetadata;
  /** 0-based position of the event inside its stream. */
  readonly revision: bigint;
  /** Global, strictly increasing position across all streams. */
  readonly position: bigint;
};

/**
 * `idempotency`: the append is the work of the attempt holding this claim (src/api/idempotency.ts).
 * It is refused (IdempotencyClaimLostError) when the claim was taken over, and the claim's first
 * write is recorded in the append's own transaction.
 */
export type AppendOptions = { readonly idempotency?: IdempotencyClaim };

/**
 * Where a write landed: the global position of its last event and, when it appended to one stream,
 * that stream and the revision of its first event (what a reaction folds the state before it up to).
 */
export type Write = {
  readonly position: bigint;
  readonly stream?: { readonly id: string; readonly firstRevision: bigint };
};

export type AppendResult = {
  /** Revision of the last appended event. */
  readonly nextExpectedRevision: bigint;
  /** Global position of the last appended event. */
  readonly position: bigint;
};

/**
 * A tool that reads a log was pointed where none is (a mistyped DATA_DIR or schema): it stops
 * there, where opening would have made a new, empty log and answered about it.
 */
export class NoEventLogError extends Error {
  constructor(readonly where: string) {
    super(`no event log at ${where}: is it the service's? nothing was read or written`);
    this.name = 'NoEventLogError';
  }
}

/** Raised when the stream's revision is not the expected one; the command layer retries. */
export class WrongExpectedRevisionError extends Error {
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedRevision,
    readonly actual: bigint | 'no_stream',
  ) {
    super(`stream ${streamId}: expected revision ${String(expected)}, actual ${String(actual)}`);
    this.name = 'WrongExpectedRevisionError';
  }
}

/**
 * Raised when an event's data or metadata cannot be stored as JSON (a bigint, a cycle): nothing
 * of the append is stored.
 */
export class UnstorableEventError extends Error {
  constructor(
    readonly streamId: string,
    readonly eventType: string,
    options: { cause: unknown },
  ) {
    super(`stream ${streamId}: event ${eventType} cannot be stored as JSON`, options);
    this.name = 'UnstorableEventError';
  }
}

/** The JSON text of an event's data or metadata, or UnstorableEventError when it has none. */
export function storableJson(value: unknown, streamId: string, eventType: string): string {
  try {
    return JSON.stringify(value ?? null);
  } catch (error) {
    throw new UnstorableEventError(streamId, eventType, { cause: error });
  }
}

/**
 * The most one append may store, in bytes: the UTF-8 JSON of every event's data and metadata plus
 * its type, summed. Every adapter refuses more (AppendTooLargeError) before storing anything, the
 * embedded one too, so that what a deployment accepts does not depend on its store: EventStoreDB
 * refuses an append over its `MaxAppendSize` (1 MiB by default), which counts each event's
 * envelope (id, content type) besides; the 124 KiB left under it covers the envelopes of the
 * largest batch any route appends (1000 directory events).
 */
export const MAX_APPEND_BYTES = 900 * 1024;

/** Raised when an append would store more than MAX_APPEND_BYTES: nothing of it is stored. */
export class AppendTooLargeError extends Error {
  constructor(
    readonly streamId: string,
    readonly bytes: number,
    readonly maxBytes: number,
  ) {
    super(`stream ${streamId}: an append of ${bytes} bytes is over the limit of ${maxBytes}`);
    this.name = 'AppendTooLargeError';
  }
}

/**
 * Each event's data and metadata as JSON text (UnstorableEventError when one has none), after
 * checking that together they fit in one append (AppendTooLargeError): what every adapter stores.
 */
export function storableEvents(
  streamId: string,
  events: readonly NewEvent[],
): { readonly data: string; readonly metadata: string }[] {
  let bytes = 0;
  const texts = events.map((event) => {
    const data = storableJson(event.data, streamId, event.type);
    const metadata = storableJson(event.metadata, streamId, event.type);
    bytes += Buffer.byteLength(data) + Buffer.byteLength(metadata) + Buffer.byteLength(event.type);
    return { data, metadata };
  });
  if (bytes > MAX_APPEND_BYTES) throw new AppendTooLargeError(streamId, bytes, MAX_APPEND_BYTES);
  return texts;
}

export type Subscription = { close(): Promise<void> };

/** What `scanAll` answers: the events found, and how far the log was looked through. */
export type ScannedEvents = { readonly events: RecordedEvent[]; readonly scannedTo: bigint | undefined };

/** A page of a stream: from this revision on (inclusive), at most this many events. */
export type StreamRange = { readonly fromRevision: bigint; readonly maxCount: number };

/**
 * The event store port. Appends of several events are atomic: all are stored or none.
 * Positions passed to readAll/subscribeToAll are exclusive: `from` is the last position
 * already seen, or undefined to start at the beginning.
 */
export interface EventStore {
  /**
   * Which log this is: an id written once into the log itself when it was first used
   * (`sqlite:<hex>` in the file's meta table, `esdb:<uuid>` in the stream `log-identity`), never
   * derived from where the log is reached. Positions mean nothing in another log, so a read
   * model's checkpoint records it (src/projections/event-log-identity.ts): a renamed host keeps
   * it, a recreated empty log gets a new one. Every caller gets the same id, however many race.
   */
  identity(): Promise<string>;
  appendToStream(
    streamId: string,
    events: readonly NewEvent[],
    expected: ExpectedRevision,
    options?: AppendOptions,
  ): Promise<AppendResult>;
  /**
   * Every event of one stream, oldest first; [] when the stream does not exist. With `range`, only
   * those from revision `fromRevision` on, at most `maxCount`: a long stream (the directory's) read
   * a page at a time.
   */
  readStream(streamId: string, range?: StreamRange): Promise<RecordedEvent[]>;
  /** The last event of a stream, or undefined when the stream does not exist. */
  readLastEvent(streamId: string): Promise<RecordedEvent | undefined>;
  /**
   * The global position of the newest event in the log (a system event's, on EventStoreDB), or undefined when
   * empty.
   */
  headPosition(): Promise<bigint | undefined>;
  /**
   * User events of all streams after `from`, oldest first, at most `maxCount`; only those whose
   * type is in `types`, when given. Fewer than `maxCount` only at the end of the log.
   */
  readAll(from: bigint | undefined, maxCount: number, types?: ReadonlySet<string>): Promise<RecordedEvent[]>;
  /**
   * `readAll` of `types`, filtered by the store itself (EventStoreDB: on the server), answering
   * besides the events how far it looked: no event of `types` lies between the last one answered
   * and `scannedTo`. A rare type is then not looked for again from its last event on every
   * catch-up, and a scan of millions of events that finds nothing moves the checkpoint as it goes:
   * `scanning` is awaited with each position passed while nothing has been found yet (a caller
   * stores it, and may throw to stop the scan: a lease lost). Offered where it saves reading.
   */
  scanAll?(
    from: bigint | undefined,
    maxCount: number,
    types: ReadonlySet<string>,
    scanning?: (position: bigint) => Promise<void>,
  ): Promise<ScannedEvents>;
  /**
   * Catch-up subscription: every user event after `from`, in global order, then live ones.
   * `onEvent` is awaited before the next event is delivered. `onError` is called once if the
   * subscription dies.
   */
  subscribeToAll(
    from: bigint | undefined,
    onEvent: (event: RecordedEvent) => Promise<void>,
    onError?: (error: unknown) => void,
  ): Subscription;
  /** Throws when the store cannot be reached. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

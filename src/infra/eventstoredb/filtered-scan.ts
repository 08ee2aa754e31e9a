import type { AllStreamResolvedEvent, Position } from '@eventstore/db-client';

/**
 * A catch-up of some event types over $all, filtered by EventStoreDB itself: a subscription with
 * an event-type filter, which sends only the events of those types and, every `checkpointInterval`
 * windows of events it looked through, a checkpoint (`checkpointReached`). The client's `readAll`
 * takes no filter (@eventstore/db-client 6.2.1), so without this every event of the log crosses
 * the wire and is parsed to find a rare type. Kept apart from the client's construction so that a
 * test drives it with a fake subscription.
 */

/** The part of the client's AllStreamSubscription used here. */
export type ScanSubscription = AsyncIterable<AllStreamResolvedEvent> & {
  /** Events received and not yet read (a Readable's buffer). */
  readonly readableLength: number;
  on(event: 'caughtUp', listener: () => void): unknown;
  unsubscribe(): Promise<void>;
};

/** A regex that matches exactly these event types: what eventTypeFilter takes. */
export function exactTypes(types: ReadonlySet<string>): string {
  const escaped = [...types].sort().map((type) => type.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return `^(?:${escaped.join('|')})$`;
}

/**
 * How far a checkpoint says the scan got: the position the server names, as it names it. It is
 * the position of a record the server has looked through (the last event it sent, or the start of
 * the page of the log it passed: kurrent-io/KurrentDB Enumerator.AllSubscriptionFiltered.cs), so
 * a later read or subscription can start there; the port's positions are exclusive starting points,
 * as the server's subscriptions are, and nothing is skipped or seen twice. Any other number (one
 * byte before it, say) is not where a record starts, and the server refuses every read and
 * subscription from it (InvalidPosition).
 */
export const checkpointPosition = (checkpoint: Position): bigint => checkpoint.commit;

export type ScanOptions<E> = {
  /** Events after this position only (exclusive); undefined: from the start. */
  readonly from: bigint | undefined;
  readonly maxCount: number;
  /** The newest position of the log when the scan began: the scan ends once it has passed it. */
  readonly head: bigint;
  /** An event of the subscription as the port's event, or undefined to skip it (a system event). */
  readonly accept: (resolved: AllStreamResolvedEvent) => E | undefined;
  /** Awaited for each checkpoint passed while nothing has been found yet. */
  readonly scanning?: (position: bigint) => Promise<void>;
  /** Ends a scan that hears nothing (no event, no checkpoint) for this long: a server that never says it caught up. */
  readonly quietMs: number;
};

export type ScanResult<E> = {
  readonly events: E[];
  readonly scannedTo: bigint | undefined;
  /** False when the scan ended because the server went quiet: the caller finds the rest by other means. */
  readonly complete: boolean;
};

/** What `checkpointReached` is told, for the subscription being scanned. */
export type CheckpointListener = (position: Position) => Promise<void>;

/**
 * Runs the scan over `subscribe(onCheckpoint)`'s subscription: gathers up to `maxCount` events,
 * follows the checkpoints, and ends at `maxCount`, at the head, when the server says it caught
 * up, or when it goes quiet; the subscription is always unsubscribed.
 */
export async function scanFiltered<E extends { position: bigint }>(
  subscribe: (onCheckpoint: CheckpointListener) => ScanSubscription,
  options: ScanOptions<E>,
): Promise<ScanResult<E>> {
  const events: E[] = [];
  let scannedTo = options.from;
  let done = false;
  let quiet = false;
  let wake: () => void = () => undefined;
  const ended = new Promise<void>((resolve) => (wake = resolve));
  const finish = () => {
    done = true;
    wake();
  };
  let timer: NodeJS.Timeout | undefined;
  const heard = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      quiet = true;
      finish();
    }, options.quietMs);
  };
  let failure: { error: unknown } | undefined;
  /**
   * The client pushes an event into the subscription's buffer and goes on to the next message: a
   * checkpoint (or caught-up) after it may be heard before the event is read here. What they say
   * counts only once every event sent before them has been read.
   */
  const drained = async () => {
    while (!done && subscription.readableLength > 0) await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
  };
  const subscription = subscribe(async (checkpoint) => {
    if (done) return;
    heard();
    await drained();
    if (done) return;
    const named = checkpointPosition(checkpoint);
    // Past the head the scan began with, the scan is over: it answers the head, where an event
    // starts. A checkpoint past the head names a record appended during the scan or, on servers
    // before kurrent-io/KurrentDB#4975, the end of the log, where the next event is written and
    // a start after it would skip that event.
    const passed = named >= options.head ? options.head : named;
    if (scannedTo === undefined || passed > scannedTo) scannedTo = passed;
    try {
      if (events.length === 0 && options.scanning) await options.scanning(passed);
    } catch (error) {
      // Thrown out of checkpointReached it would stall the client's stream: it ends the scan here.
      failure = { error };
      finish();
      return;
    }
    if (named >= options.head) finish();
  });
  // Caught up: every event of these types up to the head has been sent, once read the scan has passed the head.
  subscription.on('caughtUp', () => {
    void drained().then(() => {
      if (done) return;
      if (scannedTo === undefined || options.head > scannedTo) scannedTo = options.head;
      finish();
    });
  });
  heard();
  const reading = (async () => {
    for await (const resolved of subscription) {
      if (done) return;
      heard();
      const event = options.accept(resolved);
      if (!event) continue;
      if (options.from !== undefined && event.position <= options.from) continue;
      events.push(event);
      scannedTo = event.position;
      if (events.length >= options.maxCount || event.position >= options.head) return;
    }
  })();
  try {
    await Promise.race([reading, ended]);
  } finally {
    done = true;
    clearTimeout(timer);
    // Left while still reading: the unsubscription may end that read with an error nobody wants.
    reading.catch(() => undefined);
    await subscription.unsubscribe().catch(() => undefined);
  }
  if (failure) throw failure.error;
  return { events, scannedTo, complete: !quiet };
}

import type { RecordedEvent, Subscription } from '../ports/event-store';

export type PollingSubscriptionOptions = {
  readonly from: bigint | undefined;
  /** Events after `after`, oldest first, at most pageSize of them. */
  readonly read: (after: bigint | undefined) => RecordedEvent[] | Promise<RecordedEvent[]>;
  readonly pageSize: number;
  readonly pollIntervalMs: number;
  /** Registers a callback run when new events are known to exist; returns its removal. */
  readonly listen: (wake: () => void) => () => void;
  readonly onEvent: (event: RecordedEvent) => Promise<void>;
  readonly onError: ((error: unknown) => void) | undefined;
  readonly onClosed?: () => void;
};

/**
 * A catch-up subscription over a store that can only be read: it pages through history, then
 * sleeps until woken or until the poll interval passes. close() returns at once: an onEvent
 * already running finishes on its own, but none starts afterwards. Waiting for it instead would
 * deadlock a handler that closes its own subscription.
 */
export function pollingSubscription(options: PollingSubscriptionOptions): Subscription {
  let closed = false;
  // Set by wake(); a wake-up that lands while a page is being delivered must not be slept through.
  let woken = false;
  let interruptSleep: (() => void) | undefined;

  const unlisten = options.listen(() => {
    woken = true;
    interruptSleep?.();
  });

  const sleep = () =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        interruptSleep = undefined;
        resolve();
      };
      const timer = setTimeout(done, options.pollIntervalMs);
      interruptSleep = done;
    });

  const stop = () => {
    if (closed) return;
    closed = true;
    unlisten();
    interruptSleep?.();
    options.onClosed?.();
  };

  const run = async () => {
    let cursor = options.from;
    while (!closed) {
      woken = false;
      const page = await options.read(cursor);
      for (const event of page) {
        if (closed) return;
        await options.onEvent(event);
        cursor = event.position;
      }
      if (page.length < options.pageSize && !woken && !closed) await sleep();
    }
  };

  run().catch((error: unknown) => {
    if (closed) return;
    stop();
    // Without an onError nobody would learn that delivery stopped: let it surface as an unhandled rejection.
    if (!options.onError) throw error;
    options.onError(error);
  });

  return {
    close: async () => stop(),
  };
}

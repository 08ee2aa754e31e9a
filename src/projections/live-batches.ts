import type { RecordedEvent } from '../ports/event-store';

/**
 * A live subscription hands events over one at a time and waits for each; committing each in a
 * transaction of its own costs a round trip or more per event on a networked database (a
 * directory batch of 500 events took 1.3 s to show on PostgreSQL, against 60 ms as one
 * transaction). Here an event is queued and handed back at once, and the queue is committed in
 * order, everything that arrived during one commit going into the next. The queue holds at most
 * `max` events: past it, the subscription waits for the commits to catch up.
 *
 * A commit that fails ends the batches: `failed` is told once (the runner resubscribes from its
 * checkpoint, as when the subscription drops) and what was queued is forgotten, to be read again.
 */
export class LiveBatches {
  private queue: RecordedEvent[] = [];
  private draining: Promise<void> | undefined;
  private stopped = false;
  /** The last event queued: one delivered again (a subscription may, after a reconnect) is queued once. */
  private last: bigint | undefined;

  constructor(
    private readonly commit: (events: readonly RecordedEvent[]) => Promise<void>,
    private readonly failed: (error: unknown) => void,
    private readonly max: number,
  ) {}

  async add(event: RecordedEvent): Promise<void> {
    if (this.stopped || (this.last !== undefined && event.position <= this.last)) return;
    this.last = event.position;
    this.queue.push(event);
    this.draining ??= this.drain();
    if (this.queue.length >= this.max) await this.draining;
  }

  /** No more commits: those queued are dropped; one under way finishes on its own. */
  stop(): void {
    this.stopped = true;
    this.queue = [];
  }

  private async drain(): Promise<void> {
    try {
      // Let the subscription hand over the page it already holds before the first commit.
      await new Promise<void>((resolve) => setImmediate(resolve));
      while (this.queue.length > 0 && !this.stopped) {
        const events = this.queue;
        this.queue = [];
        await this.commit(events);
      }
    } catch (error) {
      if (!this.stopped) {
        this.stop();
        this.failed(error);
      }
    } finally {
      this.draining = undefined;
    }
  }
}

import type { RecordedEvent } from '../../ports/event-store';
import { KeptEvents } from './kept-events';

type Read = (after: bigint, max: number) => Promise<RecordedEvent[]>;

/**
 * The live subscriptions of one process share their reads of the PostgreSQL log: each read model
 * follows the log with a subscription of its own, and every append woke them all at once, each
 * reading the same new rows on the store's pool (ten reads of the log per save, counted in the
 * server's statement log), queued behind the requests' own reads. Here the first woken reads what
 * follows the kept range, and the others wait for that read and take their events from memory.
 *
 * A wake-up names the log's head where it knows it (this process's commit, a notification's
 * payload): a reader whose kept range already reaches it takes its events from memory without a
 * read, and the notification of a commit this process already told of wakes nobody. A reader
 * waits only for a read that began after the last wake-up it could know of (`committed`, told
 * before the subscriptions are woken), so no wake-up is answered by a read that could not see its
 * commit. A wake-up that names no head (the notifications' connection lost or made again), and a
 * poll once `pollIntervalMs` has passed since the last read began, read in any case: they are how
 * another process's commits are found while notifications may have been missed. A reader behind
 * the kept range (a catch-up) reads the log alone.
 */
export class SharedLogReads {
  private readonly kept = new KeptEvents();
  /** Wake-ups told so far: a read begun after the n-th sees the commits of the first n. */
  private wakes = 0;
  /** The highest position a wake-up named: every event up to it is committed. */
  private head = -1n;
  /** The wake-up count at the last wake-up that named no head (-1: none yet). */
  private unnamedAt = -1;
  /** When the last read of what follows the kept range began, and the wake-ups told by then. */
  private lastRead: { readonly at: number; readonly asOf: number } = { at: Number.NEGATIVE_INFINITY, asOf: -1 };
  /** The read of what follows the kept range under way, and the wake-ups told when it began. */
  private reading: { readonly at: number; readonly asOf: number; readonly done: Promise<void> } | undefined;

  constructor(private readonly pollIntervalMs: number) {}

  /**
   * Commits were made visible (this process's, or another's heard by LISTEN): told before waking
   * the readers, with the log's head after them where it is known. Returns false where the head
   * was known already, so nobody needs waking.
   */
  committed(head?: bigint): boolean {
    if (head !== undefined) {
      if (head <= this.head) return false;
      this.head = head;
    } else {
      this.unnamedAt = this.wakes + 1;
    }
    this.wakes += 1;
    return true;
  }

  /** Up to `max` events after `after`, oldest first, as `read` would answer. */
  async after(after: bigint, max: number, read: Read): Promise<RecordedEvent[]> {
    const known = this.wakes;
    if (this.kept.empty || after > this.kept.end) {
      const page = await read(after, max);
      if (this.kept.empty || after > this.kept.end) this.kept.reset(after, page);
      return page;
    }
    if (after < this.kept.start) return read(after, max);
    const kept = this.kept.slice(after, max);
    if (kept.length === max || !this.behind()) return kept;
    await this.readNewer(known, max, read);
    // Trimmed past `after` meanwhile (a long page of others' appends): this reader reads alone.
    return this.kept.holds(after) ? this.kept.slice(after, max) : read(after, max);
  }

  /** Whether the log may hold events past the kept range that a read must fetch. */
  private behind(): boolean {
    return (
      this.head > this.kept.end ||
      this.unnamedAt > this.lastRead.asOf ||
      performance.now() - this.lastRead.at >= this.pollIntervalMs
    );
  }

  private async readNewer(known: number, max: number, read: Read): Promise<void> {
    for (;;) {
      const running = this.reading;
      if (running && running.asOf >= known) return running.done;
      if (running) {
        await running.done.catch(() => undefined);
        continue;
      }
      const from = this.kept.end;
      const reading = {
        at: performance.now(),
        asOf: this.wakes,
        done: read(from, max).then((newer) => {
          // Only onto the range it was read after: a reader ahead of the range may have reset it.
          if (this.kept.end === from) this.kept.extend(newer);
        }),
      };
      this.reading = reading;
      this.lastRead = reading;
      const clear = () => {
        if (this.reading === reading) this.reading = undefined;
      };
      reading.done.then(clear, clear);
      return reading.done;
    }
  }
}

import type { RecordedEvent } from '../../ports/event-store';
import { KeptEvents } from '../kept-events';

type Read = (after: bigint, max: number) => Promise<RecordedEvent[]>;

/**
 * The live subscriptions of one process share their reads of the PostgreSQL log: each read model
 * follows the log with a subscription of its own, and every append woke them all at once, each
 * reading the same new rows on the store's pool (ten reads of the log per save, counted in the
 * server's statement log), queued behind the requests' own reads. Here the first woken reads what
 * follows the kept range, and the others wait for that read and take their events from memory.
 *
 * A reader waits only for a read that began after the last commit it could know of (`committed`,
 * told before the subscriptions are woken), so no wake-up is answered by a read that could not
 * see its commit. A reader behind the kept range (a catch-up) reads the log alone.
 */
export class SharedLogReads {
  private readonly kept = new KeptEvents();
  /** Commits told so far: a read made after the n-th sees the events of the first n. */
  private commits = 0;
  /** The read of what follows the kept range under way, and the commits told when it began. */
  private reading: { readonly asOf: number; readonly done: Promise<void> } | undefined;

  /** An append committed (this process's, or another's seen by LISTEN): told before waking the readers. */
  committed(): void {
    this.commits += 1;
  }

  /** Up to `max` events after `after`, oldest first, as `read` would answer. */
  async after(after: bigint, max: number, read: Read): Promise<RecordedEvent[]> {
    const known = this.commits;
    if (this.kept.empty || after > this.kept.end) {
      const page = await read(after, max);
      if (this.kept.empty || after > this.kept.end) this.kept.reset(after, page);
      return page;
    }
    if (after < this.kept.start) return read(after, max);
    const kept = this.kept.slice(after, max);
    if (kept.length === max) return kept;
    await this.readNewer(known, max, read);
    // Trimmed past `after` meanwhile (a long page of others' appends): this reader reads alone.
    return this.kept.holds(after) ? this.kept.slice(after, max) : read(after, max);
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
        asOf: this.commits,
        done: read(from, max).then((newer) => {
          // Only onto the range it was read after: a reader ahead of the range may have reset it.
          if (this.kept.end === from) this.kept.extend(newer);
        }),
      };
      this.reading = reading;
      const clear = () => {
        if (this.reading === reading) this.reading = undefined;
      };
      reading.done.then(clear, clear);
      return reading.done;
    }
  }
}

import type { RecordedEvent } from '../../ports/event-store';
import { KeptEvents } from '../kept-events';

/**
 * The log's newest events as this process last read them, for its live subscriptions: each read
 * model follows the log with a subscription of its own, so every commit woke five of them and each
 * read and parsed the same new rows (15 reads of the log per save, measured). The first to read
 * asks SQLite; the others find the events here, parsed once.
 *
 * Holds every event with `start < position <= end`, in order: a read of the log sees every event up
 * to the last one it returns and none after it that could later appear below it (the log has one
 * writer at a time and positions only grow), so what it returned is the whole log over that range.
 * Events are never changed once stored, so keeping them cannot go stale; only the range grows.
 */
export class RecentEvents {
  private readonly kept = new KeptEvents();
  /**
   * When the last read of the log reached its end (found fewer events than it asked for), with no
   * commit told since (`committed`); null otherwise. Until a commit, or until `freshForMs` has
   * passed, the range holds the whole log: the readers after the first take what is kept without
   * asking SQLite for anything newer (each of five read models asked again after every save:
   * ten reads of the log per save, counted; docs/benchmarks.md "What the figures decided").
   */
  private reachedEndAt: number | null = null;

  /**
   * `freshForMs`: how long a read that reached the log's end stands without a commit told, as long
   * as a subscription's poll: the same safety net as polling, should a commit ever go untold.
   */
  constructor(
    private readonly freshForMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * A commit may have added events past what is kept: this process's, or another connection's
   * seen by the watch of other writers. Told before the subscriptions are woken.
   */
  committed(): void {
    this.reachedEndAt = null;
  }

  /**
   * Up to `max` events after `after`: from memory where the range holds them, then from `read`
   * for what is newer than the range (kept for the next reader) unless the last read reached the
   * log's end and nothing was committed since; a reader behind the range (a catch-up) reads the
   * log alone and leaves the range as it is.
   */
  after(after: bigint, max: number, read: (after: bigint, max: number) => RecordedEvent[]): RecordedEvent[] {
    if (this.kept.empty || after > this.kept.end) {
      const asked = this.now();
      const page = read(after, max);
      this.kept.reset(after, page);
      this.reachedEndAt = page.length < max ? asked : null;
      return page;
    }
    if (after < this.kept.start) return read(after, max);
    const kept = this.kept.slice(after, max);
    if (kept.length === max) return kept;
    const asked = this.now();
    if (this.reachedEndAt !== null && asked - this.reachedEndAt < this.freshForMs) return kept;
    const newer = read(this.kept.end, max - kept.length);
    this.kept.extend(newer);
    this.reachedEndAt = newer.length < max - kept.length ? asked : null;
    return kept.concat(newer);
  }
}

import type { RecordedEvent } from '../../ports/event-store';

/** How many of the newest events are kept for the live subscriptions. */
const KEPT = 2048;

/**
 * The log's newest events as a process last read them, every event with `start < position <= end`
 * in order: what its live subscriptions share instead of each reading the same new rows. A read of
 * the log sees every event up to the last one it returns and none after it that could later appear
 * below it (positions are given in commit order, without holes, on every store that keeps one), so
 * a page read after `end` extends the range exactly. Events never change once stored: keeping them
 * cannot go stale; only the range moves.
 */
export class KeptEvents {
  private events: RecordedEvent[] = [];
  private first = -1n;
  private last = -1n;

  /** Nothing kept yet. */
  get empty(): boolean {
    return this.first < 0n;
  }

  get start(): bigint {
    return this.first;
  }

  get end(): bigint {
    return this.last;
  }

  /** Whether the events after `after` up to `end` are all here. */
  holds(after: bigint): boolean {
    return !this.empty && after >= this.first && after <= this.last;
  }

  /** Up to `max` kept events after `after` (which `holds`). */
  slice(after: bigint, max: number): RecordedEvent[] {
    const from = this.indexAfter(after);
    return this.events.slice(from, from + max);
  }

  /** The range starts again with a page read after `after`. */
  reset(after: bigint, page: readonly RecordedEvent[]): void {
    // A copy: the page goes to its reader, who walks it while later reads extend what is kept.
    this.events = [...page];
    this.first = after;
    this.last = page.at(-1)?.position ?? after;
    this.trim();
  }

  /** Events read after `end`, appended. */
  extend(newer: readonly RecordedEvent[]): void {
    const last = newer.at(-1);
    if (!last) return;
    this.events.push(...newer);
    this.last = last.position;
    this.trim();
  }

  private trim(): void {
    const over = this.events.length - KEPT;
    if (over <= 0) return;
    this.first = (this.events[over - 1] as RecordedEvent).position;
    this.events = this.events.slice(over);
  }

  /** The index of the first kept event after `position` (binary search: positions grow). */
  private indexAfter(position: bigint): number {
    let low = 0;
    let high = this.events.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((this.events[middle] as RecordedEvent).position <= position) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}

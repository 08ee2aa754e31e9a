const BUCKET_MS = 1000;
const BUCKETS = 60;

/**
 * Events counted into one-second buckets over the last minute: a rate an operator reads (the
 * console) without the runner keeping one timestamp per event, whatever the throughput.
 */
export class EventRate {
  private readonly counts = new Array<number>(BUCKETS).fill(0);
  /** The second (ms / BUCKET_MS) each bucket counts; a bucket of an older second is stale. */
  private readonly seconds = new Array<number>(BUCKETS).fill(-1);

  constructor(private readonly now: () => number = Date.now) {}

  add(events: number): void {
    if (events <= 0) return;
    const second = Math.floor(this.now() / BUCKET_MS);
    const slot = second % BUCKETS;
    if (this.seconds[slot] !== second) {
      this.seconds[slot] = second;
      this.counts[slot] = 0;
    }
    this.counts[slot] = (this.counts[slot] ?? 0) + events;
  }

  /** Events per second over the last minute (the current second included). */
  perSecond(): number {
    const second = Math.floor(this.now() / BUCKET_MS);
    let total = 0;
    for (let slot = 0; slot < BUCKETS; slot++) {
      const at = this.seconds[slot] ?? -1;
      if (at > second - BUCKETS && at <= second) total += this.counts[slot] ?? 0;
    }
    return total / BUCKETS;
  }
}

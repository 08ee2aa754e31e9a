const FIRST_DELAY_MS = 250;
const MAX_DELAY_MS = 30_000;

/** Resubscribing after a dropped subscription: the delay doubles with each failure in a row, up to a cap. */
export class ResubscribeBackoff {
  private attempts = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly firstDelayMs = FIRST_DELAY_MS,
    private readonly maxDelayMs = MAX_DELAY_MS,
  ) {}

  /** The delay the next `schedule` would wait, counted as an attempt: for a caller that keeps its own timer. */
  next(): number {
    return Math.min(this.maxDelayMs, this.firstDelayMs * 2 ** this.attempts++);
  }

  /** Runs `retry` after the next delay, and says how long that is. */
  schedule(retry: () => void): number {
    const delay = this.next();
    this.timer = setTimeout(retry, delay);
    this.timer.unref();
    return delay;
  }

  /** An event got through: the next drop starts from the shortest delay again. */
  succeeded(): void {
    this.attempts = 0;
  }

  cancel(): void {
    clearTimeout(this.timer);
  }
}

const FIRST_DELAY_MS = 250;
const MAX_DELAY_MS = 30_000;

/** Resubscribing after a dropped subscription: the delay doubles with each failure in a row, up to a cap. */
export class ResubscribeBackoff {
  private attempts = 0;
  private timer: NodeJS.Timeout | undefined;

  /** Runs `retry` after the next delay, and says how long that is. */
  schedule(retry: () => void): number {
    const delay = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** this.attempts++);
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

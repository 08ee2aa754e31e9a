import type { SecretHasher } from '../ports/secret-hasher';

/** No verification slot came free within the wait: the caller should answer 503 with Retry-After. */
export class VerifierBusy extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super('every API key verification slot is busy');
    this.name = 'VerifierBusy';
  }
}

/**
 * Beyond this many waiting, a verification is refused at once: a queue that long would not drain within the
 * wait anyway.
 */
const MAX_WAITING = 1000;

type Waiter = { readonly start: () => void; readonly timer: NodeJS.Timeout | undefined };

/**
 * argon2 verifications under a bound on how many run at once in this process: each takes about
 * 19 MiB and a thread for tens of milliseconds, so a burst of first uses or of wrong secrets cannot
 * take every core. A verification that finds every slot taken waits up to `waitMs` (first come,
 * first served), then is refused with VerifierBusy. `onRun` is told of every argon2 run and of every
 * refusal (a metric).
 */
export class BoundedVerifier {
  private running = 0;
  private readonly waiting: Waiter[] = [];

  constructor(
    private readonly hasher: SecretHasher,
    private readonly options: {
      readonly concurrency: number;
      readonly waitMs: number;
      readonly onRun?: (outcome: 'match' | 'mismatch' | 'busy') => void;
    },
  ) {
    if (!Number.isSafeInteger(options.concurrency) || options.concurrency < 1)
      throw new RangeError('concurrency must be a positive integer');
  }

  /** Whether `secret` matches `hash`; throws VerifierBusy when no slot came free in time. */
  async verify(hash: string, secret: string): Promise<boolean> {
    await this.acquire();
    try {
      const matched = await this.hasher.verify(hash, secret);
      this.options.onRun?.(matched ? 'match' : 'mismatch');
      return matched;
    } finally {
      this.release();
    }
  }

  private acquire(): Promise<void> {
    if (this.running < this.options.concurrency) {
      this.running++;
      return Promise.resolve();
    }
    if (this.options.waitMs === 0 || this.waiting.length >= MAX_WAITING) return this.busy();
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        // The slot passes straight from the releasing verification to this one: `running` is unchanged.
        start: () => {
          if (waiter.timer) clearTimeout(waiter.timer);
          resolve();
        },
        timer: setTimeout(() => {
          const at = this.waiting.indexOf(waiter);
          if (at >= 0) this.waiting.splice(at, 1);
          this.busy().catch(reject);
        }, this.options.waitMs),
      };
      this.waiting.push(waiter);
    });
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next.start();
    else this.running--;
  }

  private busy(): Promise<never> {
    this.options.onRun?.('busy');
    return Promise.reject(new VerifierBusy(Math.max(1, Math.ceil(this.options.waitMs / 1000))));
  }
}

import type { Logger } from '../../observability/logger';
import type { Cache, RateLimitDecision, RateLimitPolicy, RateLimiter } from '../../ports/cache';
import { MemoryCache } from '../memory/memory-cache';

/**
 * The Redis-down policy (docs/api.md "API keys, in detail"): every call goes to the shared store (Redis) while it
 * answers. When a call fails, this process switches to its own in-memory cache and rate limits —
 * requests keep being served, each process on its own budget — and readiness reports
 * `cache: "degraded"`. A background ping every `retryMs` watches for the store; once it answers,
 * counting resumes there (from whatever state the store kept; the per-process counts of the
 * outage are not merged back).
 */
export class ResilientCache implements Cache, RateLimiter {
  private readonly fallback = new MemoryCache();
  private down = false;
  private nextProbeMs = 0;
  private probing = false;

  constructor(
    private readonly primary: Cache & RateLimiter,
    private readonly logger: Logger,
    private readonly retryMs = 1000,
  ) {}

  get degraded(): boolean {
    return this.down;
  }

  get(key: string): Promise<string | null> {
    return this.run((c) => c.get(key));
  }

  set(key: string, value: string, ttlSeconds: number): Promise<void> {
    return this.run((c) => c.set(key, value, ttlSeconds));
  }

  del(key: string): Promise<void> {
    return this.run((c) => c.del(key));
  }

  increment(key: string, ttlSeconds: number): Promise<number> {
    return this.run((c) => c.increment(key, ttlSeconds));
  }

  counts(keys: readonly string[]): Promise<number[]> {
    return this.run((c) => c.counts(keys));
  }

  consume(key: string, policy: RateLimitPolicy, nowMs: number): Promise<RateLimitDecision> {
    return this.run((c) => c.consume(key, policy, nowMs));
  }

  release(key: string, policy: RateLimitPolicy, nowMs: number): Promise<void> {
    return this.run((c) => c.release(key, policy, nowMs));
  }

  /** The shared store's own answer: readiness uses `health` to tell degraded from ok. */
  ping(): Promise<void> {
    return this.primary.ping();
  }

  async health(): Promise<'ok' | 'degraded'> {
    try {
      await this.primary.ping();
      this.markUp();
      return 'ok';
    } catch (error) {
      this.markDown(error);
      return 'degraded';
    }
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.primary.close(), this.fallback.close()]);
  }

  private async run<T>(op: (cache: Cache & RateLimiter) => Promise<T>): Promise<T> {
    if (this.down) {
      this.probe();
      return op(this.fallback);
    }
    try {
      return await op(this.primary);
    } catch (error) {
      // A bad argument fails the same way on the fallback: do not blame the store for it.
      if (error instanceof RangeError) throw error;
      this.markDown(error);
      return op(this.fallback);
    }
  }

  private probe(): void {
    if (this.probing || Date.now() < this.nextProbeMs) return;
    this.probing = true;
    this.primary
      .ping()
      .then(
        () => this.markUp(),
        () => {
          this.nextProbeMs = Date.now() + this.retryMs;
        },
      )
      .finally(() => {
        this.probing = false;
      });
  }

  private markDown(error: unknown): void {
    this.nextProbeMs = Date.now() + this.retryMs;
    if (this.down) return;
    this.down = true;
    this.logger.warn({ err: error }, 'cache unreachable: serving on per-process cache and rate limits');
  }

  private markUp(): void {
    if (!this.down) return;
    this.down = false;
    this.logger.warn('cache reachable again: rate limits counted in the shared store');
  }
}

import type { RateLimitDecision, RateLimitPolicy } from '../domain/rate-limit';

export type { RateLimitDecision, RateLimitPolicy } from '../domain/rate-limit';

/**
 * The cache port: short-lived string values shared by every API process (Redis in production),
 * e.g. verified API keys, so a request costs no argon2 and a revocation evicts on every node.
 * Cache keys and rate-limit keys live in separate namespaces: the same key string may be used by
 * both without clashing.
 */
export interface Cache {
  /** The value, or null when absent or expired. */
  get(key: string): Promise<string | null>;
  /** Stores the value for `ttlSeconds` (> 0, fractions allowed); throws a RangeError otherwise. */
  set(key: string, value: string, ttlSeconds: number): Promise<void>;
  /** Removes the value; removing an absent key is not an error. */
  del(key: string): Promise<void>;
  /**
   * Adds one to the counter `key` (absent: 0) and keeps it `ttlSeconds` from now; answers the new
   * count. Atomic across every process sharing the store. Counters share the cache's namespace:
   * `get` reads one as its decimal text.
   */
  increment(key: string, ttlSeconds: number): Promise<number>;
  /** The counters `keys`, in their order; 0 for an absent or expired one. */
  counts(keys: readonly string[]): Promise<number[]>;
  /** Resolves when the backing store answers; rejects otherwise. */
  ping(): Promise<void>;
  /** Adapters that keep serving from a fallback while their store is down say so here. */
  health?(): Promise<'ok' | 'degraded'>;
  close(): Promise<void>;
}

/**
 * Counts requests per key (e.g. per API key) and decides whether each may proceed; the rules are
 * in src/domain/rate-limit.ts. Atomic per key across every process sharing the store. The caller
 * passes the clock (`nowMs`, integer ms since the epoch) so decisions are reproducible; processes
 * sharing a store should have synchronised clocks.
 */
export interface RateLimiter {
  consume(key: string, policy: RateLimitPolicy, nowMs: number): Promise<RateLimitDecision>;
  /** Hands back one request `consume` admitted (releaseRateLimit), atomically like `consume`. */
  release(key: string, policy: RateLimitPolicy, nowMs: number): Promise<void>;
}

/** Throws a RangeError unless `ttlSeconds` is a positive, finite number. */
export function assertValidTtl(ttlSeconds: number): void {
  if (!Number.isFinite(ttlSeconds) || ttlSeconds <= 0) {
    throw new RangeError('cache: ttlSeconds must be a positive number');
  }
}

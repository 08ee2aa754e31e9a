import type { RateLimitState } from '../../domain/rate-limit';
import { consumeRateLimit, rateLimitStateExpiresAtMs, releaseRateLimit } from '../../domain/rate-limit';
import type { Cache, RateLimitDecision, RateLimitPolicy, RateLimiter } from '../../ports/cache';
import { assertValidTtl } from '../../ports/cache';

type Entry = { readonly value: string; readonly expiresAtMs: number };
type Limited = { readonly state: RateLimitState; readonly expiresAtMs: number };

/**
 * Expired entries are dropped lazily when read, plus a full sweep every this many writes, so keys
 * that are written once and never read again (e.g. one per client address) cannot pile up without
 * a timer that would keep the process alive.
 */
const SWEEP_EVERY_WRITES = 1000;

/** The embedded adapter: one process, state lost on exit — fine for a cache and rate counters. */
export class MemoryCache implements Cache, RateLimiter {
  private readonly entries = new Map<string, Entry>();
  private readonly limits = new Map<string, Limited>();
  private entryWrites = 0;
  private limitWrites = 0;

  async get(key: string): Promise<string | null> {
    const entry = this.entries.get(key);
    if (entry === undefined) return null;
    if (entry.expiresAtMs <= Date.now()) {
      this.entries.delete(key);
      return null;
    }
    return entry.value;
  }

  async set(key: string, value: string, ttlSeconds: number): Promise<void> {
    assertValidTtl(ttlSeconds);
    const nowMs = Date.now();
    this.entries.set(key, { value, expiresAtMs: nowMs + ttlSeconds * 1000 });
    if (++this.entryWrites % SWEEP_EVERY_WRITES === 0) {
      for (const [k, e] of this.entries) if (e.expiresAtMs <= nowMs) this.entries.delete(k);
    }
  }

  async del(key: string): Promise<void> {
    this.entries.delete(key);
  }

  // No await between read and write: the event loop makes each increment atomic.
  async increment(key: string, ttlSeconds: number): Promise<number> {
    const count = (await this.counts([key]))[0]! + 1;
    await this.set(key, String(count), ttlSeconds);
    return count;
  }

  async counts(keys: readonly string[]): Promise<number[]> {
    const nowMs = Date.now();
    return keys.map((key) => {
      const entry = this.entries.get(key);
      return entry === undefined || entry.expiresAtMs <= nowMs ? 0 : Number(entry.value) || 0;
    });
  }

  // No await between read and write: the event loop makes each consume atomic.
  async consume(key: string, policy: RateLimitPolicy, nowMs: number): Promise<RateLimitDecision> {
    const stored = this.limits.get(key);
    const previous = stored !== undefined && stored.expiresAtMs > nowMs ? stored.state : null;
    const { state, decision } = consumeRateLimit(previous, nowMs, policy);
    if (state !== previous) {
      this.limits.set(key, { state, expiresAtMs: rateLimitStateExpiresAtMs(state, policy) });
      if (++this.limitWrites % SWEEP_EVERY_WRITES === 0) {
        for (const [k, l] of this.limits) if (l.expiresAtMs <= nowMs) this.limits.delete(k);
      }
    }
    return decision;
  }

  async release(key: string, policy: RateLimitPolicy, nowMs: number): Promise<void> {
    const stored = this.limits.get(key);
    if (stored === undefined || stored.expiresAtMs <= nowMs) return;
    const state = releaseRateLimit(stored.state, nowMs, policy);
    if (state !== null && state !== stored.state) this.limits.set(key, { state, expiresAtMs: stored.expiresAtMs });
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    this.entries.clear();
    this.limits.clear();
  }
}

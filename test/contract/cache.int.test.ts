/**
 * The cache / rate-limit port contract, run against every adapter this machine can reach. Both
 * adapters must give identical decisions for the same requests: the scenarios below pin the
 * documented behaviour, and generated request histories compare each adapter with the pure rules.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { MaxRetriesPerRequestError } from 'ioredis/built/errors';
import type { RateLimitDecision, RateLimitPolicy, RateLimitState } from '../../src/domain/rate-limit';
import { consumeRateLimit } from '../../src/domain/rate-limit';
import type { Cache, RateLimiter } from '../../src/ports/cache';
import { MemoryCache } from '../../src/infra/memory/memory-cache';
import { RedisCache } from '../../src/infra/redis/redis-cache';
import { ResilientCache } from '../../src/infra/redis/resilient-cache';
import { createLogger } from '../../src/observability/logger';
import { describeExternal, externalTarget } from '../support/external';

type Subject = Cache & RateLimiter;

type Harness = {
  readonly subject: Subject;
  /** Other clients of the same store (other processes, in production); may include `subject`. */
  readonly peers: readonly Subject[];
  dispose(): Promise<void>;
};

const policy: RateLimitPolicy = {
  limit: 5,
  windowSeconds: 3600,
  baseLockoutSeconds: 60,
  maxLockoutSeconds: 480,
  violationMemorySeconds: 86_400,
};
const T0 = Date.UTC(2025, 0, 1, 12);

/** Reads until the value is gone; fails if it is still there after 10 s (ten times the TTL it waits for). */
async function waitUntilNull(read: () => Promise<string | null>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while ((await read()) !== null) {
    if (Date.now() > deadline) throw new Error('the value was never hidden');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
const s = (seconds: number): number => seconds * 1000;

export function describeCacheContract(name: string, factory: () => Promise<Harness>): void {
  describe(`cache contract: ${name}`, () => {
    let harness: Harness;
    let cache: Subject;
    const key = (): string => `k-${randomUUID()}`;

    beforeAll(async () => {
      harness = await factory();
      cache = harness.subject;
    });
    afterAll(async () => {
      await harness?.dispose();
    });

    /** `n` sequential requests at one instant. */
    async function consumeN(k: string, nowMs: number, n: number): Promise<RateLimitDecision[]> {
      const decisions: RateLimitDecision[] = [];
      for (let i = 0; i < n; i++) decisions.push(await cache.consume(k, policy, nowMs));
      return decisions;
    }

    /** Uses up the window at `nowMs` and returns the lockout the violation earned. */
    async function violate(k: string, nowMs: number): Promise<number | undefined> {
      const decisions = await consumeN(k, nowMs, policy.limit + 1);
      expect(decisions.slice(0, policy.limit).every((d) => d.allowed)).toBe(true);
      const last = decisions.at(-1);
      expect(last?.allowed).toBe(false);
      return last?.retryAfterSeconds;
    }

    it('given counters, when incremented from every peer, then each counts them all and an absent one reads 0', async () => {
      const [a, b] = [key(), key()];
      await harness.subject.increment(a, 60);
      for (const peer of harness.peers) await peer.increment(a, 60);

      await expect(cache.increment(a, 60)).resolves.toBe(harness.peers.length + 2);
      await expect(cache.counts([a, b])).resolves.toEqual([harness.peers.length + 2, 0]);
      await expect(cache.counts([])).resolves.toEqual([]);
    });

    it('answers ping', async () => {
      await expect(cache.ping()).resolves.toBeUndefined();
    });

    describe('values', () => {
      it('returns null for a key never set', async () => {
        await expect(cache.get(key())).resolves.toBeNull();
      });

      it('returns what was set, and the latest value after an overwrite', async () => {
        const k = key();
        await cache.set(k, 'first', 60);
        await expect(cache.get(k)).resolves.toBe('first');
        await cache.set(k, 'second ✓ {"json":true}', 60);
        await expect(cache.get(k)).resolves.toBe('second ✓ {"json":true}');
      });

      it('forgets a deleted key, and deleting an absent key is fine', async () => {
        const k = key();
        await cache.set(k, 'v', 60);
        await cache.del(k);
        await expect(cache.get(k)).resolves.toBeNull();
        await expect(cache.del(key())).resolves.toBeUndefined();
      });

      it('hides a value once its TTL has passed', async () => {
        const short = key();
        const long = key();
        await cache.set(short, 'gone soon', 1);
        await cache.set(long, 'stays', 60);
        await expect(cache.get(short)).resolves.toBe('gone soon');
        // the TTL runs on the store's own clock (Redis's, for Redis): wait until it hid the value
        await waitUntilNull(() => cache.get(short));
        await expect(cache.get(long)).resolves.toBe('stays');
      });

      it('rejects a TTL that is not positive', async () => {
        await expect(cache.set(key(), 'v', 0)).rejects.toThrow(RangeError);
        await expect(cache.set(key(), 'v', -1)).rejects.toThrow(RangeError);
        await expect(cache.set(key(), 'v', Number.NaN)).rejects.toThrow(RangeError);
      });

      it('keeps values and rate limits of the same key apart', async () => {
        const k = key();
        await cache.set(k, 'v', 60);
        await expect(cache.consume(k, policy, T0)).resolves.toMatchObject({ allowed: true, remaining: 4 });
        await expect(cache.get(k)).resolves.toBe('v');
      });
    });

    describe('rate limit', () => {
      it('allows the first `limit` requests with remaining counting down, then denies for 60 s', async () => {
        const decisions = await consumeN(key(), T0, policy.limit + 1);

        expect(decisions).toEqual([
          { allowed: true, limit: 5, remaining: 4, resetSeconds: 3600 },
          { allowed: true, limit: 5, remaining: 3, resetSeconds: 3600 },
          { allowed: true, limit: 5, remaining: 2, resetSeconds: 3600 },
          { allowed: true, limit: 5, remaining: 1, resetSeconds: 3600 },
          { allowed: true, limit: 5, remaining: 0, resetSeconds: 3600 },
          { allowed: false, limit: 5, remaining: 0, resetSeconds: 60, retryAfterSeconds: 60 },
        ]);
      });

      it('counts resetSeconds down through the window', async () => {
        const k = key();
        await cache.consume(k, policy, T0);

        await expect(cache.consume(k, policy, T0 + s(600) + 1)).resolves.toEqual({
          allowed: true,
          limit: 5,
          remaining: 3,
          resetSeconds: 3000,
        });
      });

      it('denies during the lockout with the remaining lockout, then allows in a new window', async () => {
        const k = key();
        await violate(k, T0);

        await expect(cache.consume(k, policy, T0 + s(30))).resolves.toEqual({
          allowed: false,
          limit: 5,
          remaining: 0,
          resetSeconds: 30,
          retryAfterSeconds: 30,
        });
        await expect(cache.consume(k, policy, T0 + s(60) - 1)).resolves.toMatchObject({
          allowed: false,
          retryAfterSeconds: 1,
        });
        const after = await consumeN(k, T0 + s(60), policy.limit);
        expect(after[0]).toEqual({ allowed: true, limit: 5, remaining: 4, resetSeconds: 3600 });
        expect(after.every((d) => d.allowed)).toBe(true);
      });

      it('does not count requests denied during a lockout as new violations', async () => {
        const k = key();
        await violate(k, T0);
        await consumeN(k, T0 + s(10), 20);

        await expect(violate(k, T0 + s(60))).resolves.toBe(120);
      });

      it('doubles the lockout on each violation within 24 h, capped at maxLockout', async () => {
        const k = key();
        let now = T0;
        const lockouts: (number | undefined)[] = [];
        for (let i = 0; i < 5; i++) {
          const lockout = await violate(k, now);
          lockouts.push(lockout);
          now += s(lockout ?? 0);
        }

        expect(lockouts).toEqual([60, 120, 240, 480, 480]);
      });

      it('forgets a violation 24 h after it happened', async () => {
        const k = key();
        await violate(k, T0);
        await expect(violate(k, T0 + s(60))).resolves.toBe(120);

        await expect(violate(k, T0 + s(60 + 86_400))).resolves.toBe(60);
      });

      it('keeps separate keys independent', async () => {
        const a = key();
        const b = key();
        await violate(a, T0);

        await expect(cache.consume(b, policy, T0)).resolves.toEqual({
          allowed: true,
          limit: 5,
          remaining: 4,
          resetSeconds: 3600,
        });
        await expect(cache.consume(a, policy, T0 + s(1))).resolves.toMatchObject({ allowed: false });
      });

      it('allows exactly `limit` of many concurrent requests', async () => {
        const k = key();
        const total = policy.limit + 5;
        const decisions = await Promise.all(
          Array.from({ length: total }, (_, i) => {
            const peer = harness.peers[i % harness.peers.length] ?? cache;
            return peer.consume(k, policy, T0);
          }),
        );

        expect(decisions.filter((d) => d.allowed)).toHaveLength(policy.limit);
        expect(
          decisions
            .filter((d) => d.allowed)
            .map((d) => d.remaining)
            .sort(),
        ).toEqual([0, 1, 2, 3, 4]);
        expect(decisions.filter((d) => !d.allowed).every((d) => d.retryAfterSeconds === 60)).toBe(true);
      });

      it('rejects an invalid policy', async () => {
        await expect(cache.consume(key(), { ...policy, limit: 0 }, T0)).rejects.toThrow(RangeError);
      });
    });

    describe('release (a reserved request handed back)', () => {
      it('given a full window, when one request is released, then exactly one more is admitted', async () => {
        const k = key();
        await consumeN(k, T0, policy.limit);

        await cache.release(k, policy, T0 + s(1));

        await expect(cache.consume(k, policy, T0 + s(2))).resolves.toMatchObject({ allowed: true, remaining: 0 });
        await expect(cache.consume(k, policy, T0 + s(2))).resolves.toMatchObject({ allowed: false });
      });

      it('given a lockout, when a request is released, then the lockout stays', async () => {
        const k = key();
        await violate(k, T0);

        await cache.release(k, policy, T0 + s(1));

        await expect(cache.consume(k, policy, T0 + s(2))).resolves.toMatchObject({ allowed: false });
      });

      it('given a key never consumed, or a window that ended, when released, then nothing changes', async () => {
        const fresh = key();
        await cache.release(fresh, policy, T0);
        await expect(cache.consume(fresh, policy, T0)).resolves.toMatchObject({ allowed: true, remaining: 4 });

        const old = key();
        await consumeN(old, T0, 2);
        await cache.release(old, policy, T0 + s(3600));
        await expect(cache.consume(old, policy, T0 + s(3600))).resolves.toMatchObject({ remaining: 4 });
      });
    });
  });
}

const policyArb = fc
  .record({
    limit: fc.integer({ min: 1, max: 4 }),
    windowSeconds: fc.integer({ min: 1, max: 20 }),
    baseLockoutSeconds: fc.integer({ min: 1, max: 10 }),
    extraLockoutSeconds: fc.integer({ min: 0, max: 60 }),
    violationMemorySeconds: fc.integer({ min: 0, max: 120 }),
  })
  .map(({ extraLockoutSeconds, ...p }) => ({ ...p, maxLockoutSeconds: p.baseLockoutSeconds + extraLockoutSeconds }));
// Steps cluster around the interesting boundaries: same instant, sub-second, whole seconds.
const stepArb = fc.oneof(
  fc.constant(0),
  fc.integer({ min: 1, max: 999 }),
  fc.integer({ min: 1, max: 15 }).map((n) => n * 1000),
  fc.integer({ min: 0, max: 130_000 }),
);

/** Random policies and request timings: the adapter must answer exactly what the pure rules say. */
function describeAgreesWithRules(name: string, open: () => Subject, cleanUp?: () => Promise<void>): void {
  describe(`${name} decides exactly as the pure rules (generated request histories)`, () => {
    let limiter: Subject;
    beforeAll(() => {
      limiter = open();
    });
    afterAll(async () => {
      await cleanUp?.();
      await limiter?.close();
    });

    it('for random policies and request timings', async () => {
      await fc.assert(
        fc.asyncProperty(policyArb, fc.array(stepArb, { minLength: 1, maxLength: 40 }), async (p, steps) => {
          const k = `gen-${randomUUID()}`;
          let state: RateLimitState | null = null;
          let now = T0;
          for (const step of steps) {
            now += step;
            const expected = consumeRateLimit(state, now, p);
            state = expected.state;
            expect(await limiter.consume(k, p, now)).toEqual(expected.decision);
          }
        }),
        { numRuns: 150 },
      );
    });
  });
}

describeCacheContract('MemoryCache', async () => {
  const cache = new MemoryCache();
  return { subject: cache, peers: [cache], dispose: () => cache.close() };
});
describeAgreesWithRules('MemoryCache', () => new MemoryCache());

// Where Redis does not answer, the Redis suites are still declared, as skipped with the reason,
// so that jest's count and CI's closing line show them.
const redis = externalTarget('redis');
describeExternal('cache contract (Redis)', redis, () => {
  const url = redis.kind === 'url' ? redis.url : 'redis://unreachable';
  const prefix = `prs-test:${randomUUID()}:`;

  /** Deletes every key this run created, whichever client created it. */
  async function cleanUp(): Promise<void> {
    const admin = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      let cursor = '0';
      do {
        const [next, keys] = await admin.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
        if (keys.length > 0) await admin.del(...keys);
        cursor = next;
      } while (cursor !== '0');
    } finally {
      admin.disconnect();
    }
  }

  describeCacheContract('RedisCache', async () => {
    const subject = RedisCache.connect(url, prefix);
    // Separate connections, so the concurrency test races Lua scripts from different clients.
    const peers = [subject, RedisCache.connect(url, prefix), RedisCache.connect(url, prefix)];
    return {
      subject,
      peers,
      dispose: async () => {
        await cleanUp();
        await Promise.all(peers.map((p) => p.close()));
      },
    };
  });

  describeAgreesWithRules('RedisCache', () => RedisCache.connect(url, prefix), cleanUp);
});

describe('RedisCache against a Redis that does not answer', () => {
  const deadUrl = 'redis://127.0.0.1:1';

  it('gives a command up after its one retry instead of queueing it until Redis comes back', async () => {
    // given
    const dead = RedisCache.connect(deadUrl, 'prs-test-dead:');
    try {
      // when / then: each command is refused as out of retries, not left waiting for a connection
      await expect(dead.ping()).rejects.toBeInstanceOf(MaxRetriesPerRequestError);
      await expect(dead.get('k')).rejects.toBeInstanceOf(MaxRetriesPerRequestError);
    } finally {
      await dead.close();
    }
  });

  it('behind the outage policy, the calls are answered by the in-process cache', async () => {
    // given
    const cache = new ResilientCache(RedisCache.connect(deadUrl, 'prs-test-dead:'), createLogger('silent'));
    try {
      // when
      await cache.set('k', 'v', 60);
      // then
      expect(await cache.get('k')).toBe('v');
      expect(cache.degraded).toBe(true);
      expect(await cache.health()).toBe('degraded');
    } finally {
      await cache.close();
    }
  });
});

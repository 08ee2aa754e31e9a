import type { RateLimitPolicy, RateLimitState } from '../../src/domain/rate-limit';
import { apiKeyRatePolicy, consumeRateLimit, rateLimitStateExpiresAtMs } from '../../src/domain/rate-limit';

const policy: RateLimitPolicy = {
  limit: 3,
  windowSeconds: 3600,
  baseLockoutSeconds: 60,
  maxLockoutSeconds: 240,
  violationMemorySeconds: 86_400,
};
const T0 = Date.UTC(2025, 0, 1);
const s = (seconds: number): number => seconds * 1000;

/** Runs `n` requests at `nowMs` and returns the final state and every decision. */
function consumeMany(state: RateLimitState | null, nowMs: number, n: number, p: RateLimitPolicy = policy) {
  const decisions = [];
  let current = state;
  for (let i = 0; i < n; i++) {
    const step = consumeRateLimit(current, nowMs, p);
    current = step.state;
    decisions.push(step.decision);
  }
  return { state: current, decisions };
}

/** The state right after the key's first violation at `nowMs`. */
function violatedAt(nowMs: number, previous: RateLimitState | null = null): RateLimitState {
  const { state } = consumeMany(previous, nowMs, policy.limit + 1);
  if (state === null) throw new Error('unreachable');
  return state;
}

describe('consumeRateLimit', () => {
  describe('given a key with no history', () => {
    it('when it makes `limit` requests, then all are allowed and remaining counts down to 0', () => {
      const { decisions } = consumeMany(null, T0, policy.limit);

      expect(decisions.map((d) => d.allowed)).toEqual([true, true, true]);
      expect(decisions.map((d) => d.remaining)).toEqual([2, 1, 0]);
      expect(decisions.every((d) => d.retryAfterSeconds === undefined)).toBe(true);
      expect(decisions.every((d) => d.limit === policy.limit)).toBe(true);
    });

    it('when it makes a request, then resetSeconds is the whole window', () => {
      const { decision } = consumeRateLimit(null, T0, policy);

      expect(decision.resetSeconds).toBe(3600);
    });
  });

  describe('given a window with requests left', () => {
    const { state } = consumeMany(null, T0, 1);

    it('when a request comes later in the window, then resetSeconds counts down, rounded up', () => {
      const { decision } = consumeRateLimit(state, T0 + s(1000) + 1, policy);

      expect(decision).toEqual({ allowed: true, limit: 3, remaining: 1, resetSeconds: 2600 });
    });

    it('when a request comes as the window ends, then a fresh window starts', () => {
      const { decision } = consumeRateLimit(state, T0 + s(3600), policy);

      expect(decision).toEqual({ allowed: true, limit: 3, remaining: 2, resetSeconds: 3600 });
    });
  });

  describe('given the window is exhausted', () => {
    const { state } = consumeMany(null, T0, policy.limit);

    it('when one more request comes, then it is denied with the base lockout', () => {
      const { decision } = consumeRateLimit(state, T0 + s(10), policy);

      expect(decision).toEqual({
        allowed: false,
        limit: 3,
        remaining: 0,
        resetSeconds: 60,
        retryAfterSeconds: 60,
      });
    });

    it('when the window has ended, then the next request is allowed without a violation', () => {
      const { decision, state: next } = consumeRateLimit(state, T0 + s(3600), policy);

      expect(decision.allowed).toBe(true);
      expect(next.lastViolation).toBeNull();
    });
  });

  describe('given a key locked out for 60 s', () => {
    const locked = violatedAt(T0);

    it('when a request comes 30 s later, then it is denied with the remaining lockout', () => {
      const { decision } = consumeRateLimit(locked, T0 + s(30), policy);

      expect(decision.allowed).toBe(false);
      expect(decision.retryAfterSeconds).toBe(30);
      expect(decision.remaining).toBe(0);
    });

    it('when a request comes mid-second, then retryAfter is rounded up', () => {
      const { decision } = consumeRateLimit(locked, T0 + s(30) + 1, policy);

      expect(decision.retryAfterSeconds).toBe(30);
    });

    it('when a request comes 1 ms before the end, then retryAfter is at least 1', () => {
      const { decision } = consumeRateLimit(locked, T0 + s(60) - 1, policy);

      expect(decision.retryAfterSeconds).toBe(1);
    });

    it('when requests keep coming during the lockout, then none extends or doubles it', () => {
      const during = consumeMany(locked, T0 + s(10), 50);
      const { decision } = consumeRateLimit(during.state, T0 + s(60), policy);

      expect(during.state).toBe(locked);
      expect(decision.allowed).toBe(true);
    });

    it('when the lockout ends, then a fresh full window starts', () => {
      const { decisions } = consumeMany(locked, T0 + s(60), policy.limit);

      expect(decisions.map((d) => d.allowed)).toEqual([true, true, true]);
      expect(decisions[0]).toEqual({ allowed: true, limit: 3, remaining: 2, resetSeconds: 3600 });
    });

    it('when locked, then resetSeconds is the end of the lockout, as retryAfter (a fresh window starts then)', () => {
      expect(consumeRateLimit(locked, T0 + s(30), policy).decision.resetSeconds).toBe(30);

      const lateInWindow = violatedAt(T0 + s(3590), consumeMany(null, T0, 1).state);
      expect(consumeRateLimit(lateInWindow, T0 + s(3595), policy).decision.resetSeconds).toBe(55);
    });
  });

  describe('given repeated violations within the violation memory', () => {
    it('when the key goes over again after each lockout, then the lockout doubles up to the cap', () => {
      let state: RateLimitState | null = null;
      let now = T0;
      const lockouts: (number | undefined)[] = [];
      for (let i = 0; i < 5; i++) {
        const { state: next, decisions } = consumeMany(state, now, policy.limit + 1);
        lockouts.push(decisions.at(-1)?.retryAfterSeconds);
        state = next;
        now += s(decisions.at(-1)?.retryAfterSeconds ?? 0);
      }

      expect(lockouts).toEqual([60, 120, 240, 240, 240]);
    });

    it('when the next violation is 1 ms inside the memory, then the lockout doubles', () => {
      const first = violatedAt(T0);
      const { decisions } = consumeMany(first, T0 + s(86_400) - 1, policy.limit + 1);

      expect(decisions.at(-1)?.retryAfterSeconds).toBe(120);
    });

    it('when the next violation is exactly the memory later, then it is forgotten (back to base)', () => {
      const first = violatedAt(T0);
      const { decisions } = consumeMany(first, T0 + s(86_400), policy.limit + 1);

      expect(decisions.at(-1)?.retryAfterSeconds).toBe(60);
    });

    it('when the memory is measured, then it runs from the previous violation, not the first', () => {
      const first = violatedAt(T0);
      const second = violatedAt(T0 + s(80_000), first);
      const { decisions } = consumeMany(second, T0 + s(80_000 + 86_000), policy.limit + 1);

      expect(decisions.at(-1)?.retryAfterSeconds).toBe(240);
    });
  });

  describe('given a lockout longer than the window', () => {
    const longLockout: RateLimitPolicy = { ...policy, windowSeconds: 10, baseLockoutSeconds: 100 };

    it('when requests come after the window but inside the lockout, then they are denied', () => {
      const { state } = consumeMany(null, T0, longLockout.limit + 1, longLockout);
      const { decision } = consumeRateLimit(state, T0 + s(50), longLockout);

      expect(decision).toEqual({ allowed: false, limit: 3, remaining: 0, resetSeconds: 50, retryAfterSeconds: 50 });
    });
  });

  describe('given an invalid policy or clock', () => {
    it.each([
      { limit: 0 },
      { limit: 1.5 },
      { windowSeconds: 0 },
      { baseLockoutSeconds: -1 },
      { maxLockoutSeconds: 30 },
      { violationMemorySeconds: Number.NaN },
    ])('when consumed with %p, then it throws a RangeError', (override) => {
      expect(() => consumeRateLimit(null, T0, { ...policy, ...override })).toThrow(RangeError);
    });

    it('when nowMs is not an integer, then it throws a RangeError', () => {
      expect(() => consumeRateLimit(null, T0 + 0.5, policy)).toThrow(RangeError);
    });

    it('when nowMs is before the epoch, then it throws a RangeError', () => {
      expect(() => consumeRateLimit(null, -1, policy)).toThrow(RangeError);
    });
  });

  describe('given a policy or clock at the edge of what is valid', () => {
    it.each([
      { violationMemorySeconds: 0 },
      { maxLockoutSeconds: 60 },
      { limit: 1, windowSeconds: 1, baseLockoutSeconds: 1, maxLockoutSeconds: 1 },
    ])('when consumed with %p, then the first request is allowed', (override) => {
      expect(consumeRateLimit(null, T0, { ...policy, ...override }).decision.allowed).toBe(true);
    });

    it('when consumed with a violation memory below zero, then it throws a RangeError', () => {
      expect(() => consumeRateLimit(null, T0, { ...policy, violationMemorySeconds: -1 })).toThrow(RangeError);
    });

    it('when consumed at nowMs 0, then the first request is allowed', () => {
      expect(consumeRateLimit(null, 0, policy).decision.allowed).toBe(true);
    });
  });
});

describe('rateLimitStateExpiresAtMs', () => {
  it('given a state, when its expiry is reached, then it decides exactly as no state, and not before', () => {
    const states = [
      consumeMany(null, T0, 1).state,
      violatedAt(T0),
      violatedAt(T0 + s(60), violatedAt(T0)),
      consumeMany(violatedAt(T0), T0 + s(60), 1).state,
    ];
    for (const state of states) {
      if (state === null) throw new Error('unreachable');
      const at = rateLimitStateExpiresAtMs(state, policy);

      expect(consumeMany(state, at, policy.limit + 1).decisions).toEqual(
        consumeMany(null, at, policy.limit + 1).decisions,
      );
      expect(consumeMany(state, at - 1, policy.limit + 1).decisions).not.toEqual(
        consumeMany(null, at - 1, policy.limit + 1).decisions,
      );
    }
  });
});

describe('apiKeyRatePolicy', () => {
  it('given a key that goes over its hourly quota again after each lockout, then the lockout doubles from 60 s up to 24 h', () => {
    const p = apiKeyRatePolicy(2);
    let state: RateLimitState | null = null;
    let now = T0;
    const lockouts: (number | undefined)[] = [];
    for (let i = 0; i < 12; i++) {
      const { state: next, decisions } = consumeMany(state, now, p.limit + 1, p);
      lockouts.push(decisions.at(-1)?.retryAfterSeconds);
      state = next;
      now += s(decisions.at(-1)?.retryAfterSeconds ?? 0);
    }

    expect(lockouts).toEqual([60, 120, 240, 480, 960, 1920, 3840, 7680, 15_360, 30_720, 61_440, 86_400]);
  });

  it('given a violation more than 24 h ago, when the key goes over again, then the lockout is back to 60 s', () => {
    const p = apiKeyRatePolicy(2);
    const first = consumeMany(null, T0, 3, p).state;
    const { decisions } = consumeMany(first, T0 + s(86_400), 3, p);

    expect(decisions.at(-1)).toMatchObject({ allowed: false, retryAfterSeconds: 60, resetSeconds: 60 });
  });
});

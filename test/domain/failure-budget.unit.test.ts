import type { RateLimitState } from '../../src/domain/rate-limit';
import {
  API_KEY_FAILURES_PER_KEY_AND_ADDRESS as policy,
  consumeRateLimit,
  releaseRateLimit,
} from '../../src/domain/rate-limit';

/**
 * The wrong-secret budgets: a unit is reserved (consumeRateLimit) before a secret is hashed and
 * handed back (releaseRateLimit) when the secret matched, so only wrong secrets stay counted.
 */
const T0 = Date.UTC(2025, 0, 1);

function consumed(n: number, nowMs = T0): RateLimitState | null {
  let state: RateLimitState | null = null;
  for (let i = 0; i < n; i++) state = consumeRateLimit(state, nowMs, policy).state;
  return state;
}

describe('a reserved unit handed back', () => {
  it('given a spent budget, when one unit is handed back, then exactly one more is admitted', () => {
    const back = releaseRateLimit(consumed(policy.limit), T0 + 1000, policy);

    const next = consumeRateLimit(back, T0 + 2000, policy);
    expect(next.decision.allowed).toBe(true);
    expect(consumeRateLimit(next.state, T0 + 2000, policy).decision.allowed).toBe(false);
  });

  it('given a lockout, when a unit is handed back, then the lockout stays', () => {
    const locked = consumed(policy.limit + 1);

    expect(releaseRateLimit(locked, T0 + 1000, policy)).toBe(locked);
  });

  it('given no history, or a window that ended, then nothing changes', () => {
    expect(releaseRateLimit(null, T0, policy)).toBeNull();
    const old = consumed(3);
    expect(releaseRateLimit(old, T0 + policy.windowSeconds * 1000, policy)).toBe(old);
  });

  it('given reservations handed back as fast as they are taken, then the budget never closes', () => {
    let state: RateLimitState | null = null;
    for (let i = 0; i < policy.limit * 10; i++) {
      const step = consumeRateLimit(state, T0 + i, policy);
      expect(step.decision.allowed).toBe(true);
      state = releaseRateLimit(step.state, T0 + i, policy);
    }
  });
});

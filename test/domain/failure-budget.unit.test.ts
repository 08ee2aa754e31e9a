import type { RateLimitDecision, RateLimitState } from '../../src/domain/rate-limit';
import {
  API_KEY_FAILURES_PER_KEY_AND_ADDRESS as policy,
  consumeRateLimit,
  failureBudgetClosedUntilMs,
} from '../../src/domain/rate-limit';

/**
 * The wrong-secret budgets: a failure is counted with consumeRateLimit, and the budget is closed —
 * attempts refused before hashing — from the failure that uses it up until its window ends, or
 * until the lockout a failure past it started ends.
 */
const T0 = Date.UTC(2025, 0, 1);

function failures(n: number, nowMs = T0) {
  let state: RateLimitState | null = null;
  const closed: (number | null)[] = [];
  for (let i = 0; i < n; i++) {
    const step = consumeRateLimit(state, nowMs, policy);
    state = step.state;
    closed.push(failureBudgetClosedUntilMs(step.decision, nowMs));
  }
  return closed;
}

describe('wrong-secret budget', () => {
  it('given failures below the limit, then the budget stays open', () => {
    expect(failures(policy.limit - 1)).toEqual(Array(policy.limit - 1).fill(null));
  });

  it('given the failure that uses the budget up, then it is closed until the window ends', () => {
    expect(failures(policy.limit).at(-1)).toBe(T0 + policy.windowSeconds * 1000);
  });

  it('given a failure past the limit (several were in flight), then it is closed until the lockout ends', () => {
    expect(failures(policy.limit + 1).at(-1)).toBe(T0 + policy.baseLockoutSeconds * 1000);
  });

  it('given a failure late in the window that uses the budget up, then it is closed only for what is left of the window', () => {
    let state: RateLimitState | null = consumeRateLimit(null, T0, policy).state;
    for (let i = 1; i < policy.limit - 1; i++) state = consumeRateLimit(state, T0, policy).state;
    const later = T0 + 45_000;

    const last = consumeRateLimit(state, later, policy);

    expect(failureBudgetClosedUntilMs(last.decision, later)).toBe(T0 + policy.windowSeconds * 1000);
  });

  // A denial as consumeRateLimit makes it has remaining 0 and resetSeconds = retryAfterSeconds; the
  // rule itself reads the retry time first, and the reset time only when no retry time is given.
  it.each<[string, RateLimitDecision, number]>([
    [
      'a denial whose retry comes before its reset',
      { allowed: false, limit: 5, remaining: 0, resetSeconds: 60, retryAfterSeconds: 30 },
      30,
    ],
    [
      'a denial whose retry comes after its reset',
      { allowed: false, limit: 5, remaining: 2, resetSeconds: 10, retryAfterSeconds: 90 },
      90,
    ],
    ['a denial with no retry time', { allowed: false, limit: 5, remaining: 0, resetSeconds: 45 }, 45],
  ])('given %s, then the budget is closed until the retry time', (_what, decision, seconds) => {
    expect(failureBudgetClosedUntilMs(decision, T0)).toBe(T0 + seconds * 1000);
  });
});

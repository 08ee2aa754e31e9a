/**
 * Per-key rate limiting with progressive lockout, as pure arithmetic: the next state and the
 * decision follow from the previous state, the time and the policy alone. The adapters only store
 * the state; the Redis adapter runs the same algorithm in Lua (src/infra/redis/redis-cache.ts), so
 * a change here must be made there too — the cache contract test compares the two.
 *
 * - A fixed window of `windowSeconds` starts at the first request after the previous window (or
 *   lockout) ended, and admits `limit` requests.
 * - The first request over the limit is a violation: it is denied and starts a lockout of
 *   `baseLockoutSeconds`, or twice the previous lockout (capped at `maxLockoutSeconds`) when the
 *   previous violation is less than `violationMemorySeconds` old.
 * - During a lockout every request is denied and none counts as a new violation, so a client that
 *   keeps retrying is not punished more than one that waits.
 * - When the lockout ends a fresh window starts: `Retry-After` promises that a request made after
 *   it succeeds, which would be false if the exhausted window carried on. So while locked out,
 *   `resetSeconds` (when the quota is full again) is the end of the lockout, like `Retry-After`.
 *
 * Times are integer milliseconds since the epoch; policy values are integer seconds.
 */

export type RateLimitPolicy = {
  readonly limit: number;
  readonly windowSeconds: number;
  readonly baseLockoutSeconds: number;
  readonly maxLockoutSeconds: number;
  readonly violationMemorySeconds: number;
};

export type RateLimitDecision = {
  readonly allowed: boolean;
  readonly limit: number;
  /** Requests left in the current window; never negative. */
  readonly remaining: number;
  /** Seconds until the quota is full again: the window's end, or the lockout's end while locked out. */
  readonly resetSeconds: number;
  /** Set on denials only: seconds until a request can succeed again (at least 1). */
  readonly retryAfterSeconds?: number;
};

/** The last violation, kept while it can still double the next lockout. */
export type Violation = { readonly atMs: number; readonly lockoutSeconds: number };

export type RateLimitState =
  | {
      readonly kind: 'counting';
      readonly windowStartMs: number;
      /** Requests admitted in the window, at most the policy's limit. */
      readonly count: number;
      readonly lastViolation: Violation | null;
    }
  | {
      readonly kind: 'locked';
      /** The window the violation happened in (kept for the state's expiry). */
      readonly windowStartMs: number;
      readonly lockedUntilMs: number;
      readonly lastViolation: Violation;
    };

export type RateLimitStep = { readonly state: RateLimitState; readonly decision: RateLimitDecision };

/** Throws a RangeError unless every policy value is a usable integer. */
export function assertValidPolicy(policy: RateLimitPolicy): void {
  const positive = ['limit', 'windowSeconds', 'baseLockoutSeconds', 'maxLockoutSeconds'] as const;
  for (const name of positive) {
    if (!Number.isSafeInteger(policy[name]) || policy[name] < 1) {
      throw new RangeError(`rate limit policy: ${name} must be a positive integer`);
    }
  }
  if (!Number.isSafeInteger(policy.violationMemorySeconds) || policy.violationMemorySeconds < 0) {
    throw new RangeError('rate limit policy: violationMemorySeconds must be a non-negative integer');
  }
  if (policy.maxLockoutSeconds < policy.baseLockoutSeconds) {
    throw new RangeError('rate limit policy: maxLockoutSeconds must be at least baseLockoutSeconds');
  }
}

/** Throws a RangeError unless `nowMs` is an integer millisecond timestamp. */
export function assertValidNow(nowMs: number): void {
  if (!Number.isSafeInteger(nowMs) || nowMs < 0) {
    throw new RangeError('rate limit: nowMs must be a non-negative integer');
  }
}

const ceilSeconds = (ms: number): number => Math.ceil(ms / 1000);

/** Counts one request against `state` (null: the key has no history) at `nowMs`. */
export function consumeRateLimit(state: RateLimitState | null, nowMs: number, policy: RateLimitPolicy): RateLimitStep {
  assertValidPolicy(policy);
  assertValidNow(nowMs);
  const windowMs = policy.windowSeconds * 1000;

  if (state?.kind === 'locked' && nowMs < state.lockedUntilMs) {
    const retryAfterSeconds = Math.max(1, ceilSeconds(state.lockedUntilMs - nowMs));
    return {
      state,
      decision: {
        allowed: false,
        limit: policy.limit,
        remaining: 0,
        resetSeconds: retryAfterSeconds,
        retryAfterSeconds,
      },
    };
  }

  const windowOpen = state?.kind === 'counting' && nowMs < state.windowStartMs + windowMs;
  const windowStartMs = windowOpen ? state.windowStartMs : nowMs;
  const count = windowOpen ? state.count : 0;
  const windowLeft = ceilSeconds(windowStartMs + windowMs - nowMs);
  const remembered = state?.lastViolation ?? null;
  const lastViolation =
    remembered !== null && nowMs - remembered.atMs < policy.violationMemorySeconds * 1000 ? remembered : null;

  if (count < policy.limit) {
    return {
      state: { kind: 'counting', windowStartMs, count: count + 1, lastViolation },
      decision: { allowed: true, limit: policy.limit, remaining: policy.limit - count - 1, resetSeconds: windowLeft },
    };
  }

  const lockoutSeconds =
    lastViolation === null
      ? policy.baseLockoutSeconds
      : Math.min(lastViolation.lockoutSeconds * 2, policy.maxLockoutSeconds);
  return {
    state: {
      kind: 'locked',
      windowStartMs,
      lockedUntilMs: nowMs + lockoutSeconds * 1000,
      lastViolation: { atMs: nowMs, lockoutSeconds },
    },
    decision: {
      allowed: false,
      limit: policy.limit,
      remaining: 0,
      resetSeconds: lockoutSeconds,
      retryAfterSeconds: lockoutSeconds,
    },
  };
}

/**
 * Hands back one request counted against `state` at `nowMs`: a unit reserved before work whose
 * outcome decides whether it counts (an API key's secret checked against a budget of wrong ones).
 * Only a count in the window still open goes down; a lockout, or a window that has ended, stays as
 * it is.
 */
export function releaseRateLimit(
  state: RateLimitState | null,
  nowMs: number,
  policy: RateLimitPolicy,
): RateLimitState | null {
  if (state?.kind !== 'counting' || state.count === 0) return state;
  if (nowMs >= state.windowStartMs + policy.windowSeconds * 1000) return state;
  return { ...state, count: state.count - 1 };
}

/**
 * The instant from which `state` behaves exactly like no state at all (window over, lockout over,
 * violation forgotten): a store may drop it then.
 */
export function rateLimitStateExpiresAtMs(state: RateLimitState, policy: RateLimitPolicy): number {
  const windowEndMs = state.windowStartMs + policy.windowSeconds * 1000;
  const lockedUntilMs = state.kind === 'locked' ? state.lockedUntilMs : 0;
  const forgottenAtMs =
    state.lastViolation === null ? 0 : state.lastViolation.atMs + policy.violationMemorySeconds * 1000;
  return Math.max(windowEndMs, lockedUntilMs, forgottenAtMs);
}

/**
 * The per-key quota of API keys (docs/api.md "Rate limit"): `limitPerHour` requests an hour; each
 * violation within 24 h of the previous one doubles the lockout from 60 s, capped at 24 h.
 */
export function apiKeyRatePolicy(limitPerHour: number): RateLimitPolicy {
  return {
    limit: limitPerHour,
    windowSeconds: 3600,
    baseLockoutSeconds: 60,
    maxLockoutSeconds: 86_400,
    violationMemorySeconds: 86_400,
  };
}

/**
 * The budgets of wrong API-key secrets (docs/api.md "Credentials"). Only a failed verification spends
 * them, so a correct secret never takes from a budget, and they are counted per (key id, client
 * address) and per client address, so a caller who sends wrong secrets exhausts only budgets of
 * their own address: the owner of a key, elsewhere, verifies as usual. Over either budget an
 * attempt is refused before hashing; CPU is bounded elsewhere (a bound on concurrent verifications).
 */
export const API_KEY_FAILURES_PER_KEY_AND_ADDRESS: RateLimitPolicy = {
  limit: 10,
  windowSeconds: 60,
  baseLockoutSeconds: 60,
  maxLockoutSeconds: 3600,
  violationMemorySeconds: 3600,
};

/** Wrong secrets from one client address, whatever key ids they name (a spray over many keys). */
export const API_KEY_FAILURES_PER_ADDRESS: RateLimitPolicy = {
  limit: 50,
  windowSeconds: 60,
  baseLockoutSeconds: 60,
  maxLockoutSeconds: 3600,
  violationMemorySeconds: 3600,
};

import { hash, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import { parseApiKey } from './api-key-format';
import { DomainError } from '../domain/errors';
import type { RateLimitDecision, RateLimitPolicy } from '../domain/rate-limit';
import {
  API_KEY_FAILURES_PER_ADDRESS,
  API_KEY_FAILURES_PER_KEY_AND_ADDRESS,
  apiKeyRatePolicy,
} from '../domain/rate-limit';
import { VerifierBusy } from './bounded-verifier';
import type { SecretHasher } from '../ports/secret-hasher';
import type { Cache, RateLimiter } from '../ports/cache';
import type { Logger } from '../observability/logger';
import type { ApiKey, ApiKeyStore } from './api-key-store';
import type { ApiKeyAuthenticator, ApiKeyIdentity } from '../api/middleware/authenticate';
import { quotaOf } from './api-key-decide';
import { countUse } from './api-key-usage';
import { clientAddressOf } from '../api/middleware/client-address';
import { budgetAddressOf } from './budget-address';

/** A verified key stays cached this long at most (and never past its expiry or grace). */
const VERIFIED_TTL_SECONDS = 3600;
/** lastUsedAt is written at most this often per key (docs/api.md "Limits"). */
const LAST_USED_EVERY_MS = 60_000;
/** Digests of keys this process saw verified, kept to spare the shared cache a round trip; the oldest go first. */
const VERIFIED_HERE_MAX = 10_000;

const unauthenticated = (reason: string) => new DomainError('unauthenticated', reason);
/** A wrong-secret budget of the caller's address is spent: no hash runs until `retryAfterSeconds`. */
class BudgetSpent extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super('a wrong-secret budget is spent');
    this.name = 'BudgetSpent';
  }
}

/** The reason given for any key whose secret was not proved: unknown, wrong secret, revoked or expired alike. */
const NOT_VALID = 'the API key is not valid';
/** SHA-256 of the whole key, hex: what names a verified key in memory and in the cache, never the key itself. */
const digestOf = (key: string): string => hash('sha256', key);

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The key's keyId and secret; 401 for a malformed key or a checksum that does not match. */
function parsedOrRefused(presented: string): { readonly keyId: string; readonly secret: string } {
  const parsed = parseApiKey(presented);
  if (parsed.ok) return parsed;
  throw unauthenticated(
    parsed.reason === 'checksum'
      ? 'the API key checksum does not match: it is mistyped or truncated'
      : 'the API key is malformed',
  );
}

/** The `RateLimit-Policy` value of a policy: the same on every answer, so built once. */
const policyHeader = (policy: RateLimitPolicy): string => `"hourly";q=${policy.limit};w=${policy.windowSeconds}`;

/**
 * docs/api.md "API keys": the RateLimit-Limit/-Remaining/-Reset headers and the IETF draft's
 * RateLimit-Policy / RateLimit pair.
 */
export function setRateLimitHeaders(
  res: Response,
  policy: RateLimitPolicy,
  decision: RateLimitDecision,
  policyValue = policyHeader(policy),
): void {
  const remaining = String(decision.remaining);
  const reset = String(decision.resetSeconds);
  res.setHeader('RateLimit-Limit', String(decision.limit));
  res.setHeader('RateLimit-Remaining', remaining);
  res.setHeader('RateLimit-Reset', reset);
  res.setHeader('RateLimit-Policy', policyValue);
  res.setHeader('RateLimit', `"hourly";r=${remaining};t=${reset}`);
}

/**
 * The wrong-secret budgets an attempt from `address` for key `id` answers to (rate-limit keys; `:closed`
 * names their cache flag).
 */
const failureBudgets = (id: number, address: string): readonly [string, RateLimitPolicy][] => [
  [`apikey-fail:key:${id}:ip:${address}`, API_KEY_FAILURES_PER_KEY_AND_ADDRESS],
  [`apikey-fail:ip:${address}`, API_KEY_FAILURES_PER_ADDRESS],
];

/**
 * X-API-Key authentication, cheapest refusal first:
 *  1. shape and CRC32 checksum (pure): a mistyped or truncated key is refused before any I/O (a key
 *     this process saw verified is known by its digest and not parsed again);
 *  2. the key's row by keyId (one indexed read-model lookup): unknown → 401 without hashing;
 *     revoked or expired → 401. This check runs on every request, on every process, so a
 *     revocation or an expiry takes effect at the next request wherever it lands;
 *  3. a key verified before, under SHA-256 of the whole key (never the key): first what this
 *     process remembers, then the cache shared by every process. The value names the argon2 hash
 *     that matched, so it only stands while that hash is still the key's current secret, or its
 *     previous one within the grace of a rotation — checked against the row of step 2 each time;
 *  4. otherwise argon2id, unless this client address has used up its budgets of wrong secrets
 *     (per key id and address, per address: 429). Only failures spend them, so nobody spends
 *     another's. Concurrent requests with the same key wait on one run (single flight), whose
 *     match goes to the shared cache for every process; the runs of the process are bounded
 *     (BoundedVerifier: past the bound and its wait, 503 with Retry-After);
 *  5. the key's own hourly quota (its `ratePerHour` within RATE_LIMIT_PER_HOUR, shared in Redis),
 *     with the RateLimit headers on every answer; an admitted request is counted in the key's usage.
 */
/** A key seen verified: its keyId (so it is not parsed again), its id and the argon2 hash that matched. */
type Verified = { readonly keyId: string; readonly id: number; readonly hash: string };

export class ApiKeyVerifier implements ApiKeyAuthenticator {
  /** The quota policies of the keys' rates, each with its header, built once per rate. */
  private readonly quotas = new Map<number, { readonly policy: RateLimitPolicy; readonly header: string }>();
  private readonly lastRecorded = new Map<number, number>();
  /**
   * Verifications running in this process, by the key's digest and the hashes tried: whoever asks meanwhile
   * waits on it.
   */
  private readonly inFlight = new Map<string, Promise<string | null>>();
  /** Keys this process saw verified, by digest: what matched, checked against the key's row at every request. */
  private readonly verifiedHere = new Map<string, Verified>();

  constructor(
    private readonly deps: {
      readonly store: ApiKeyStore;
      readonly cache: Cache & RateLimiter;
      /** argon2 verification; in the service a BoundedVerifier, which may throw VerifierBusy. */
      readonly hasher: Pick<SecretHasher, 'verify'>;
      readonly clock: () => Date;
      readonly logger: Logger;
      readonly limitPerHour: number;
    },
  ) {}

  private quotaOf(record: ApiKey): { readonly policy: RateLimitPolicy; readonly header: string } {
    const limit = quotaOf(record.ratePerHour, this.deps.limitPerHour);
    let quota = this.quotas.get(limit);
    if (!quota) {
      const policy = apiKeyRatePolicy(limit);
      quota = { policy, header: policyHeader(policy) };
      this.quotas.set(limit, quota);
    }
    return quota;
  }

  async authenticate(key: string, req: Request, res: Response): Promise<ApiKeyIdentity> {
    const presented = key.trim();
    const digest = digestOf(presented);
    // Seen verified: the very same string passed its checksum then, so it is not parsed again.
    const known = this.verifiedHere.get(digest);
    const keyId = known?.keyId ?? parsedOrRefused(presented).keyId;
    const record = await this.deps.store.credential(keyId);
    // One reason for every key whose secret was not proved, so that a keyId alone (it is public: it
    // is in logs, screenshots, the key list) tells nothing about the key's state.
    if (!record) throw unauthenticated(NOT_VALID);
    const now = this.deps.clock();
    const nowMs = now.getTime();
    const ended = record.revoked ? 'revoked' : Date.parse(record.expiresAt) <= nowMs ? 'expired' : null;

    const inGrace =
      record.graceSecretHash !== null && record.graceUntil !== null && nowMs < Date.parse(record.graceUntil);
    // Plain equality: argon2 hashes from the service's own stores, no secret; the digest found the entry.
    const stands =
      known !== undefined &&
      known.id === record.id &&
      (known.hash === record.secretHash || (inGrace && known.hash === record.graceSecretHash));
    if (!stands && !(await this.verified(presented, digest, record, inGrace, nowMs, req, res)))
      throw unauthenticated(NOT_VALID);
    // The holder of the right secret learns why it no longer works.
    if (ended === 'revoked') throw unauthenticated('the API key has been revoked');
    if (ended === 'expired') throw unauthenticated('the API key has expired');

    const quota = this.quotaOf(record);
    const decision = await this.deps.cache.consume(`apikey:${record.id}`, quota.policy, nowMs);
    setRateLimitHeaders(res, quota.policy, decision, quota.header);
    if (!decision.allowed) {
      res.setHeader('Retry-After', String(decision.retryAfterSeconds ?? decision.resetSeconds));
      throw new DomainError(
        'rate_limited',
        `the API key's rate limit of ${quota.policy.limit} requests an hour is exceeded`,
      );
    }
    this.recordUse(record.id, now);
    return { actor: { userId: record.userId, credential: 'apiKey', apiKeyId: record.id }, readOnly: record.readOnly };
  }

  /** A key this process has not seen verified with the row's hashes: the shared cache, else argon2 (steps 3 and 4). */
  private async verified(
    presented: string,
    digest: string,
    record: ApiKey,
    inGrace: boolean,
    nowMs: number,
    req: Request,
    res: Response,
  ): Promise<boolean> {
    const matches = (candidate: string): boolean =>
      candidate === record.secretHash || (inGrace && candidate === record.graceSecretHash);
    const cached = await this.deps.cache.get(`apikey:verified:${digest}`);
    if (cached !== null) {
      const stands =
        sameText(cached, `${record.id}:${record.secretHash}`) ||
        (inGrace && sameText(cached, `${record.id}:${record.graceSecretHash ?? ''}`));
      if (stands) {
        this.rememberHere(digest, { keyId: record.keyId, id: record.id, hash: cached.slice(cached.indexOf(':') + 1) });
        return true;
      }
    }

    const address = budgetAddressOf(clientAddressOf(req));
    const flightKey = `${digest}:${record.secretHash}:${inGrace ? (record.graceSecretHash ?? '') : ''}`;
    let flight = this.inFlight.get(flightKey);
    if (!flight) {
      // A run may have ended while this request waited on the stores: it left its match here.
      const here = this.verifiedHere.get(digest);
      if (here !== undefined && here.id === record.id && matches(here.hash)) return true;
      const { secret } = parsedOrRefused(presented);
      flight = this.reservedRun(secret, digest, record, inGrace, nowMs, address).finally(() =>
        this.inFlight.delete(flightKey),
      );
      this.inFlight.set(flightKey, flight);
    }
    try {
      return (await flight) !== null;
    } catch (error) {
      if (error instanceof VerifierBusy)
        throw new DomainError('unavailable', 'too many API keys are being verified at once: try again shortly');
      if (error instanceof BudgetSpent) {
        res.setHeader('Retry-After', String(error.retryAfterSeconds));
        throw new DomainError('rate_limited', 'too many wrong API key secrets from this address: try again later');
      }
      throw error;
    }
  }

  /**
   * One argon2 run, paid for by the wrong-secret budgets of the address that asked for it: a unit of
   * each is taken before the hash, atomically (however many runs start at once, no more run than
   * the budgets hold: BudgetSpent otherwise), and handed back unless the secret turned out wrong.
   * Requests with the same key that arrive meanwhile wait on this run and take nothing.
   */
  private async reservedRun(
    secret: string,
    digest: string,
    record: ApiKey,
    inGrace: boolean,
    nowMs: number,
    address: string,
  ): Promise<string | null> {
    const taken = await this.reserveFailureBudgets(record.id, address, nowMs);
    let wrong = false;
    try {
      const matched = await this.verifyOnce(secret, digest, record, inGrace, nowMs);
      wrong = matched === null;
      return matched;
    } finally {
      // A match, or no answer at all (the verifier busy, a store error): nothing was proved wrong.
      if (!wrong) await this.releaseFailureBudgets(taken, nowMs);
    }
  }

  /** One argon2 verification (two within a rotation's grace); a match is shared through the cache. */
  private async verifyOnce(
    secret: string,
    digest: string,
    record: ApiKey,
    inGrace: boolean,
    nowMs: number,
  ): Promise<string | null> {
    let matched: string | null = null;
    if (await this.deps.hasher.verify(record.secretHash, secret)) matched = record.secretHash;
    else if (inGrace && record.graceSecretHash && (await this.deps.hasher.verify(record.graceSecretHash, secret))) {
      matched = record.graceSecretHash;
    }
    if (matched === null) return null;

    const value = `${record.id}:${matched}`;
    this.rememberHere(digest, { keyId: record.keyId, id: record.id, hash: matched });
    const endsMs = Math.min(
      Date.parse(record.expiresAt),
      matched === record.secretHash ? Infinity : Date.parse(record.graceUntil ?? ''),
    );
    const ttlSeconds = Math.min(VERIFIED_TTL_SECONDS, (endsMs - nowMs) / 1000);
    if (ttlSeconds > 0) await this.deps.cache.set(`apikey:verified:${digest}`, value, ttlSeconds);
    return matched;
  }

  private rememberHere(digest: string, value: Verified): void {
    if (this.verifiedHere.size >= VERIFIED_HERE_MAX && !this.verifiedHere.has(digest)) {
      const oldest = this.verifiedHere.keys().next();
      if (!oldest.done) this.verifiedHere.delete(oldest.value);
    }
    this.verifiedHere.set(digest, value);
  }

  /**
   * Takes one unit from each wrong-secret budget of this key and address; BudgetSpent when either
   * is spent (and whatever was taken is handed back). Answers what was taken.
   */
  private async reserveFailureBudgets(
    id: number,
    address: string,
    nowMs: number,
  ): Promise<readonly (readonly [string, RateLimitPolicy])[]> {
    const budgets = failureBudgets(id, address);
    const decisions = await Promise.all(budgets.map(([name, policy]) => this.deps.cache.consume(name, policy, nowMs)));
    const taken = budgets.filter((_, i) => decisions[i]?.allowed);
    if (taken.length === budgets.length) return taken;
    await this.releaseFailureBudgets(taken, nowMs);
    throw new BudgetSpent(
      Math.max(1, ...decisions.map((d) => (d.allowed ? 0 : (d.retryAfterSeconds ?? d.resetSeconds)))),
    );
  }

  /** Hands back what reserveFailureBudgets took: the secret matched, or it was never checked. */
  private async releaseFailureBudgets(
    taken: readonly (readonly [string, RateLimitPolicy])[],
    nowMs: number,
  ): Promise<void> {
    await Promise.all(taken.map(([name, policy]) => this.deps.cache.release(name, policy, nowMs)));
  }

  /**
   * The request in the key's usage counts, and lastUsedAt at most once a minute per key: a
   * process-local gate, then a shared one in the cache so several processes do not all write.
   * Never awaited by the request; a failure is logged.
   */
  private recordUse(id: number, now: Date): void {
    const nowMs = now.getTime();
    countUse(this.deps.cache, id, nowMs).catch((error: unknown) =>
      this.deps.logger.warn({ err: error, apiKeyId: id }, 'could not count an API key use'),
    );
    const last = this.lastRecorded.get(id);
    if (last !== undefined && nowMs - last < LAST_USED_EVERY_MS) return;
    this.lastRecorded.set(id, nowMs);
    const gate = `apikey:used:${id}`;
    void (async () => {
      if ((await this.deps.cache.get(gate)) !== null) return;
      await this.deps.cache.set(gate, '1', LAST_USED_EVERY_MS / 1000);
      await this.deps.store.recordUse(id, now.toISOString());
    })().catch((error: unknown) => this.deps.logger.warn({ err: error, apiKeyId: id }, 'could not record lastUsedAt'));
  }
}

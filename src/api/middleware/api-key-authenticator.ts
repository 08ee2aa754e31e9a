import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import { parseApiKey } from '../../domain/auth/api-key-format';
import { DomainError } from '../../domain/errors';
import type { Actor } from '../../domain/event';
import type { RateLimitDecision, RateLimitPolicy } from '../../domain/rate-limit';
import { API_KEY_VERIFY_POLICY, apiKeyRatePolicy } from '../../domain/rate-limit';
import type { SecretHasher } from '../../infra/auth/secret-hasher';
import type { Cache, RateLimiter } from '../../infra/cache/cache';
import type { Logger } from '../../infra/logger';
import type { ApiKeyRecord, ApiKeyStore } from '../../projections/apikeys/apikey-store';
import type { ApiKeyAuthenticator } from './authenticate';

/** A verified key stays cached this long at most (and never past its expiry or grace). */
const VERIFIED_TTL_SECONDS = 3600;
/** lastUsedAt is written at most this often per key (SPEC.md "Limits"). */
const LAST_USED_EVERY_MS = 60_000;

const unauthenticated = (reason: string) => new DomainError('unauthenticated', reason);
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** DESIGN.md "Rate limit": the DESIGN headers and the IETF draft's RateLimit-Policy / RateLimit pair. */
export function setRateLimitHeaders(res: Response, policy: RateLimitPolicy, decision: RateLimitDecision): void {
  res.setHeader('RateLimit-Limit', String(decision.limit));
  res.setHeader('RateLimit-Remaining', String(decision.remaining));
  res.setHeader('RateLimit-Reset', String(decision.resetSeconds));
  res.setHeader('RateLimit-Policy', `"hourly";q=${policy.limit};w=${policy.windowSeconds}`);
  res.setHeader('RateLimit', `"hourly";r=${decision.remaining};t=${decision.resetSeconds}`);
}

/**
 * X-API-Key authentication, cheapest refusal first:
 *  1. shape and CRC32 checksum (pure): a mistyped or truncated key is refused before any I/O;
 *  2. the key's row by keyId (one indexed read-model lookup): unknown → 401 without hashing;
 *     revoked or expired → 401. This check runs on every request, on every process, so a
 *     revocation or an expiry takes effect at the next request wherever it lands;
 *  3. the verified-key cache, under SHA-256 of the whole key (never the key): its value names
 *     the argon2 hash that matched, so it only stands while that hash is still the key's current
 *     secret, or its previous one within the grace of a rotation;
 *  4. otherwise argon2id, after taking one attempt from the per-key-id and per-address
 *     verification budgets, so a flood of wrong secrets costs no CPU and never touches the
 *     key's own quota;
 *  5. the key's hourly quota (shared in Redis), with the RateLimit headers on every answer.
 */
export class ApiKeyVerifier implements ApiKeyAuthenticator {
  private readonly quota: RateLimitPolicy;
  private readonly lastRecorded = new Map<number, number>();

  constructor(
    private readonly deps: {
      readonly store: ApiKeyStore;
      readonly cache: Cache & RateLimiter;
      readonly hasher: SecretHasher;
      readonly clock: () => Date;
      readonly logger: Logger;
      readonly limitPerHour: number;
    },
  ) {
    this.quota = apiKeyRatePolicy(deps.limitPerHour);
  }

  async authenticate(key: string, req: Request, res: Response): Promise<Omit<Actor, 'impersonatorId'>> {
    const parsed = parseApiKey(key.trim());
    if (!parsed.ok) {
      throw unauthenticated(
        parsed.reason === 'checksum' ? 'the API key checksum does not match: it is mistyped or truncated' : 'the API key is malformed',
      );
    }
    const record = await this.deps.store.byKeyId(parsed.keyId);
    if (!record) throw unauthenticated('unknown API key');
    const now = this.deps.clock();
    const nowMs = now.getTime();
    if (record.revoked) throw unauthenticated('the API key has been revoked');
    if (Date.parse(record.expiresAt) <= nowMs) throw unauthenticated('the API key has expired');

    if (!(await this.verified(key, parsed.secret, record, nowMs, req, res))) throw unauthenticated('the API key is not valid');

    const decision = await this.deps.cache.consume(`apikey:${record.id}`, this.quota, nowMs);
    setRateLimitHeaders(res, this.quota, decision);
    if (!decision.allowed) {
      res.setHeader('Retry-After', String(decision.retryAfterSeconds ?? decision.resetSeconds));
      throw new DomainError('rate_limited', `the API key's rate limit of ${this.quota.limit} requests an hour is exceeded`);
    }
    this.recordUse(record.id, now);
    return { userId: record.userId, credential: 'apiKey', apiKeyId: record.id };
  }

  private async verified(key: string, secret: string, record: ApiKeyRecord, nowMs: number, req: Request, res: Response): Promise<boolean> {
    const inGrace = record.graceSecretHash !== null && record.graceUntil !== null && nowMs < Date.parse(record.graceUntil);
    const cacheKey = `apikey:verified:${sha256(key)}`;
    const cached = await this.deps.cache.get(cacheKey);
    if (cached !== null) {
      if (sameText(cached, `${record.id}:${record.secretHash}`)) return true;
      if (inGrace && sameText(cached, `${record.id}:${record.graceSecretHash ?? ''}`)) return true;
    }

    await this.takeVerificationAttempt(record.id, req, res);
    let matched: string | null = null;
    if (await this.deps.hasher.verify(record.secretHash, secret)) matched = record.secretHash;
    else if (inGrace && record.graceSecretHash && (await this.deps.hasher.verify(record.graceSecretHash, secret))) {
      matched = record.graceSecretHash;
    }
    if (matched === null) return false;

    const endsMs = Math.min(Date.parse(record.expiresAt), matched === record.secretHash ? Infinity : Date.parse(record.graceUntil ?? ''));
    const ttlSeconds = Math.min(VERIFIED_TTL_SECONDS, (endsMs - nowMs) / 1000);
    if (ttlSeconds > 0) await this.deps.cache.set(cacheKey, `${record.id}:${matched}`, ttlSeconds);
    return true;
  }

  /** One argon2 run from the key id's budget and the client address's; 429 when either is spent. */
  private async takeVerificationAttempt(id: number, req: Request, res: Response): Promise<void> {
    const nowMs = this.deps.clock().getTime();
    const address = req.socket.remoteAddress ?? 'unknown';
    const [byKey, byAddress] = await Promise.all([
      this.deps.cache.consume(`apikey-verify:key:${id}`, API_KEY_VERIFY_POLICY, nowMs),
      this.deps.cache.consume(`apikey-verify:ip:${address}`, API_KEY_VERIFY_POLICY, nowMs),
    ]);
    const refused = [byKey, byAddress].filter((d) => !d.allowed);
    if (refused.length > 0) {
      const retryAfter = Math.max(...refused.map((d) => d.retryAfterSeconds ?? d.resetSeconds));
      res.setHeader('Retry-After', String(retryAfter));
      throw new DomainError('rate_limited', 'too many failed API key attempts: try again later');
    }
  }

  /**
   * lastUsedAt, at most once a minute per key: a process-local gate, then a shared one in the
   * cache so several processes do not all write. Never awaited by the request; a failure is logged.
   */
  private recordUse(id: number, now: Date): void {
    const nowMs = now.getTime();
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

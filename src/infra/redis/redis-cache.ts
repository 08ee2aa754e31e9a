import net from 'node:net';
import tls from 'node:tls';
import { Redis } from 'ioredis';
import { assertValidNow, assertValidPolicy } from '../../domain/rate-limit';
import type { Cache, RateLimitDecision, RateLimitPolicy, RateLimiter } from '../../ports/cache';
import { assertValidTtl } from '../../ports/cache';

/**
 * consumeRateLimit (src/domain/rate-limit.ts) transcribed to Lua, so that read, decide and write
 * happen in one atomic step however many processes share the key. Keep the two in step: the cache
 * contract test runs the same scenarios against both.
 *
 * One hash per key: k ('c' counting | 'l' locked), ws (window start ms), c (count), lu (locked
 * until ms), va (last violation ms, -1 for none), vl (its lockout seconds). Lua numbers are doubles,
 * as in JavaScript, so the arithmetic gives the same results; numbers are written with %.0f because
 * Lua's default formatting would round large millisecond values.
 *
 * Returns {allowed 1|0, limit, remaining, resetSeconds, retryAfterSeconds or -1}.
 */
const CONSUME_LUA = `
local key = KEYS[1]
local now = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local windowMs = tonumber(ARGV[3]) * 1000
local baseLockout = tonumber(ARGV[4])
local maxLockout = tonumber(ARGV[5])
local memoryMs = tonumber(ARGV[6]) * 1000

local function ceilSeconds(ms) return math.ceil(ms / 1000) end
local function num(x) return string.format('%.0f', x) end

local s = redis.call('HMGET', key, 'k', 'ws', 'c', 'lu', 'va', 'vl')
local kind = s[1]
local ws = tonumber(s[2])
local count = tonumber(s[3])
local lu = tonumber(s[4])
local va = tonumber(s[5])
local vl = tonumber(s[6])

if kind == 'l' and now < lu then
  local retryAfter = math.max(1, ceilSeconds(lu - now))
  return {0, limit, 0, retryAfter, retryAfter}
end

if not (kind == 'c' and now < ws + windowMs) then
  ws = now
  count = 0
end
local windowLeft = ceilSeconds(ws + windowMs - now)
if va == nil or va < 0 or not (now - va < memoryMs) then
  va = -1
  vl = 0
end

local function save(k, c, lockedUntil)
  redis.call('HSET', key, 'k', k, 'ws', num(ws), 'c', num(c), 'lu', num(lockedUntil), 'va', num(va), 'vl', num(vl))
  local expiresAt = math.max(ws + windowMs, lockedUntil)
  if va >= 0 then expiresAt = math.max(expiresAt, va + memoryMs) end
  redis.call('PEXPIRE', key, num(math.max(1, expiresAt - now)))
end

if count < limit then
  save('c', count + 1, 0)
  return {1, limit, limit - count - 1, windowLeft, -1}
end

local lockout
if va < 0 then
  lockout = baseLockout
else
  lockout = math.min(vl * 2, maxLockout)
end
va = now
vl = lockout
save('l', 0, now + lockout * 1000)
return {0, limit, 0, lockout, lockout}
`;

/** releaseRateLimit (src/domain/rate-limit.ts) in Lua: one count handed back in a window still open. */
const RELEASE_LUA = `
local key = KEYS[1]
local now = tonumber(ARGV[1])
local windowMs = tonumber(ARGV[2]) * 1000
local s = redis.call('HMGET', key, 'k', 'ws', 'c')
local ws = tonumber(s[2])
local count = tonumber(s[3])
if s[1] == 'c' and ws ~= nil and count ~= nil and count > 0 and now < ws + windowMs then
  redis.call('HSET', key, 'c', string.format('%.0f', count - 1))
end
return 0
`;

type ConsumeReply = [number, number, number, number, number];
type WithConsume = Redis & {
  prsRateLimitConsume(key: string, ...args: number[]): Promise<ConsumeReply>;
  prsRateLimitRelease(key: string, ...args: number[]): Promise<number>;
};

/** How long one Redis command may take: they take well under a millisecond on a healthy server. */
export const REDIS_COMMAND_TIMEOUT_MS = 1000;
/**
 * ioredis's own bound on a command, far past ours: it fails what a dead connection still queues,
 * which `withinDeadline` has already answered (its timer cannot tell a slow server from this
 * process's own stall, so it must not be the one that decides).
 */
const REDIS_QUEUE_TIMEOUT_MS = 10 * REDIS_COMMAND_TIMEOUT_MS;

/**
 * `command`'s answer, or an error once REDIS_COMMAND_TIMEOUT_MS have passed and the process has
 * read its sockets since. A timer that fires after the event loop was held (a burst of requests
 * being parsed on a loaded machine) first lets the loop read what arrived meanwhile (setImmediate
 * runs after the poll phase), so a reply that was there is used. Taking this process's stall for
 * Redis's would switch it to per-process rate limits: a burst split between two processes once
 * admitted 1,042 requests under a limit of 1,000.
 */
function withinDeadline<T>(command: Promise<T>, givenUp: () => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(
      () =>
        setImmediate(() => {
          if (settled) return;
          settled = true;
          givenUp();
          reject(new Error(`redis: no answer within ${REDIS_COMMAND_TIMEOUT_MS} ms`));
        }),
      REDIS_COMMAND_TIMEOUT_MS,
    );
    const settle = (then: () => void) => {
      clearTimeout(timer);
      if (settled) return;
      settled = true;
      then();
    };
    command.then(
      (value) => settle(() => resolve(value)),
      (error: unknown) => settle(() => reject(error)),
    );
  });
}
/** The idle time before TCP keepalive starts probing the connection (the OS default is two hours). */
const REDIS_KEEPALIVE_MS = 10_000;

/**
 * The production adapter over Redis. Cache values live at `<prefix>c:<key>`, rate-limit state at
 * `<prefix>rl:<key>`.
 */
export class RedisCache implements Cache, RateLimiter {
  private constructor(
    private readonly redis: WithConsume,
    private readonly keyPrefix: string,
  ) {}

  /**
   * Connects on first use. A dead Redis makes each command fail after one reconnect attempt
   * (milliseconds when refused, at most about twice connectTimeout when unreachable) rather than
   * queue forever, so requests fail fast instead of hanging; ioredis keeps reconnecting meanwhile.
   */
  static connect(url: string, keyPrefix = 'prs:'): RedisCache {
    const redis = new Redis(url, {
      lazyConnect: true,
      maxRetriesPerRequest: 1,
      connectTimeout: 2000,
      // On close after a failed connect, ioredis waits this long for a socket that is already gone
      // (its 2 s default keeps a shutting-down process alive for nothing).
      disconnectTimeout: 200,
      // A Redis that stops answering without closing the connection (a frozen host, a dropped
      // route) would hold every API-key request and readiness: each command gives up after this
      // long (withinDeadline), and TCP keepalive probes the idle connection so the kernel notices it is gone.
      commandTimeout: REDIS_QUEUE_TIMEOUT_MS,
      keepAlive: REDIS_KEEPALIVE_MS,
      // A command given up was answered from the process: sent again on a new connection it
      // would count a second time (a rate limit's increment) or write what is no longer meant.
      autoResendUnfulfilledCommands: false,
    });
    // Without a listener ioredis prints every connection error itself; the failing command's
    // rejection already reports it to the caller.
    redis.on('error', () => {});
    redis.defineCommand('prsRateLimitConsume', { numberOfKeys: 1, lua: CONSUME_LUA });
    redis.defineCommand('prsRateLimitRelease', { numberOfKeys: 1, lua: RELEASE_LUA });
    return new RedisCache(redis as WithConsume, keyPrefix);
  }

  async get(key: string): Promise<string | null> {
    return this.within(this.redis.get(this.cacheKey(key)));
  }

  async set(key: string, value: string, ttlSeconds: number): Promise<void> {
    assertValidTtl(ttlSeconds);
    await this.within(this.redis.set(this.cacheKey(key), value, 'PX', Math.max(1, Math.ceil(ttlSeconds * 1000))));
  }

  async del(key: string): Promise<void> {
    await this.within(this.redis.del(this.cacheKey(key)));
  }

  async increment(key: string, ttlSeconds: number): Promise<number> {
    assertValidTtl(ttlSeconds);
    const name = this.cacheKey(key);
    const results = await this.within(
      this.redis
        .multi()
        .incr(name)
        .pexpire(name, Math.max(1, Math.ceil(ttlSeconds * 1000)))
        .exec(),
    );
    const [error, count] = results?.[0] ?? [new Error('redis: the increment was discarded'), null];
    if (error) throw error;
    return Number(count);
  }

  async counts(keys: readonly string[]): Promise<number[]> {
    if (keys.length === 0) return [];
    const values = await this.within(this.redis.mget(keys.map((key) => this.cacheKey(key))));
    return values.map((value) => (value === null ? 0 : Number(value) || 0));
  }

  async consume(key: string, policy: RateLimitPolicy, nowMs: number): Promise<RateLimitDecision> {
    // Lua would not reject a bad policy; fail the same way as the embedded adapter.
    assertValidPolicy(policy);
    assertValidNow(nowMs);
    const [allowed, limit, remaining, resetSeconds, retryAfter] = await this.within(
      this.redis.prsRateLimitConsume(
        `${this.keyPrefix}rl:${key}`,
        nowMs,
        policy.limit,
        policy.windowSeconds,
        policy.baseLockoutSeconds,
        policy.maxLockoutSeconds,
        policy.violationMemorySeconds,
      ),
    );
    const decision = { allowed: allowed === 1, limit, remaining, resetSeconds };
    return retryAfter < 0 ? decision : { ...decision, retryAfterSeconds: retryAfter };
  }

  async release(key: string, policy: RateLimitPolicy, nowMs: number): Promise<void> {
    assertValidPolicy(policy);
    assertValidNow(nowMs);
    await this.within(this.redis.prsRateLimitRelease(`${this.keyPrefix}rl:${key}`, nowMs, policy.windowSeconds));
  }

  async ping(): Promise<void> {
    await this.within(this.redis.ping());
  }

  async close(): Promise<void> {
    if (this.redis.status === 'end') return;
    if (this.redis.status === 'ready') {
      await this.redis.quit();
    } else {
      // quit() would wait for a connection that may never come.
      this.redis.disconnect();
    }
  }

  /**
   * `command` within its deadline. Past it the connection is reset, and ioredis makes a new one:
   * a reset discards what the kernel still held to send, so a command given up (and answered from
   * the process) never reaches Redis later, when the link comes back.
   */
  private within<T>(command: Promise<T>): Promise<T> {
    return withinDeadline(command, () => {
      if (this.redis.status !== 'ready') return;
      const socket = (this.redis as { stream?: unknown }).stream;
      try {
        // A TLS connection's socket is no plain TCP one, and refuses a reset: it is closed instead.
        if (socket instanceof net.Socket && !(socket instanceof tls.TLSSocket)) return void socket.resetAndDestroy();
      } catch {
        // closed below
      }
      this.redis.disconnect(true);
    });
  }

  private cacheKey(key: string): string {
    return `${this.keyPrefix}c:${key}`;
  }
}

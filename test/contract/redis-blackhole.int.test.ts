/**
 * A Redis that stops answering without closing the connection: the proxy in front of the local
 * Redis drops every byte while the sockets stay open. Requests (API keys, rate limits) and
 * readiness must not hang on it: the outage policy answers from the in-process cache, readiness
 * says degraded, and Redis is used again once it answers. No timing is asserted: without a
 * command timeout these calls never resolve and the test fails on jest's own timeout.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { REDIS_COMMAND_TIMEOUT_MS, RedisCache } from '../../src/infra/redis/redis-cache';
import { ResilientCache } from '../../src/infra/redis/resilient-cache';
import { createLogger } from '../../src/observability/logger';
import { blackholeProxy } from '../support/blackhole-proxy';
import { describeExternal, externalTarget } from '../support/external';

const redis = externalTarget('redis');
const policy = { limit: 5, windowSeconds: 60, baseLockoutSeconds: 1, maxLockoutSeconds: 2, violationMemorySeconds: 60 };

describeExternal('Redis that stops answering (a black-holing proxy in front of Redis)', redis, () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  async function cacheBehindProxy() {
    const url = new URL(redis.kind === 'url' ? redis.url : 'redis://127.0.0.1:6379');
    const proxy = await blackholeProxy({ host: url.hostname, port: Number(url.port || 6379) });
    const prefix = `prs-test-${randomUUID()}:`;
    const cache = new ResilientCache(RedisCache.connect(proxy.url, prefix), createLogger('silent'), 20);
    cleanups.push(async () => {
      await cache.close();
      await proxy.close();
    });
    return { proxy, cache, prefix, direct: url.toString() };
  }

  it('given a connection that stops carrying bytes, when a request reads and counts, then it is answered from the process and readiness says degraded', async () => {
    // given: the cache works through the proxy, then the proxy black-holes
    const { proxy, cache } = await cacheBehindProxy();
    await cache.set('k', 'shared', 60);
    expect(await cache.get('k')).toBe('shared');
    proxy.blackhole();
    // when
    const read = await cache.get('k');
    const decision = await cache.consume('key-1', policy, Date.now());
    const health = await cache.health();
    // then: answered by the per-process fallback (which never saw 'k'), counted there
    expect(read).toBeNull();
    expect(decision).toMatchObject({ allowed: true, remaining: 4 });
    expect(health).toBe('degraded');
    expect(cache.degraded).toBe(true);
  });

  it('given a count sent into the black hole and given up, when the link returns, then Redis never counts it', async () => {
    // given: one count through the proxy, then a second one sent into the black hole, answered from the process
    const { proxy, cache, prefix, direct } = await cacheBehindProxy();
    expect(await cache.increment('n', 60)).toBe(1);
    proxy.blackhole();
    expect(await cache.increment('n', 60)).toBe(1);
    // when: the connection the count was sent on is closed by the client (as a reset discards what
    // the kernel still held to send), then the link carries again and the cache is back on Redis
    while (proxy.closedByClient() === 0) await new Promise((resolve) => setImmediate(resolve));
    proxy.restore();
    while ((await cache.health()) !== 'ok') await new Promise((resolve) => setImmediate(resolve));
    // then: the count given up never reached Redis, and was not sent again on the new connection
    const reader = new Redis(direct);
    cleanups.push(async () => void reader.disconnect());
    expect(await reader.get(`${prefix}c:n`)).toBe('1');
  });

  it('given a black hole that clears, then readiness is ok again and the shared store answers', async () => {
    // given
    const { proxy, cache } = await cacheBehindProxy();
    await cache.set('k', 'shared', 60);
    proxy.blackhole();
    expect(await cache.health()).toBe('degraded');
    // when
    proxy.restore();
    // then: once a probe gets through (waited for, not timed), the value kept in Redis is read again
    while ((await cache.health()) !== 'ok') await new Promise((resolve) => setImmediate(resolve));
    expect(await cache.get('k')).toBe('shared');
  });

  it('given this process busy for longer than the command timeout while the reply waits in its socket, then the reply is used and no outage is declared', async () => {
    // given: a Redis that answers, reached directly
    const url = redis.kind === 'url' ? redis.url : 'redis://127.0.0.1:6379';
    const cache = new ResilientCache(RedisCache.connect(url, `prs-test-${randomUUID()}:`), createLogger('silent'), 20);
    cleanups.push(() => cache.close());
    await cache.set('k', 'shared', 60);
    // when: a read and a count are sent, and the event loop is held (a burst of requests being
    // parsed, a long synchronous task) past the timeout before it reads the replies
    const read = cache.get('k');
    const decision = cache.consume('key-2', policy, Date.now());
    const until = performance.now() + REDIS_COMMAND_TIMEOUT_MS * 1.5;
    while (performance.now() < until);
    // then: the shared store's answers, and the shared store still in use
    expect(await read).toBe('shared');
    expect(await decision).toMatchObject({ allowed: true, remaining: 4 });
    expect(cache.degraded).toBe(false);
  });
});

/**
 * A Redis that refuses the service's credentials: the service goes on from the in-process cache
 * and says so in its log, and the line names neither the password nor what the refused command
 * carried (ioredis attaches the failed AUTH, arguments and all, to the error it raises).
 */
import { randomUUID } from 'node:crypto';
import { RedisCache } from '../../src/infra/redis/redis-cache';
import { ResilientCache } from '../../src/infra/redis/resilient-cache';
import { createLogger } from '../../src/observability/logger';
import { describeExternal, externalTarget } from '../support/external';

const redis = externalTarget('redis');

describeExternal('Redis refusing the credentials', redis, () => {
  it('given a user and password Redis does not know, when the cache is used, then it answers from the process and no log line holds the password', async () => {
    // given: the local Redis, with a user it has no account for
    const url = new URL(redis.kind === 'url' ? redis.url : 'redis://127.0.0.1:6379');
    url.username = `prs-test-${randomUUID().slice(0, 8)}`;
    url.password = 'S3cret-Passw0rd-never-logged';
    const lines: string[] = [];
    const cache = new ResilientCache(
      RedisCache.connect(url.toString(), `prs-test-${randomUUID()}:`),
      createLogger('info', { write: (line) => void lines.push(line) }),
      20,
    );
    try {
      // when
      const value = await cache.get('some-key');

      // then: answered from the process, the outage logged, the credentials nowhere in it
      expect(value).toBeNull();
      expect(lines.some((line) => line.includes('cache unreachable'))).toBe(true);
      expect(lines.join('\n')).not.toContain('S3cret-Passw0rd-never-logged');
    } finally {
      await cache.close();
    }
  });
});

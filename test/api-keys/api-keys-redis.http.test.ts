/**
 * API keys across processes and through a Redis outage:
 *  - two servers on one DATA_DIR and one Redis (a unique key prefix): a revocation made on one is
 *    refused at the next request on the other, and both count one shared quota;
 *  - a Redis of our own (redis-server on a spare port) stopped and started again: requests keep
 *    being served on a per-process budget, readiness says `cache: "degraded"`, and counting
 *    resumes in Redis when it is back.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { demo, demoDirectory } from '../support/demo-directory';
import { describeExternal, externalTarget } from '../support/external';
import type { TestServer } from '../support/test-server';
import { startTestServer } from '../support/test-server';
import { startTwoProcessesOnRedis, stopTwoProcessesOnRedis } from '../support/two-processes-on-redis';

async function newKey(server: TestServer, userId: number = demo.users.admin1): Promise<{ id: number; key: string }> {
  const res = await server.post('/api/apikey', { name: 'shared' }, { token: await server.sessionToken(userId) });
  expect(res.status).toBe(200);
  return res.body;
}

/** Polls `check` until it holds: waits for a reconnection, it measures no time. */
async function eventually(check: () => Promise<boolean>, attempts = 100): Promise<void> {
  for (let i = 0; i < attempts; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('condition never held');
}

describeExternal('API keys on two processes sharing DATA_DIR and Redis', externalTarget('redis'), () => {
  const prefix = `prs-test-apikeys:${randomUUID()}:`;
  let a: TestServer;
  let b: TestServer;

  beforeAll(async () => {
    ({ a, b } = await startTwoProcessesOnRedis(prefix, { RATE_LIMIT_PER_HOUR: '4' }));
  });
  afterAll(() => stopTwoProcessesOnRedis(prefix, a, b));

  it('given a key used on both servers, when it is revoked on one, then the next request on the other is 401', async () => {
    const key = await newKey(a);
    expect((await a.get('/api/user/getcurrent', { apiKey: key.key })).status).toBe(200);
    expect((await b.get('/api/user/getcurrent', { apiKey: key.key })).status).toBe(200);

    const revoked = await a.request('DELETE', `/api/apikey/${key.id}`, undefined, {
      token: await a.sessionToken(demo.users.admin1),
    });

    expect(revoked.status).toBe(204);
    expect((await b.get('/api/user/getcurrent', { apiKey: key.key })).status).toBe(401);
    expect((await a.get('/api/user/getcurrent', { apiKey: key.key })).status).toBe(401);
  });

  it('given requests alternating between the servers, then they count down one shared quota', async () => {
    const key = await newKey(a);
    const remaining: (string | null)[] = [];
    for (const server of [a, b, a, b])
      remaining.push(
        (await server.get('/api/user/getcurrent', { apiKey: key.key })).headers.get('ratelimit-remaining'),
      );

    expect(remaining).toEqual(['3', '2', '1', '0']);
    expect((await b.get('/api/user/getcurrent', { apiKey: key.key })).status).toBe(429);
  });
});

/** redis-server on a spare port, or the reason it cannot run here. */
function redisServerBinary(): string | null {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'pipe' });
    return 'redis-server';
  } catch {
    if (process.env.CI === 'true')
      throw new Error('CI=true but redis-server is not installed: the Redis outage test must run in CI');
    return null;
  }
}

const binary = redisServerBinary();
describeExternal(
  'API keys through a Redis outage',
  binary ? { kind: 'url', url: 'redis-server' } : { kind: 'skip', reason: 'redis-server is not installed' },
  () => {
    const port = 6390 + Math.floor(Math.random() * 500);
    const url = `redis://127.0.0.1:${port}`;
    const prefix = `prs-test-outage:${randomUUID()}:`;
    let server: TestServer;
    let probe: Redis;

    const startRedis = () =>
      execFileSync('redis-server', ['--port', String(port), '--save', '', '--appendonly', 'no', '--daemonize', 'yes'], {
        stdio: 'pipe',
      });
    const stopRedis = () => execFileSync('redis-cli', ['-p', String(port), 'shutdown', 'nosave'], { stdio: 'pipe' });
    const redisUp = async () =>
      probe.ping().then(
        () => true,
        () => false,
      );
    const readiness = async () =>
      (await server.get('/health/ready')).body as { status: string; checks: { cache: string } };

    beforeAll(async () => {
      startRedis();
      probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
      probe.on('error', () => {});
      await eventually(redisUp);
      server = await startTestServer({ REDIS_URL: url, REDIS_KEY_PREFIX: prefix, RATE_LIMIT_PER_HOUR: '100' });
      expect((await server.directory(demoDirectory.events)).status).toBe(200);
    });
    afterAll(async () => {
      await server?.close();
      probe?.disconnect();
      try {
        stopRedis();
      } catch {
        // already stopped
      }
    });

    it('given Redis stops and starts again, then requests are served throughout, readiness says degraded, and counting resumes in Redis', async () => {
      const key = await newKey(server);
      const counted = async () => Number(await probe.hget(`${prefix}rl:apikey:${key.id}`, 'c'));
      const first = await server.get('/api/user/getcurrent', { apiKey: key.key });
      expect(first.headers.get('ratelimit-remaining')).toBe('99');
      expect(await counted()).toBe(1);
      expect(await readiness()).toMatchObject({ status: 'ready', checks: { cache: 'ok' } });

      stopRedis();

      const during = await Promise.all([1, 2, 3].map(() => server.get('/api/user/getcurrent', { apiKey: key.key })));
      expect(during.map((r) => r.status)).toEqual([200, 200, 200]);
      expect(during.every((r) => r.headers.get('ratelimit-limit') === '100')).toBe(true);
      const degraded = await server.get('/health/ready');
      expect(degraded.status).toBe(200);
      expect(degraded.body).toMatchObject({ status: 'ready', checks: { cache: 'degraded' } });

      startRedis();
      await eventually(redisUp);
      await eventually(async () => (await readiness()).checks.cache === 'ok');

      const after = await server.get('/api/user/getcurrent', { apiKey: key.key });
      expect(after.status).toBe(200);
      // This Redis kept nothing (--save ''), so its count starts again from this request.
      expect(after.headers.get('ratelimit-remaining')).toBe('99');
      expect(await counted()).toBe(1);
    });
  },
);

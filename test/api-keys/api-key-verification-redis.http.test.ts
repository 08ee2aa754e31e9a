/**
 * API keys under concurrency and attack across two processes sharing DATA_DIR and one Redis (a
 * unique key prefix): the quota is exact under a burst split between them, each process verifies
 * a burst of first uses once at most, and a wrong-secret budget spent through one process is spent
 * on the other too — for the attacker's address only. Skipped, with the reason printed, where no
 * Redis answers (REDIS_URL, or the local default).
 */
import http from 'node:http';
import { randomBytes, randomUUID } from 'node:crypto';
import { newSecret } from '../../src/api-keys/api-key-format';
import { API_KEY_FAILURES_PER_KEY_AND_ADDRESS } from '../../src/domain/rate-limit';
import { demo } from '../support/demo-directory';
import { describeExternal, externalTarget } from '../support/external';
import type { TestServer } from '../support/test-server';
import { startTwoProcessesOnRedis, stopTwoProcessesOnRedis } from '../support/two-processes-on-redis';

type Key = { id: number; key: string; keyId: string };

async function newKey(server: TestServer): Promise<Key> {
  const res = await server.post(
    '/api/apikey',
    { name: 'burst' },
    { token: await server.sessionToken(demo.users.admin1) },
  );
  expect(res.status).toBe(200);
  return res.body as Key;
}

/** A GET /api/user/getcurrent with `apiKey` from the local address `from`, on its own connection: its status. */
function statusOf(server: TestServer, apiKey: string, from = '127.0.0.1'): Promise<number> {
  const url = new URL('/api/user/getcurrent', server.url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        headers: { 'x-api-key': apiKey },
        localAddress: from,
        agent: false,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function argon2Runs(server: TestServer): Promise<number> {
  const res = await server.get('/internal/metrics', {
    headers: { 'x-directory-token': server.services.secrets.directoryToken },
  });
  const count = (outcome: string) =>
    Number(new RegExp(`^api_key_verifications_total\\{outcome="${outcome}"\\} (\\d+)$`, 'm').exec(res.text)?.[1] ?? 0);
  return count('match') + count('mismatch');
}

describeExternal('API key verification on two processes sharing Redis', externalTarget('redis'), () => {
  const prefix = `prs-test-akv:${randomUUID()}:`;
  let a: TestServer;
  let b: TestServer;

  beforeAll(async () => {
    // These bursts test the shared budgets and quota, not shedding (its own suite): a verification
    // waits for a free slot as long as a burst on a loaded machine needs, instead of the 1 s after
    // which it would be shed with a 503.
    ({ a, b } = await startTwoProcessesOnRedis(prefix, {
      RATE_LIMIT_PER_HOUR: '1000',
      API_KEY_VERIFY_WAIT_MS: '30000',
    }));
  });
  afterAll(() => stopTwoProcessesOnRedis(prefix, a, b));
  // The bursts below are a thousand requests each: correctness under contention, not speed (the
  // bench measures that). On PostgreSQL every request also reads the change feed and the key's
  // document, which on a loaded 2-core machine takes longer than jest's default 30 s.
  jest.setTimeout(120_000);

  it('given 50 wrong secrets sent at once from one address to both processes, then together they run no more argon2 than the budget holds', async () => {
    // Each process reserves a unit of the shared budget (atomically, in Redis) before it hashes.
    const key = await newKey(a);
    const before = (await argon2Runs(a)) + (await argon2Runs(b));
    const wrong = () => `${key.keyId}.${newSecret(key.keyId, randomBytes)}`;

    const statuses = await Promise.all(
      Array.from({ length: 50 }, (_, i) => statusOf(i % 2 === 0 ? a : b, wrong(), '127.0.0.8')),
    );

    const after = (await argon2Runs(a)) + (await argon2Runs(b));
    expect(after - before).toBeLessThanOrEqual(API_KEY_FAILURES_PER_KEY_AND_ADDRESS.limit);
    expect(statuses.filter((s) => s !== 401 && s !== 429)).toEqual([]);
  });

  it('given a limit of 1,000 an hour, when 1,050 first uses of a new key arrive at once on both processes, then exactly 1,000 are admitted', async () => {
    const key = await newKey(a);
    const before = [await argon2Runs(a), await argon2Runs(b)];

    const statuses = await Promise.all(Array.from({ length: 1050 }, (_, i) => statusOf(i % 2 === 0 ? a : b, key.key)));

    expect(statuses.filter((s) => s === 200)).toHaveLength(1000);
    expect(statuses.filter((s) => s === 429)).toHaveLength(50);
    // Each process verified the key once at most: its concurrent requests waited on that one run.
    expect((await argon2Runs(a)) - (before[0] ?? 0)).toBeLessThanOrEqual(1);
    expect((await argon2Runs(b)) - (before[1] ?? 0)).toBeLessThanOrEqual(1);
  });

  it('given 1,000 wrong secrets for key X from address A on one process, then A is refused on the other too, and the owner from B gets 200 there', async () => {
    const key = await newKey(a);
    const statuses: number[] = [];
    for (let sent = 0; sent < 1000; sent += 20) {
      const batch = Array.from({ length: 20 }, () =>
        statusOf(a, `${key.keyId}.${newSecret(key.keyId, randomBytes)}`, '127.0.0.2'),
      );
      statuses.push(...(await Promise.all(batch)));
    }
    expect(statuses.slice(-20)).toEqual(Array(20).fill(429));
    const runsOnB = await argon2Runs(b);

    expect(await statusOf(b, `${key.keyId}.${newSecret(key.keyId, randomBytes)}`, '127.0.0.2')).toBe(429);
    expect(await argon2Runs(b)).toBe(runsOnB);
    expect(await statusOf(b, key.key, '127.0.0.1')).toBe(200);
  });
});

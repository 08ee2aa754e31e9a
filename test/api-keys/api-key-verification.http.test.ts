/**
 * API keys under concurrency and attack, over real HTTP:
 *  - concurrent first uses of one key wait on a single argon2 run, counted by the service's own
 *    metric (`api_key_verifications_total` on /internal/metrics);
 *  - wrong secrets spend budgets of the caller's own address only: the key's owner, elsewhere,
 *    verifies it with a cold cache; correct secrets spend no budget at all;
 *  - behind a trusted proxy (TRUST_PROXY) the address is the one the proxy names, and it is
 *    recorded in the events' metadata; with TRUST_PROXY off a forged X-Forwarded-For changes nothing;
 *  - past the bound on concurrent verifications: 503 with Retry-After, and no budget spent;
 *  - the quota admits exactly its limit under a concurrent burst.
 * A second client address is 127.0.0.2, the loopback network's: the test binds its socket there.
 */
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { newSecret } from '../../src/api-keys/api-key-format';
import { API_KEY_FAILURES_PER_KEY_AND_ADDRESS } from '../../src/domain/rate-limit';
import { demo } from '../support/demo-directory';
import type { TestServer } from '../support/test-server';
import { manualClock, seeded } from '../support/seeded-server';
import { openPersonalData } from '../../src/audit/personal-data';

type Key = { id: number; key: string; keyId: string };
type Answer = { status: number; headers: http.IncomingHttpHeaders; body: any };

async function newKey(server: TestServer, userId: number = demo.users.admin1): Promise<Key> {
  const res = await server.post('/api/apikey', { name: 'verification' }, { token: await server.sessionToken(userId) });
  expect(res.status).toBe(200);
  return res.body as Key;
}

const wrongSecretFor = (key: Key): string => `${key.keyId}.${newSecret(key.keyId, randomBytes)}`;

/** One request from the local address `from` (127.0.0.1 unless told), on its own connection. */
function send(
  server: TestServer,
  options: {
    path?: string;
    method?: string;
    apiKey: string;
    from?: string;
    headers?: Record<string, string>;
    body?: unknown;
  },
): Promise<Answer> {
  const url = new URL(options.path ?? '/api/user/getcurrent', server.url);
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  const headers: Record<string, string> = { 'x-api-key': options.apiKey, ...options.headers };
  if (payload !== undefined) headers['content-type'] = 'application/json';
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: options.method ?? 'GET',
        headers,
        localAddress: options.from,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: text === '' ? undefined : JSON.parse(text),
          });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** How many argon2 runs this server made, by outcome, read from its Prometheus metrics. */
async function verifications(server: TestServer): Promise<{ match: number; mismatch: number; busy: number }> {
  const res = await server.get('/internal/metrics', {
    headers: { 'x-directory-token': server.services.secrets.directoryToken },
  });
  expect(res.status).toBe(200);
  const count = (outcome: string) =>
    Number(new RegExp(`^api_key_verifications_total\\{outcome="${outcome}"\\} (\\d+)$`, 'm').exec(res.text)?.[1] ?? 0);
  return { match: count('match'), mismatch: count('mismatch'), busy: count('busy') };
}

const runs = (v: { match: number; mismatch: number }): number => v.match + v.mismatch;

/** `total` wrong secrets for `key`, `inParallel` at a time: the statuses, in order of the batches. */
async function attack(
  server: TestServer,
  key: Key,
  total: number,
  options: { from?: string; headers?: () => Record<string, string> } = {},
) {
  const statuses: number[] = [];
  const inParallel = 20;
  for (let sent = 0; sent < total; sent += inParallel) {
    const batch = Array.from({ length: Math.min(inParallel, total - sent) }, () =>
      send(server, { apiKey: wrongSecretFor(key), from: options.from, headers: options.headers?.() }),
    );
    statuses.push(...(await Promise.all(batch)).map((r) => r.status));
  }
  return statuses;
}

/**
 * A server whose bursts wait for a verification slot as long as they need: these suites test the
 * budgets and quotas, and on a loaded machine a burst of argon2 runs outlasts the default wait and
 * would be shed (503) instead. Shedding has its suite, with its own bound.
 */
const unshed = (env: Record<string, string>, clock?: () => Date) =>
  seeded({ API_KEY_VERIFY_WAIT_MS: '30000', ...env }, clock);

describe('API key verification, one process, TRUST_PROXY off', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await unshed({ RATE_LIMIT_PER_HOUR: '100000000', API_KEY_CAP: '100' });
  });
  afterAll(() => server.close());

  it('given 50 wrong secrets sent at once from one fresh address, then no more argon2 runs than its budget holds', async () => {
    // The budget is reserved before each hash: concurrent wrong secrets cannot all pass a check made
    // before any of them was counted.
    const key = await newKey(server);
    const before = await verifications(server);

    const answers = await Promise.all(
      Array.from({ length: 50 }, () => send(server, { apiKey: wrongSecretFor(key), from: '127.0.0.9' })),
    );

    const after = await verifications(server);
    const budget = API_KEY_FAILURES_PER_KEY_AND_ADDRESS.limit;
    expect(runs(after) - runs(before)).toBeLessThanOrEqual(budget);
    expect(answers.filter((a) => a.status === 401).length).toBeLessThanOrEqual(budget);
    expect(answers.filter((a) => a.status !== 401).every((a) => a.status === 429)).toBe(true);
  });

  it('given a new valid key, when 50 requests use it at once, then all 50 are 200 and argon2 runs once', async () => {
    const key = await newKey(server);
    const before = await verifications(server);

    const answers = await Promise.all(Array.from({ length: 50 }, () => send(server, { apiKey: key.key })));

    expect(answers.map((a) => a.status)).toEqual(Array(50).fill(200));
    expect(answers.every((a) => a.body.apiKeyId === key.id)).toBe(true);
    const after = await verifications(server);
    expect(after.match - before.match).toBe(1);
    expect(after.mismatch - before.mismatch).toBe(0);
  });

  it('given 1,000 wrong secrets for key X from address A, when the owner uses X from address B with a cold cache, then 200', async () => {
    const key = await newKey(server);
    const before = await verifications(server);

    const statuses = await attack(server, key, 1000, { from: '127.0.0.2' });

    expect(statuses.every((s) => s === 401 || s === 429)).toBe(true);
    expect(statuses.slice(-20)).toEqual(Array(20).fill(429));
    // Refused before hashing once the attacker's budget is spent: far fewer runs than attempts.
    expect(runs(await verifications(server)) - runs(before)).toBeLessThanOrEqual(50);

    const owner = await send(server, { apiKey: key.key, from: '127.0.0.1' });
    expect(owner.status).toBe(200);
    expect(owner.body.apiKeyId).toBe(key.id);
    // The attacker is still refused, also with the correct key's neighbours: their budget is theirs.
    const again = await send(server, { apiKey: wrongSecretFor(key), from: '127.0.0.2' });
    expect(again.status).toBe(429);
    expect(again.body.type).toBe('/problems/rate-limited');
    expect(Number(again.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('given 30 keys never used before, when each is used once from one address, then every one is 200: correct secrets spend no budget', async () => {
    const keys: Key[] = [];
    for (const userId of [demo.users.admin1, demo.users.admin2])
      for (let i = 0; i < 15; i++) keys.push(await newKey(server, userId));

    const statuses: number[] = [];
    for (const key of keys) statuses.push((await send(server, { apiKey: key.key })).status);

    expect(statuses).toEqual(Array(30).fill(200));
  });

  it('given TRUST_PROXY off, when an attacker forges a new X-Forwarded-For on every wrong secret, then their address is still the TCP peer: refused', async () => {
    const key = await newKey(server);
    let n = 0;
    const forged = () => ({ 'x-forwarded-for': `198.51.100.${(n++ % 250) + 1}` });

    const statuses = await attack(server, key, 100, { from: '127.0.0.3', headers: forged });

    expect(statuses.slice(-20)).toEqual(Array(20).fill(429));
  });
});

describe('API key verification behind a trusted proxy (TRUST_PROXY=loopback)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await unshed({ RATE_LIMIT_PER_HOUR: '100000000', TRUST_PROXY: 'loopback' });
  });
  afterAll(() => server.close());

  const attacker = { 'x-forwarded-for': '203.0.113.7' };
  const owner = { 'x-forwarded-for': '198.51.100.20' };
  /** A resource created with `key`, through the proxy's `headers`. */
  const saveWithKey = (key: Key, headers: Record<string, string>, name: string) =>
    send(server, {
      method: 'POST',
      path: '/api/Resource/SaveProjectResource',
      apiKey: key.key,
      headers,
      body: {
        id: 0,
        name,
        resourceUrl: 'https://example.org/p.pdf',
        privacyLevel: 1,
        communityProjectId: demo.communityProjects.solarIn1,
      },
    });

  it('given 1,000 wrong secrets for key X from client A through the proxy, when the owner uses X from client B with a cold cache, then 200', async () => {
    const key = await newKey(server);

    const statuses = await attack(server, key, 1000, { headers: () => attacker });

    expect(statuses.slice(-20)).toEqual(Array(20).fill(429));
    expect((await send(server, { apiKey: key.key, headers: owner })).status).toBe(200);
    expect((await send(server, { apiKey: wrongSecretFor(key), headers: attacker })).status).toBe(429);
  });

  it('given wrong secrets from many IPv6 addresses of one /64, then they share one budget; another /64 has its own', async () => {
    const key = await newKey(server);
    const budget = API_KEY_FAILURES_PER_KEY_AND_ADDRESS.limit;
    const inNetwork = (i: number) => ({ 'x-forwarded-for': `2001:db8:7:1:${(i + 1).toString(16)}::1` });

    const spent: number[] = [];
    for (let i = 0; i < budget; i++)
      spent.push((await send(server, { apiKey: wrongSecretFor(key), headers: inNetwork(i) })).status);
    const sameNetwork = await send(server, { apiKey: wrongSecretFor(key), headers: inNetwork(budget + 5) });
    const otherNetwork = await send(server, {
      apiKey: wrongSecretFor(key),
      headers: { 'x-forwarded-for': '2001:db8:7:2::1' },
    });
    const mappedV4 = await send(server, {
      apiKey: wrongSecretFor(key),
      headers: { 'x-forwarded-for': '::ffff:192.0.2.44' },
    });

    expect(spent).toEqual(Array(budget).fill(401));
    expect(sameNetwork.status).toBe(429);
    expect(otherNetwork.status).toBe(401);
    expect(mappedV4.status).toBe(401);
  });

  it('given a write through the proxy, then its events record the client address the proxy named', async () => {
    const key = await newKey(server);
    const before = await server.services.eventStore.headPosition();

    const saved = await saveWithKey(key, owner, 'Via proxy');

    expect(saved.status).toBe(200);
    // Stored sealed under the person's key; opened as the audit opens it. The id's allocation
    // records no address (the resource's own events do).
    const events = (
      await openPersonalData(await server.services.eventStore.readAll(before, 100), server.services.personalDataKeys)
    ).filter((event) => event.type !== 'IdAllocated');
    expect(events.map((event) => event.type)).toContain('ResourceCreated');
    for (const event of events)
      expect(event.metadata).toMatchObject({ actor: { apiKeyId: key.id }, clientAddress: '198.51.100.20' });
  });

  it.each([
    ['a value that looks sealed', 'sealed:v1:6:AAAA'],
    ['a name', 'client.example'],
  ])(
    'given a forwarded address that is no IP address (%s), then the TCP peer is recorded instead, sealed',
    async (_what, forwarded) => {
      const key = await newKey(server);
      const before = await server.services.eventStore.headPosition();

      const saved = await saveWithKey(key, { 'x-forwarded-for': forwarded }, 'Forwarded text');

      expect(saved.status).toBe(200);
      const stored = (await server.services.eventStore.readAll(before, 100)).filter(
        (e) => e.type === 'ResourceCreated',
      );
      expect(stored).toHaveLength(1);
      expect(stored[0]!.metadata.clientAddress).not.toBe(forwarded);
      const [opened] = await openPersonalData(stored, server.services.personalDataKeys);
      expect(opened!.metadata.clientAddress).toMatch(/^(127\.0\.0\.1|::1|::ffff:127\.0\.0\.1)$/);
    },
  );
});

describe('API key verification past the bound on concurrent argon2 runs', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await seeded({ API_KEY_CAP: '100', API_KEY_VERIFY_CONCURRENCY: '1', API_KEY_VERIFY_WAIT_MS: '0' });
  });
  afterAll(() => server.close());

  it('given one verification at a time and no wait, when 8 new keys are used at once, then the excess is 503 with Retry-After, and each works on retry', async () => {
    const keys: Key[] = [];
    for (let i = 0; i < 8; i++) keys.push(await newKey(server));

    const answers = await Promise.all(keys.map((key) => send(server, { apiKey: key.key })));

    expect(answers.every((a) => a.status === 200 || a.status === 503)).toBe(true);
    const shed = answers.filter((a) => a.status === 503);
    expect(shed.length).toBeGreaterThan(0);
    for (const answer of shed) {
      expect(answer.body.type).toBe('/problems/unavailable');
      expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
    }
    expect((await verifications(server)).busy).toBeGreaterThanOrEqual(shed.length);
    // A refusal for lack of capacity spends no budget and no quota: one at a time, every key works.
    for (const key of keys) {
      const res = await send(server, { apiKey: key.key });
      expect(res.status).toBe(200);
    }
  });
});

describe('API key quota under a concurrent burst, one process', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await unshed({ RATE_LIMIT_PER_HOUR: '100' });
  });
  afterAll(() => server.close());

  it('given a limit of 100 an hour, when 150 first uses of a new key arrive at once, then exactly 100 are admitted and 50 are 429', async () => {
    const key = await newKey(server);

    const answers = await Promise.all(Array.from({ length: 150 }, () => send(server, { apiKey: key.key })));

    expect(answers.filter((a) => a.status === 200)).toHaveLength(100);
    const refused = answers.filter((a) => a.status !== 200);
    expect(refused).toHaveLength(50);
    expect(refused.every((a) => a.status === 429 && a.body.type === '/problems/rate-limited')).toBe(true);
  });
});

/**
 * A keyId is public (logs, screenshots, the key list): a 401 to a caller who has not proved the
 * secret says the same whatever the key's state, and only the holder of the right secret of a
 * revoked or expired key is told which.
 */
describe('the reason a 401 gives for an API key', () => {
  const clock = manualClock();
  let server: TestServer;
  beforeAll(async () => {
    server = await unshed({ API_KEY_CAP: '100' }, clock.now);
  });
  afterAll(() => server.close());

  const reason = (answer: Answer) => answer.headers['www-authenticate'];
  const revokedKey = async () => {
    const key = await newKey(server);
    const res = await server.request('DELETE', `/api/apikey/${key.id}`, undefined, {
      token: await server.token(demo.users.admin1),
    });
    expect(res.status).toBe(204);
    return key;
  };
  const unknownKey = (): string => {
    const keyId = `svc_live_${randomBytes(12).toString('base64url').replace(/[-_]/g, 'x').slice(0, 16)}`;
    return `${keyId}.${newSecret(keyId, randomBytes)}`;
  };

  it('given a revoked key, a live key and an unknown keyId, when each is sent with a wrong secret, then all three 401s give the same reason', async () => {
    const revoked = await revokedKey();
    const live = await newKey(server);

    const answers = await Promise.all([
      send(server, { apiKey: wrongSecretFor(revoked) }),
      send(server, { apiKey: wrongSecretFor(live) }),
      send(server, { apiKey: unknownKey() }),
    ]);

    expect(answers.map((a) => a.status)).toEqual([401, 401, 401]);
    expect(new Set(answers.map(reason)).size).toBe(1);
    expect(reason(answers[0]!)).not.toMatch(/revoked|expired|unknown/);
  });

  it('given a revoked key, when its right secret is sent, then 401 saying it was revoked', async () => {
    const revoked = await revokedKey();

    const answer = await send(server, { apiKey: revoked.key });

    expect(answer.status).toBe(401);
    expect(reason(answer)).toMatch(/revoked/);
  });

  it('given an expired key, when its wrong secret is sent then its right one, then only the right one is told it expired', async () => {
    const created = await server.post(
      '/api/apikey',
      { name: 'short', expiresInDays: 1 },
      { token: await server.token(demo.users.admin1) },
    );
    expect(created.status).toBe(200);
    const key = created.body as Key;
    clock.advance(2 * 24 * 3600 * 1000);

    const wrong = await send(server, { apiKey: wrongSecretFor(key) });
    const right = await send(server, { apiKey: key.key });

    expect([wrong.status, right.status]).toEqual([401, 401]);
    expect(reason(wrong)).not.toMatch(/expired/);
    expect(reason(right)).toMatch(/expired/);
  });
});

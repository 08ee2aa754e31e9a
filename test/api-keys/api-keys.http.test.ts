/**
 * API keys over HTTP (docs/api.md POST/GET/DELETE /api/apikey, "Authentication", "Limits"; docs/api.md
 * "Credentials", "Rate limit"): every error the contract names, the cap under concurrent creation,
 * rotation with grace, expiry and lockouts on an injected clock (never by sleeping).
 */
import { randomBytes } from 'node:crypto';
import { newKeyId, newSecret } from '../../src/api-keys/api-key-format';
import { demo } from '../support/demo-directory';
import type { HttpResult, TestServer } from '../support/test-server';
import { manualClock, seeded } from '../support/seeded-server';

const DAY_MS = 86_400_000;

/** Minted at the service's clock, so it holds however far a test moved that clock. */
async function createKey(server: TestServer, userId: number, body: unknown = { name: 'ci' }): Promise<HttpResult<any>> {
  return server.post('/api/apikey', body, { token: await server.token(userId) });
}

async function newKey(server: TestServer, userId: number = demo.users.admin1, body: unknown = { name: 'ci' }) {
  const res = await createKey(server, userId, body);
  expect(res.status).toBe(200);
  return res.body as { id: number; key: string; keyId: string; name: string; createdAt: string; expiresAt: string };
}

/** Key management calls that a session would answer with 400 (an unknown field, a bad id, a bad graceHours). */
const MANAGEMENT_CALLS_THAT_WOULD_BE_400: [string, string, string, unknown][] = [
  ['POST /api/apikey', 'POST', '/api/apikey', { pagesize: 1 }],
  ['GET /api/apikey', 'GET', '/api/apikey', undefined],
  ['DELETE /api/apikey/{id}', 'DELETE', '/api/apikey/abc', undefined],
  ['POST /api/apikey/{id}/rotate', 'POST', '/api/apikey/1/rotate', { graceHours: -1 }],
];

const flipLast = (key: string) => key.slice(0, -1) + (key.endsWith('a') ? 'b' : 'a');

describe('API keys', () => {
  const clock = manualClock();
  let server: TestServer;

  beforeAll(async () => {
    server = await seeded({ RATE_LIMIT_PER_HOUR: '1000', API_KEY_CAP: '1000' }, clock.now);
  });
  afterAll(() => server.close());
  // Every first use of a key runs argon2 and takes one attempt from the client address's
  // verification budget, which all these tests share: each test starts a day later, so that its
  // budget and quota hold whatever ran before it. Sessions are minted at that time (session()).
  beforeEach(() => {
    clock.advance(DAY_MS);
  });
  const session = (userId: number) => server.token(userId);

  describe('creation', () => {
    it('given a community admin with a session, when a key is created, then the flat record with the plaintext key, once', async () => {
      const res = await createKey(server, demo.users.admin1, { name: '  nightly export  ', expiresInDays: 30 });

      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        id: expect.any(Number),
        key: expect.stringMatching(/^svc_live_[0-9A-Za-z]{16}\.[0-9A-Za-z]{49}$/),
        keyId: expect.stringMatching(/^svc_live_/),
        name: 'nightly export',
        createdAt: clock.now().toISOString(),
        expiresAt: new Date(clock.now().getTime() + 30 * DAY_MS).toISOString(),
        readOnly: false,
        ratePerHour: 1000,
      });
      expect(res.body.key.startsWith(`${res.body.keyId}.`)).toBe(true);
      const listed = await server.get('/api/apikey', { token: await session(demo.users.admin1) });
      expect(listed.text).not.toContain(res.body.key.split('.')[1]);
    });

    it('given no expiresInDays, when created, then it expires in 90 days', async () => {
      const key = await newKey(server);

      expect(Date.parse(key.expiresAt) - Date.parse(key.createdAt)).toBe(90 * DAY_MS);
    });

    it('given a created key, when the event log is read, then it holds the argon2id hash and never the secret', async () => {
      const key = await newKey(server);
      const events = await server.services.eventStore.readStream(`apikeys-${demo.users.admin1}`);
      const log = JSON.stringify(events, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v));

      expect(log).not.toContain(key.key.split('.')[1]);
      const created = events.find((e) => (e.data as { id: number }).id === key.id);
      expect(created?.type).toBe('ApiKeyCreated');
      expect((created?.data as { secretHash: string }).secretHash).toMatch(/^\$argon2id\$v=19\$m=19456,p=1,t=2\$/);
      expect(created?.metadata.actor).toEqual({ userId: demo.users.admin1, credential: 'session' });
    });

    it.each([
      ['an empty name', { name: '' }, 'name'],
      ['a blank name', { name: '   ' }, 'name'],
      ['a 101-character name', { name: 'x'.repeat(101) }, 'name'],
      ['no name', {}, 'name'],
      ['expiresInDays 0', { name: 'k', expiresInDays: 0 }, 'expiresInDays'],
      ['expiresInDays 181', { name: 'k', expiresInDays: 181 }, 'expiresInDays'],
      ['expiresInDays 1.5', { name: 'k', expiresInDays: 1.5 }, 'expiresInDays'],
      ['expiresInDays "30"', { name: 'k', expiresInDays: '30' }, 'expiresInDays'],
    ])('given %s, when created, then 400 naming the field, and nothing is created', async (_case, body, field) => {
      const token = await session(demo.users.admin2);
      const before = await server.get('/api/apikey', { token });

      const res = await createKey(server, demo.users.admin2, body);

      expect(res.status).toBe(400);
      expect(res.body.type).toBe('/problems/validation');
      expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual([field]);
      expect((await server.get('/api/apikey', { token })).body).toEqual(before.body);
    });

    it('given a 100-character name, when created, then it is accepted', async () => {
      expect((await newKey(server, demo.users.admin1, { name: 'y'.repeat(100) })).name).toHaveLength(100);
    });

    it.each([
      ['an approved member who administers nothing', demo.users.member1],
      ['a user with no membership', demo.users.outsider],
      ['a banned user', demo.users.banned],
    ])('given %s, when creating a key, then 403', async (_case, userId) => {
      const res = await createKey(server, userId);

      expect(res.status).toBe(403);
      expect(res.body.type).toBe('/problems/forbidden');
    });

    it('given no credential, when creating a key, then 401', async () => {
      const res = await server.post('/api/apikey', { name: 'x' });

      expect(res.status).toBe(401);
      expect(res.body.type).toBe('/problems/unauthenticated');
    });
  });

  describe('authenticating with X-API-Key', () => {
    it('given a key, when getcurrent is called with it, then the credential is apiKey and apiKeyId its id, with the rate-limit headers', async () => {
      const key = await newKey(server);

      const res = await server.get('/api/user/getcurrent', { apiKey: key.key });

      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        id: demo.users.admin1,
        credential: 'apiKey',
        apiKeyId: key.id,
        impersonatorId: null,
      });
      expect(res.headers.get('ratelimit-limit')).toBe('1000');
      expect(res.headers.get('ratelimit-remaining')).toBe('999');
      expect(res.headers.get('ratelimit-reset')).toBe('3600');
      expect(res.headers.get('ratelimit-policy')).toBe('"hourly";q=1000;w=3600');
      expect(res.headers.get('ratelimit')).toBe('"hourly";r=999;t=3600');
    });

    it('given a session, when getcurrent is called, then no rate-limit header (bearer sessions are not limited)', async () => {
      const res = await server.get('/api/user/getcurrent', { token: await session(demo.users.admin1) });

      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBeNull();
    });

    it('given a key, when a resource is saved with it, then the event metadata names the key', async () => {
      const key = await newKey(server, demo.users.admin1);
      const res = await server.post(
        '/api/Resource/SaveProjectResource',
        {
          id: 0,
          name: 'by key',
          resourceUrl: 'https://example.org/a.pdf',
          privacyLevel: 1,
          communityProjectId: demo.communityProjects.solarIn1,
        },
        { apiKey: key.key },
      );
      expect(res.status).toBe(200);

      const events = await server.services.eventStore.readStream(`resource-${res.body.id}`);
      expect(events[0]?.metadata.actor).toEqual({ userId: demo.users.admin1, credential: 'apiKey', apiKeyId: key.id });
    });

    it.each([
      ['a mistyped secret (bad checksum)', (k: string) => flipLast(k)],
      ['a truncated key', (k: string) => k.slice(0, -3)],
      ['a key id nobody has (checksum right)', () => 'svc_live_0000000000000000.' + '0'.repeat(43) + 'xxxxxx'],
      ['garbage', () => 'not-a-key'],
    ])('given %s, when used, then 401 with WWW-Authenticate', async (_case, damage) => {
      const key = await newKey(server);

      const res = await server.get('/api/user/getcurrent', { apiKey: damage(key.key) });

      expect(res.status).toBe(401);
      expect(res.body.type).toBe('/problems/unauthenticated');
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="api"/);
    });

    it('given a well-formed key for an unknown id, when used, then 401 without hashing', async () => {
      const keyId = newKeyId(randomBytes);

      const res = await server.get('/api/user/getcurrent', { apiKey: `${keyId}.${newSecret(keyId, randomBytes)}` });

      expect(res.status).toBe(401);
    });

    it('given the right key id with a wrong but well-formed secret, when used, then 401', async () => {
      const key = await newKey(server);

      const res = await server.get('/api/user/getcurrent', {
        apiKey: `${key.keyId}.${newSecret(key.keyId, randomBytes)}`,
      });

      expect(res.status).toBe(401);
    });

    it('given a key in Authorization: Bearer, or both headers, then 401', async () => {
      const key = await newKey(server);
      const token = await session(demo.users.admin1);

      expect(
        (await server.get('/api/user/getcurrent', { headers: { authorization: `Bearer ${key.key}` } })).status,
      ).toBe(401);
      expect((await server.get('/api/user/getcurrent', { token, apiKey: key.key })).status).toBe(401);
    });

    it('given a key whose user is then banned, when used, then 403 as for sessions', async () => {
      const key = await newKey(server, demo.users.admin2);
      await server.directory([
        { type: 'UserUpserted', data: { userId: demo.users.admin2, name: 'Finn', status: 'banned' } },
      ]);
      try {
        const res = await server.get('/api/user/getcurrent', { apiKey: key.key });
        expect(res.status).toBe(403);
        expect(res.body.type).toBe('/problems/forbidden');
      } finally {
        await server.directory([
          { type: 'UserUpserted', data: { userId: demo.users.admin2, name: 'Finn', status: 'active' } },
        ]);
      }
    });

    // Each request would be a 400 from a session (an unknown field, a bad id, a bad graceHours): the
    // 403 shows the credential is refused before the request is read.
    it.each(MANAGEMENT_CALLS_THAT_WOULD_BE_400)(
      'given a key, when %s is called with it, then 403 before the request is read',
      async (_case, method, path, body) => {
        const key = await newKey(server);

        const res = await server.request(method, path, body, { apiKey: key.key });

        expect(res.status).toBe(403);
        expect(res.body.type).toBe('/problems/forbidden');
      },
    );

    it.each([
      ['POST /api/apikey', 'POST', '/api/apikey', { name: 'x' }],
      ['POST /api/apikey/{id}/rotate', 'POST', '/api/apikey/{id}/rotate', { graceHours: 0 }],
      ['DELETE /api/apikey/{id}', 'DELETE', '/api/apikey/{id}', undefined],
    ])(
      'given a key, when %s is called with it on its own key, then 403 and the key is unchanged',
      async (_c, method, path, body) => {
        const key = await newKey(server);
        const stream = `apikeys-${demo.users.admin1}`;
        const before = (await server.services.eventStore.readStream(stream)).length;

        const res = await server.request(method, path.replace('{id}', String(key.id)), body, { apiKey: key.key });

        expect(res.status).toBe(403);
        expect(res.body.type).toBe('/problems/forbidden');
        expect(await server.services.eventStore.readStream(stream)).toHaveLength(before);
        expect((await server.get('/api/user/getcurrent', { apiKey: key.key })).status).toBe(200);
      },
    );
  });

  describe('key management by someone impersonating the user', () => {
    // Hal (an active user) acting as Cleo: the grant ends with Hal's account, a key would not.
    const impersonation = () => server.token(demo.users.admin1, { impersonatorId: demo.users.outsider });

    it('given an impersonation session, when it reads getcurrent, then it acts as the user (the session itself works)', async () => {
      const res = await server.get('/api/user/getcurrent', { token: await impersonation() });

      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: demo.users.admin1, impersonatorId: demo.users.outsider });
    });

    it.each(MANAGEMENT_CALLS_THAT_WOULD_BE_400)(
      'given an impersonation session, when %s is called, then 403 before the request is read',
      async (_case, method, path, body) => {
        const res = await server.request(method, path, body, { token: await impersonation() });

        expect(res.status).toBe(403);
        expect(res.body.type).toBe('/problems/forbidden');
      },
    );

    it('given an impersonation session, when it creates a key for 180 days, then 403 and no key is created', async () => {
      const token = await session(demo.users.admin1);
      const before = (await server.get('/api/apikey', { token })).body;

      const res = await server.post(
        '/api/apikey',
        { name: 'mine now', expiresInDays: 180 },
        { token: await impersonation() },
      );

      expect(res.status).toBe(403);
      expect(res.body.type).toBe('/problems/forbidden');
      expect(res.body.key).toBeUndefined();
      expect((await server.get('/api/apikey', { token })).body).toEqual(before);
    });

    it("given the user's key, when an impersonation session rotates it with graceHours 0 or revokes it, then 403 and the key still works", async () => {
      const key = await newKey(server);

      const rotated = await server.post(
        `/api/apikey/${key.id}/rotate`,
        { graceHours: 0 },
        { token: await impersonation() },
      );
      const revoked = await server.request('DELETE', `/api/apikey/${key.id}`, undefined, {
        token: await impersonation(),
      });

      expect([rotated.status, revoked.status]).toEqual([403, 403]);
      expect([rotated.body.type, revoked.body.type]).toEqual(['/problems/forbidden', '/problems/forbidden']);
      expect((await server.get('/api/user/getcurrent', { apiKey: key.key })).status).toBe(200);
      const events = await server.services.eventStore.readStream(`apikeys-${demo.users.admin1}`);
      expect(events.filter((e) => e.metadata.actor.impersonatorId !== undefined)).toEqual([]);
    });
  });

  describe('listing, expiry and revocation', () => {
    it('given keys, when listed, then a bare array newest first, no secret, with lastUsedAt and isExpired', async () => {
      const first = await newKey(server, demo.users.admin1, { name: 'first', expiresInDays: 1 });
      clock.advance(1000);
      const second = await newKey(server, demo.users.admin1, { name: 'second' });
      await server.get('/api/user/getcurrent', { apiKey: second.key });
      const token = await session(demo.users.admin1);

      const res = await server.get('/api/apikey', { token });

      expect(res.status).toBe(200);
      expect(Array.isArray(res.body)).toBe(true);
      const ids = res.body.map((k: { id: number }) => k.id);
      expect(ids.indexOf(second.id)).toBeLessThan(ids.indexOf(first.id));
      const item = res.body.find((k: { id: number }) => k.id === second.id);
      expect(Object.keys(item).sort()).toEqual([
        'createdAt',
        'expiresAt',
        'id',
        'isExpired',
        'keyId',
        'lastUsedAt',
        'name',
        'ratePerHour',
        'readOnly',
        'usage',
      ]);
      expect(item).toMatchObject({ keyId: second.keyId, name: 'second', isExpired: false });
      expect(res.text).not.toContain(second.key.split('.')[1]);
    });

    it('given a key past its expiry, when used, then 401; when listed, isExpired true', async () => {
      const key = await newKey(server, demo.users.admin1, { name: 'short', expiresInDays: 1 });
      expect((await server.get('/api/user/getcurrent', { apiKey: key.key })).status).toBe(200);

      clock.advance(DAY_MS);

      expect((await server.get('/api/user/getcurrent', { apiKey: key.key })).status).toBe(401);
      const listed = await server.get('/api/apikey', { token: await session(demo.users.admin1) });
      expect(listed.body.find((k: { id: number }) => k.id === key.id)).toMatchObject({ isExpired: true });
    });

    it('given a cached key, when revoked, then 204, the next request with it is 401, and it is no longer listed', async () => {
      const key = await newKey(server);
      const token = await session(demo.users.admin1);
      expect((await server.get('/api/user/getcurrent', { apiKey: key.key })).status).toBe(200);

      const res = await server.request('DELETE', `/api/apikey/${key.id}`, undefined, { token });

      expect(res.status).toBe(204);
      expect((await server.get('/api/user/getcurrent', { apiKey: key.key })).status).toBe(401);
      expect((await server.get('/api/apikey', { token })).body.map((k: { id: number }) => k.id)).not.toContain(key.id);
      const events = await server.services.eventStore.readStream(`apikeys-${demo.users.admin1}`);
      expect(events.at(-1)).toMatchObject({
        type: 'ApiKeyRevoked',
        metadata: { actor: { credential: 'session', userId: demo.users.admin1 } },
      });
    });

    it.each([
      ["another user's key", async () => (await newKey(server, demo.users.admin2)).id],
      ['a key that does not exist', async () => 999_999],
      [
        'a key already revoked',
        async () => {
          const key = await newKey(server);
          await server.request('DELETE', `/api/apikey/${key.id}`, undefined, {
            token: await session(demo.users.admin1),
          });
          return key.id;
        },
      ],
    ])('given %s, when revoked, then 404', async (_case, idOf) => {
      const id = await idOf();

      const res = await server.request('DELETE', `/api/apikey/${id}`, undefined, {
        token: await session(demo.users.admin1),
      });

      expect(res.status).toBe(404);
      expect(res.body.type).toBe('/problems/not-found');
    });

    it('given a path id that is not a positive integer, when revoked, then 400 naming id', async () => {
      const res = await server.request('DELETE', '/api/apikey/abc', undefined, {
        token: await session(demo.users.admin1),
      });

      expect(res.status).toBe(400);
      expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['id']);
    });
  });

  describe('rotation', () => {
    it('given a key rotated with 2 h of grace, then the answer has the same id and keyId, both secrets work for 2 h, then only the new one', async () => {
      const key = await newKey(server);
      const token = await session(demo.users.admin1);
      expect((await server.get('/api/user/getcurrent', { apiKey: key.key })).status).toBe(200);

      const res = await server.post(`/api/apikey/${key.id}/rotate`, { graceHours: 2 }, { token });

      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        id: key.id,
        keyId: key.keyId,
        name: key.name,
        createdAt: key.createdAt,
        expiresAt: key.expiresAt,
      });
      expect(res.body.key).not.toBe(key.key);
      expect((await server.get('/api/user/getcurrent', { apiKey: key.key })).status).toBe(200);
      expect((await server.get('/api/user/getcurrent', { apiKey: res.body.key })).status).toBe(200);

      clock.advance(2 * 3_600_000);

      expect((await server.get('/api/user/getcurrent', { apiKey: key.key })).status).toBe(401);
      expect((await server.get('/api/user/getcurrent', { apiKey: res.body.key })).status).toBe(200);
    });

    it('given a rotation with graceHours 0, then the old secret stops at once', async () => {
      const key = await newKey(server);
      const token = await session(demo.users.admin1);

      const res = await server.post(`/api/apikey/${key.id}/rotate`, { graceHours: 0 }, { token });

      expect((await server.get('/api/user/getcurrent', { apiKey: key.key })).status).toBe(401);
      expect((await server.get('/api/user/getcurrent', { apiKey: res.body.key })).status).toBe(200);
    });

    it.each([[-1], [169], [1.5], ['24']])(
      'given graceHours %p, when rotating, then 400 naming graceHours',
      async (graceHours) => {
        const key = await newKey(server);

        const res = await server.post(
          `/api/apikey/${key.id}/rotate`,
          { graceHours },
          { token: await session(demo.users.admin1) },
        );

        expect(res.status).toBe(400);
        expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['graceHours']);
      },
    );

    it("given another user's key, when rotating, then 404", async () => {
      const key = await newKey(server, demo.users.admin2);

      const res = await server.post(`/api/apikey/${key.id}/rotate`, {}, { token: await session(demo.users.admin1) });

      expect(res.status).toBe(404);
    });
  });
});

describe('API key cap', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await seeded({ API_KEY_CAP: '10' });
  });
  afterAll(() => server.close());
  // The cap is per user: each test works on keys of its own user.

  it('given 15 creations at once, then exactly 10 succeed and the others answer 409', async () => {
    const results = await Promise.all(
      Array.from({ length: 15 }, (_, i) => createKey(server, demo.users.admin2, { name: `k${i}` })),
    );

    expect(results.filter((r) => r.status === 200)).toHaveLength(10);
    const refused = results.filter((r) => r.status !== 200);
    expect(refused.map((r) => r.status)).toEqual([409, 409, 409, 409, 409]);
    expect(refused.every((r) => r.body.type === '/problems/conflict')).toBe(true);
    const listed = await server.get('/api/apikey', { token: await server.sessionToken(demo.users.admin2) });
    expect(listed.body).toHaveLength(10);
  });

  it('given the cap reached, when one key is revoked, then one more can be created', async () => {
    // given
    const token = await server.sessionToken(demo.users.admin1);
    for (let i = 0; i < 10; i++) await newKey(server, demo.users.admin1, { name: `k${i}` });
    const [first] = (await server.get('/api/apikey', { token })).body as { id: number }[];
    const refused = await createKey(server, demo.users.admin1);
    expect(refused.status).toBe(409);
    expect(refused.body.type).toBe('/problems/conflict');
    // when
    expect((await server.request('DELETE', `/api/apikey/${first?.id}`, undefined, { token })).status).toBe(204);
    // then
    expect((await createKey(server, demo.users.admin1)).status).toBe(200);
  });
});

describe('API key rate limit', () => {
  // A server and a clock per test: the client address's verification budget and the lockouts
  // are shared state, and each test must start from none spent.
  let clock: ReturnType<typeof manualClock>;
  let server: TestServer;
  beforeEach(async () => {
    clock = manualClock();
    server = await seeded({ RATE_LIMIT_PER_HOUR: '3' }, clock.now);
  });
  afterEach(() => server.close());

  /** Uses up the hour's quota and answers the 429 that follows. */
  async function exhaust(key: string): Promise<HttpResult<any>> {
    let res: HttpResult<any>;
    do {
      res = await server.get('/api/user/getcurrent', { apiKey: key });
    } while (res.status === 200);
    return res;
  }

  it('given a key over its quota, then 429 with Retry-After, headers and a problem; lockouts double within 24 h', async () => {
    const key = await newKey(server);
    const lockouts: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await exhaust(key.key);
      expect(res.status).toBe(429);
      expect(res.body.type).toBe('/problems/rate-limited');
      expect(res.headers.get('ratelimit-remaining')).toBe('0');
      expect(res.headers.get('ratelimit-reset')).toBe(res.headers.get('retry-after'));
      lockouts.push(res.headers.get('retry-after') ?? '');

      clock.advance(30_000);
      const during = await server.get('/api/user/getcurrent', { apiKey: key.key });
      expect(during.status).toBe(429);
      expect(Number(during.headers.get('retry-after'))).toBe(Number(lockouts.at(-1)) - 30);
      clock.advance(Number(lockouts.at(-1)) * 1000 - 30_000);
    }

    expect(lockouts).toEqual(['60', '120', '240', '480']);
  });

  it('given a violation more than 24 h ago, when the key goes over again, then the lockout is back to 60 s', async () => {
    const key = await newKey(server);
    await exhaust(key.key);
    clock.advance(24 * 3_600_000);

    expect((await exhaust(key.key)).headers.get('retry-after')).toBe('60');
  });

  it("given a flood of wrong secrets for a real key id, then attempts are refused before hashing and the key's quota is untouched", async () => {
    const key = await newKey(server);
    const first = await server.get('/api/user/getcurrent', { apiKey: key.key });
    expect(first.headers.get('ratelimit-remaining')).toBe('2');

    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) {
      statuses.push(
        (await server.get('/api/user/getcurrent', { apiKey: `${key.keyId}.${newSecret(key.keyId, randomBytes)}` }))
          .status,
      );
    }

    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(10);
    expect(statuses.slice(-10).every((s) => s === 429)).toBe(true);
    const after = await server.get('/api/user/getcurrent', { apiKey: key.key });
    expect(after.status).toBe(200);
    expect(after.headers.get('ratelimit-remaining')).toBe('1');
  });
});

// The key check is remembered even with the read memos off (READ_MEMO=off turns off remembered
// answers of the read models, not the credential check): a revocation must still count at once.
describe('API keys with the read memos off', () => {
  const clock = manualClock();
  let server: TestServer;

  beforeAll(async () => {
    server = await seeded({ RATE_LIMIT_PER_HOUR: '1000', API_KEY_CAP: '1000', READ_MEMO: 'off' }, clock.now);
  });
  afterAll(() => server.close());

  it('given a key checked on earlier requests, when it is revoked, then the next request with it is 401', async () => {
    const key = await newKey(server);
    const token = await server.token(demo.users.admin1);
    for (let i = 0; i < 3; i++)
      expect((await server.get('/api/user/getcurrent', { apiKey: key.key })).status).toBe(200);

    const res = await server.request('DELETE', `/api/apikey/${key.id}`, undefined, { token });

    expect(res.status).toBe(204);
    const next = await server.get('/api/user/getcurrent', { apiKey: key.key });
    expect(next.status).toBe(401);
    expect(next.body.type).toBe('/problems/unauthenticated');
  });
});

import { randomBytes } from 'node:crypto';
import { demo, demoDirectory } from '../support/demo-directory';
import type { TestServer } from '../support/test-server';
import { startTestServer } from '../support/test-server';
import { rebuildAndWait } from '../support/rebuild-job';

describe('foundation over HTTP', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
    const seeded = await server.directory(demoDirectory.events);
    expect(seeded.status).toBe(200);
  });
  afterAll(() => server.close());

  describe('bearer sessions', () => {
    it('given a valid token, getcurrent answers who the caller is', async () => {
      const token = await server.token(demo.users.team);
      const res = await server.get('/api/user/getcurrent', { token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        id: demo.users.team,
        name: 'Ada Lovelace',
        status: 'active',
        credential: 'session',
        apiKeyId: null,
        impersonatorId: null,
      });
    });

    it('given an impersonation token, getcurrent names the impersonator', async () => {
      const token = await server.token(demo.users.member1, { impersonatorId: demo.users.admin1 });
      const res = await server.get('/api/user/getcurrent', { token });
      expect(res.status).toBe(200);
      expect(res.body.impersonatorId).toBe(demo.users.admin1);
    });

    const now = () => Math.floor(Date.now() / 1000);
    const refusals: [string, () => Promise<Record<string, string>>][] = [
      ['a token that is not a JWT', async () => ({ authorization: 'Bearer not-a-jwt' })],
      [
        'an expired token',
        async () => ({
          authorization: `Bearer ${await server.token(1, { issuedAt: now() - 7200, ttlSeconds: 3600 })}`,
        }),
      ],
      [
        'a token living longer than 7 days',
        async () => ({ authorization: `Bearer ${await server.token(1, { ttlSeconds: 8 * 24 * 3600 })}` }),
      ],
      [
        'an impersonation token living longer than 1 hour',
        async () => ({ authorization: `Bearer ${await server.token(1, { impersonatorId: 3, ttlSeconds: 7200 })}` }),
      ],
      [
        'a token signed with another secret',
        async () => ({ authorization: `Bearer ${(await server.token(1)).slice(0, -4)}AAAA` }),
      ],
      [
        'a token for a user the directory does not know',
        async () => ({ authorization: `Bearer ${await server.token(999)}` }),
      ],
      ['an API key in the Authorization header', async () => ({ authorization: 'Bearer svc_live_abc.def' })],
      [
        'both credentials at once',
        async () => ({ authorization: `Bearer ${await server.token(1)}`, 'x-api-key': 'svc_live_abc.def' }),
      ],
    ];

    it.each([
      ['no credential', {}],
      ['another scheme than Bearer', { authorization: 'Token abc' }],
    ])(
      'when the request carries %s, then 401 with a challenge naming no error (RFC 6750) and the reason in the problem',
      async (_name, headers) => {
        const res = await server.get('/api/user/getcurrent', { headers });
        expect(res.status).toBe(401);
        expect(res.headers.get('www-authenticate')).toBe('Bearer realm="api"');
        expect(res.body.type).toBe('/problems/unauthenticated');
        expect(res.body.detail).toMatch(/Bearer/);
      },
    );

    it.each(refusals)(
      'when the request carries %s, then 401 with WWW-Authenticate and a reason',
      async (_name, headers) => {
        const res = await server.get('/api/user/getcurrent', { headers: await headers() });
        expect(res.status).toBe(401);
        expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(res.headers.get('www-authenticate')).toMatch(
          /^Bearer realm="api", error="invalid_token", error_description=".+"$/,
        );
        expect(res.body.type).toBe('/problems/unauthenticated');
        expect(typeof res.body.detail).toBe('string');
      },
    );

    it.each([
      ['banned', demo.users.banned],
      ['inactive', demo.users.inactive],
    ])('given a %s account, every endpoint answers 403', async (_status, userId) => {
      const res = await server.get('/api/user/getcurrent', { token: await server.token(userId) });
      expect(res.status).toBe(403);
      expect(res.body.type).toBe('/problems/forbidden');
    });
  });

  describe('problem details everywhere', () => {
    it('an unknown route is a 404 problem', async () => {
      const res = await server.get('/api/nothing-here', { token: await server.token(1) });
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({ type: '/problems/route-not-found', status: 404 });
    });

    it('malformed JSON is a 400 problem', async () => {
      const res = await server.post('/internal/directory/events', '{"events": [', {
        headers: { 'x-directory-token': server.services.secrets.directoryToken },
      });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ type: '/problems/malformed-json', status: 400 });
      expect(res.text).not.toMatch(/at .*\.(ts|js):\d+/);
    });

    it('a body over the size limit is a 413 problem', async () => {
      const huge = JSON.stringify({ events: [], padding: 'x'.repeat(2 * 1024 * 1024) });
      const res = await server.post('/internal/directory/events', huge, {
        headers: { 'x-directory-token': server.services.secrets.directoryToken },
      });
      expect(res.status).toBe(413);
      expect(res.body.type).toBe('/problems/payload-too-large');
    });
  });

  describe('directory feed', () => {
    const headers = () => ({ 'x-directory-token': server.services.secrets.directoryToken });

    it('refuses a missing or wrong token with 401', async () => {
      const body = { events: [{ type: 'UserUpserted', data: { userId: 50, name: 'X', status: 'active' } }] };
      expect((await server.post('/internal/directory/events', body)).status).toBe(401);
      expect(
        (await server.post('/internal/directory/events', body, { headers: { 'x-directory-token': 'wrong' } })).status,
      ).toBe(401);
    });

    it('given a batch with one bad entry, then 400 names it and nothing of the batch is applied', async () => {
      const res = await server.post(
        '/internal/directory/events',
        {
          events: [
            { type: 'UserUpserted', data: { userId: 60, name: 'Applied?', status: 'active' } },
            { type: 'UserUpserted', data: { userId: -1, name: 'Bad', status: 'active' } },
          ],
        },
        { headers: headers() },
      );
      expect(res.status).toBe(400);
      expect(res.body.type).toBe('/problems/validation');
      expect(res.body.errors.map((e: { field: string }) => e.field)).toContain('events[1].data.userId');
      const check = await server.get('/api/user/getcurrent', { token: await server.token(60) });
      expect(check.status).toBe(401);
    });

    it('an unknown event type is a 400 naming the entry', async () => {
      const res = await server.post(
        '/internal/directory/events',
        { events: [{ type: 'Nope', data: {} }] },
        { headers: headers() },
      );
      expect(res.status).toBe(400);
      expect(res.body.errors[0].field).toMatch(/^events\[0\]/);
    });

    it('a user upserted through the feed can call the API on the next request, and a ban takes effect at once', async () => {
      await server.directory([{ type: 'UserUpserted', data: { userId: 61, name: 'New Person', status: 'active' } }]);
      const token = await server.token(61);
      expect((await server.get('/api/user/getcurrent', { token })).status).toBe(200);
      await server.directory([{ type: 'UserUpserted', data: { userId: 61, name: 'New Person', status: 'banned' } }]);
      expect((await server.get('/api/user/getcurrent', { token })).status).toBe(403);
    });
  });

  describe('health', () => {
    it('live and ready answer 200 when every store answers', async () => {
      expect((await server.get('/health/live')).status).toBe(200);
      const ready = await server.get('/health/ready');
      expect(ready.status).toBe(200);
      expect(ready.body.checks).toEqual({
        eventStore: 'ok',
        readStore: 'ok',
        cache: 'ok',
        projections: 'ok',
        parkedEvents: 'ok',
        process: 'ok',
      });
    });
  });

  describe('metrics', () => {
    it('are refused without the internal token', async () => {
      expect((await server.get('/internal/metrics')).status).toBe(401);
    });

    it('count requests by route template and appended events by stream type', async () => {
      await server.get('/api/user/getcurrent', { token: await server.token(demo.users.team) });
      const res = await server.get('/internal/metrics', {
        headers: { 'x-directory-token': server.services.secrets.directoryToken },
      });
      expect(res.status).toBe(200);
      expect(res.text).toMatch(
        /http_request_duration_seconds_count\{method="GET",route="\/api\/user\/getcurrent",status="200"\} [1-9]/,
      );
      expect(res.text).toMatch(/events_appended_total\{stream_type="directory"\} [1-9]/);
      expect(res.text).toMatch(/read_model_checkpoint_position\{projection="resources"\} [1-9]/);
      expect(res.text).toMatch(/read_model_lag_events\{projection="directory-documents"\} 0/);
      expect(res.text).not.toContain(server.services.secrets.directoryToken);
    });
  });

  describe('metrics read with METRICS_TOKEN', () => {
    const metricsToken = randomBytes(32).toString('base64url');
    let scraped: TestServer;

    beforeAll(async () => {
      scraped = await startTestServer({ METRICS_TOKEN: metricsToken });
    });

    afterAll(async () => {
      await scraped.close();
    });

    it('given the metrics token as a bearer token, then the metrics are served', async () => {
      const res = await scraped.get('/internal/metrics', { headers: { authorization: `Bearer ${metricsToken}` } });

      expect(res.status).toBe(200);
      expect(res.text).toContain('http_request_duration_seconds');
      expect(res.text).not.toContain(metricsToken);
    });

    it('given the directory token, then the metrics are still served', async () => {
      const res = await scraped.get('/internal/metrics', {
        headers: { 'x-directory-token': scraped.services.secrets.directoryToken },
      });

      expect(res.status).toBe(200);
    });

    it('given another bearer token, then 401', async () => {
      const res = await scraped.get('/internal/metrics', {
        headers: { authorization: `Bearer ${randomBytes(32).toString('base64url')}` },
      });

      expect(res.status).toBe(401);
      expect(res.body.type).toBe('/problems/unauthenticated');
    });

    it('given the metrics token on another /internal route, then 401: it reads metrics and nothing else', async () => {
      const res = await scraped.get('/internal/read-models/digest', {
        headers: { authorization: `Bearer ${metricsToken}` },
      });

      expect(res.status).toBe(401);
    });
  });

  describe('read models', () => {
    it('the live read models equal a rebuild from position 0', async () => {
      const headers = { 'x-directory-token': server.services.secrets.directoryToken };
      const before = await server.get('/internal/read-models/digest', { headers });
      const { job, after } = await rebuildAndWait(server);
      expect(job.outcome).toBe('succeeded');
      expect(after.digest).toBe(before.body.digest);
      expect(after.checkpoint).toBe(before.body.checkpoint);
      expect(before.body.counts.doc_dir_users).toBeGreaterThan(5);
    });
  });
});

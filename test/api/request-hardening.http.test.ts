import { MAX_ATTEMPTS } from '../../src/commands/command-handler';
import { WrongExpectedRevisionError } from '../../src/ports/event-store';
import { demo } from '../support/demo-directory';
import { serverForSuite } from '../support/suite-server';

/** Work before authentication, malformed URLs, headers. */
describe('request hardening', () => {
  const server = serverForSuite();

  describe('authentication comes before the body', () => {
    it('given no credential and malformed JSON, then 401 (the body was never parsed)', async () => {
      const res = await server.post('/api/Project/GetResourceList', '{"projectId": [[[[');
      expect(res.status).toBe(401);
      expect(res.body.type).toBe('/problems/unauthenticated');
    });

    it('given no credential and a body over the limit, then 401, not 413', async () => {
      const res = await server.post(
        '/api/Resource/SaveProjectResource',
        JSON.stringify({ pad: 'x'.repeat(2 * 1024 * 1024) }),
      );
      expect(res.status).toBe(401);
    });

    it('given no directory token and malformed JSON on /internal, then 401', async () => {
      const res = await server.post('/internal/directory/events', '{"events": [');
      expect(res.status).toBe(401);
    });

    it('given a credential and malformed JSON, then 400 malformed-json', async () => {
      const res = await server.post('/api/Project/GetResourceList', '{"projectId": [[[[', {
        token: await server.sessionToken(demo.users.team),
      });
      expect(res.status).toBe(400);
      expect(res.body.type).toBe('/problems/malformed-json');
    });
  });

  describe('malformed URLs', () => {
    it.each([
      '/api/ApplicationDefinition/%E0%A4%A/Applications',
      '/api/ApplicationDefinition/%/Applications',
      '/api/ApplicationDefinition/%C0%AF/Applications',
    ])('given %s with a credential, then a 400 problem', async (path) => {
      const res = await server.post(path, {}, { token: await server.sessionToken(demo.users.admin1) });
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(res.body.type).toBe('/problems/validation');
    });

    it.each([
      '/api/Privacy/GetResourcePrivacy?resourceId=%E0%A4%A',
      '/api/Resource/RemoveProjectResource?id=%',
      '/api/%E0%A4%A',
    ])('given %s, then a 4xx problem', async (path) => {
      const res = await server.get(path, { token: await server.sessionToken(demo.users.team) });
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    });
  });

  describe('headers', () => {
    it.each([
      ['an authenticated answer', '/api/user/getcurrent', true],
      ['a refusal', '/api/user/getcurrent', false],
      ['an unknown route', '/nothing', false],
      ['a health check', '/health/live', false],
    ])('given %s, then X-Content-Type-Options is nosniff', async (_label, path, authenticated) => {
      const res = await server.get(path, authenticated ? { token: await server.sessionToken(demo.users.team) } : {});
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    });

    it.each(['/API/user/getcurrent', '/Api/User/GetCurrent'])(
      'given %s, answered as /api/user/getcurrent is, then Cache-Control is no-store too',
      async (path) => {
        const res = await server.get(path, { token: await server.sessionToken(demo.users.team) });
        expect(res.status).toBe(200);
        expect(res.headers.get('cache-control')).toBe('no-store');
      },
    );

    it('given an authenticated answer, then Cache-Control is no-store', async () => {
      const res = await server.get('/api/user/getcurrent', { token: await server.sessionToken(demo.users.team) });
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
    });

    it('given a short safe X-Correlation-Id, then it is echoed', async () => {
      const res = await server.get('/health/live', { headers: { 'x-correlation-id': 'req-42.a_b' } });
      expect(res.headers.get('x-correlation-id')).toBe('req-42.a_b');
    });

    it.each([
      ['too long', 'a'.repeat(65)],
      ['with spaces', 'hello world'],
      ['with a quote and angle brackets', '"><script>'],
      ['with a CRLF-like escape', 'abc%0d%0aSet-Cookie:x'],
    ])('given an X-Correlation-Id %s, then it is replaced by a generated one', async (_label, value) => {
      const res = await server.get('/health/live', { headers: { 'x-correlation-id': value } });
      const echoed = res.headers.get('x-correlation-id');
      expect(echoed).not.toBe(value);
      expect(echoed).toMatch(/^[A-Za-z0-9._-]{1,64}$/);
    });
  });
});

describe('a command whose retries run out', () => {
  const server = serverForSuite();

  it('given a resource stream that always loses the race, when saving, then 503 with Retry-After and nothing appended', async () => {
    const store = server.services.eventStore;
    const append = store.appendToStream.bind(store);
    const before = (await store.readAll(undefined, 100_000)).length;
    // Another writer always got there first: an append to a resource stream that names the
    // revision it read is refused, as the store refuses it after a competing write. Any other
    // append (an unconditional one, another stream) reaches the real store, so a command that got
    // around the contention would be seen below.
    const spy = jest
      .spyOn(store, 'appendToStream')
      .mockImplementation((streamId, events, expected) =>
        streamId.startsWith('resource-') && expected !== 'any'
          ? Promise.reject(new WrongExpectedRevisionError(streamId, expected, 0n))
          : append(streamId, events, expected),
      );
    try {
      const res = await server.post(
        '/api/Resource/SaveProjectResource',
        {
          id: 0,
          name: 'Busy',
          resourceUrl: 'https://example.org/busy',
          privacyLevel: 1,
          communityProjectId: demo.communityProjects.solarIn1,
        },
        { token: await server.sessionToken(demo.users.team) },
      );
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(res.body.type).toBe('/problems/unavailable');
      // it tried, once per attempt, each time at a revision
      const resourceAppends = spy.mock.calls.filter(([streamId]) => streamId.startsWith('resource-'));
      expect(resourceAppends).toHaveLength(MAX_ATTEMPTS);
    } finally {
      spy.mockRestore();
    }
    const resourceEvents = (await store.readAll(undefined, 100_000))
      .slice(before)
      .filter((e) => e.streamId.startsWith('resource-'));
    expect(resourceEvents).toEqual([]);
  });
});

/**
 * What an API key may do and how much (docs/api.md "Scopes and quotas"): a read-only key is refused
 * every route declared as writing, over the route list itself, so a new writing route is covered
 * here without a line added; a key's own hourly quota; the defaults; the bounds of both fields;
 * and the usage the list reports. On an injected clock, never by sleeping.
 */
import { ROUTE_GROUPS } from '../../src/app/route-groups';
import { demo } from '../support/demo-directory';
import type { HttpResult, TestServer } from '../support/test-server';
import { manualClock, seeded } from '../support/seeded-server';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const LIMIT = 50;

const docs = ROUTE_GROUPS.flatMap((group) => group.routes.map((route) => route.doc));
/** The routes an API key can reach that change state. */
const WRITING_ROUTES = docs
  .filter((doc) => doc.writes === true && doc.access === 'api')
  .map((doc) => ({ name: doc.operationId, method: doc.method.toUpperCase(), path: doc.path.replace(/\{\w+\}/g, '1') }));

type IssuedKey = { id: number; key: string; readOnly: boolean; ratePerHour: number };
type ListedKey = IssuedKey & { usage: { lastHour: number; lastDay: number } };

describe('API key scopes and quotas', () => {
  const clock = manualClock();
  let server: TestServer;

  beforeAll(async () => {
    server = await seeded({ RATE_LIMIT_PER_HOUR: String(LIMIT), API_KEY_CAP: '1000' }, clock.now);
  });
  afterAll(() => server.close());
  // Each test an hour and a day later than the last: its quotas and usage windows start empty.
  beforeEach(() => {
    clock.advance(DAY_MS + HOUR_MS);
  });

  async function create(body: unknown, userId: number = demo.users.admin1): Promise<HttpResult<any>> {
    return server.post('/api/apikey', body, { token: await server.token(userId) });
  }
  async function newKey(body: Record<string, unknown> = {}): Promise<IssuedKey> {
    const res = await create({ name: 'scoped', ...body });
    expect(res.status).toBe(200);
    return res.body as IssuedKey;
  }
  async function listed(id: number): Promise<ListedKey> {
    const res = await server.get('/api/apikey', { token: await server.token(demo.users.admin1) });
    expect(res.status).toBe(200);
    return (res.body as ListedKey[]).find((k) => k.id === id)!;
  }
  const readList = (apiKey: string) =>
    server.post('/api/Project/GetResourceList', { projectId: demo.projects.solar }, { apiKey });

  describe('a read-only key', () => {
    it('given the route list, then every route that takes an Idempotency-Key is declared as writing, and the API ones are found', () => {
      expect(docs.filter((doc) => doc.idempotent === true && doc.writes !== true).map((d) => d.operationId)).toEqual(
        [],
      );
      expect(WRITING_ROUTES.map((r) => r.name)).toEqual(
        expect.arrayContaining([
          'saveProjectResource',
          'removeProjectResource',
          'saveResourcePrivacy',
          'unshareResourceFromCommunity',
          'uploadFile',
        ]),
      );
      expect(WRITING_ROUTES.map((r) => r.name)).not.toContain('getResourceList');
    });

    it.each(WRITING_ROUTES)(
      'given a read-only key, when it calls $method $path, then 403 naming its scope, where a full key of the same user is not refused',
      async ({ method, path }) => {
        const readOnly = await newKey({ readOnly: true });
        const full = await newKey();

        const body = method === 'GET' ? undefined : {};
        const refused = await server.request(method, path, body, { apiKey: readOnly.key });
        const allowed = await server.request(method, path, body, { apiKey: full.key });

        expect(refused.status).toBe(403);
        expect(refused.body).toMatchObject({ type: '/problems/forbidden', detail: 'this API key is read-only' });
        expect(allowed.status).not.toBe(403);
      },
    );

    it('given a read-only key, when it lists resources (a POST that only reads) and calls GETs, then 200', async () => {
      const key = await newKey({ readOnly: true });

      expect((await readList(key.key)).status).toBe(200);
      expect((await server.get('/api/user/getcurrent', { apiKey: key.key })).status).toBe(200);
      expect((await server.get('/api/Privacy/GetResourcePrivacy?resourceId=1', { apiKey: key.key })).status).not.toBe(
        403,
      );
    });

    it('given a read-only key with a quota, when rotated, then the new secret keeps the scope and the quota', async () => {
      const key = await newKey({ readOnly: true, ratePerHour: 7 });
      const token = await server.token(demo.users.admin1);

      const rotated = await server.post(`/api/apikey/${key.id}/rotate`, { graceHours: 0 }, { token });

      expect(rotated.status).toBe(200);
      expect(rotated.body).toMatchObject({ readOnly: true, ratePerHour: 7 });
      const refused = await server.post('/api/Privacy/SaveResourcePrivacy', {}, { apiKey: rotated.body.key });
      expect(refused.status).toBe(403);
      expect(refused.headers.get('ratelimit-limit')).toBe('7');
      expect(await listed(key.id)).toMatchObject({ readOnly: true, ratePerHour: 7 });
    });
  });

  describe('a quota of its own', () => {
    it('given ratePerHour 3, when a fourth request is made in the hour, then 429, while another key of the same user is unaffected', async () => {
      const limited = await newKey({ ratePerHour: 3 });
      const other = await newKey();

      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await readList(limited.key)).status);
      const otherRes = await readList(other.key);

      expect(statuses).toEqual([200, 200, 200, 429]);
      expect(otherRes.status).toBe(200);
      expect(otherRes.headers.get('ratelimit-limit')).toBe(String(LIMIT));
    });

    it('given no readOnly and no ratePerHour, when created, then a full key with the service limit, in the answer and the list', async () => {
      const key = await newKey();

      expect(key).toMatchObject({ readOnly: false, ratePerHour: LIMIT });
      expect(await listed(key.id)).toMatchObject({ readOnly: false, ratePerHour: LIMIT });
      expect((await readList(key.key)).headers.get('ratelimit-limit')).toBe(String(LIMIT));
    });

    it.each([
      ['ratePerHour 0', { ratePerHour: 0 }, 'ratePerHour'],
      ['ratePerHour above the service limit', { ratePerHour: LIMIT + 1 }, 'ratePerHour'],
      ['ratePerHour not an integer', { ratePerHour: 2.5 }, 'ratePerHour'],
      ['ratePerHour a string', { ratePerHour: '10' }, 'ratePerHour'],
      ['readOnly not a boolean', { readOnly: 'yes' }, 'readOnly'],
    ])('given %s, when a key is created, then 400 naming the field and no key', async (_case, extra, field) => {
      const token = await server.token(demo.users.admin1);
      const before = await server.get('/api/apikey', { token });

      const res = await create({ name: 'bad', ...extra });

      expect(res.status).toBe(400);
      expect(res.body.type).toBe('/problems/validation');
      expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual([field]);
      expect((await server.get('/api/apikey', { token })).body).toHaveLength(before.body.length);
    });

    it('given ratePerHour equal to the service limit, when created, then accepted', async () => {
      expect(await newKey({ ratePerHour: LIMIT })).toMatchObject({ ratePerHour: LIMIT });
    });
  });

  describe('usage', () => {
    it('given requests made with a key, when listed, then the last hour and the last day count them, and an hour later only the day does', async () => {
      const key = await newKey();
      const other = await newKey();
      expect((await listed(key.id)).usage).toEqual({ lastHour: 0, lastDay: 0 });

      for (let i = 0; i < 3; i++) await readList(key.key);
      await server.get('/api/user/getcurrent', { apiKey: key.key });
      await readList(other.key);
      expect((await listed(key.id)).usage).toEqual({ lastHour: 4, lastDay: 4 });

      clock.advance(2 * HOUR_MS);
      await readList(key.key);
      expect((await listed(key.id)).usage).toEqual({ lastHour: 1, lastDay: 5 });
      expect((await listed(other.id)).usage).toEqual({ lastHour: 0, lastDay: 1 });

      clock.advance(DAY_MS + HOUR_MS);
      expect((await listed(key.id)).usage).toEqual({ lastHour: 0, lastDay: 0 });
    });
  });
});

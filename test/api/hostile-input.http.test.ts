import fc from 'fast-check';
import type { z } from 'zod';
import { listApplicationsBody } from '../../src/applications/application-routes';
import { saveResourcePrivacyBody, unshareResourceBody } from '../../src/privacy/privacy-schemas';
import { getResourceListBody, saveProjectResourceBody } from '../../src/resources/resource-schemas';
import { demo, demoDirectory } from '../support/demo-directory';
import type { TestServer } from '../support/test-server';
import { startTestServer } from '../support/test-server';

/**
 * Every route fed hostile input: fast-check mutates a valid body field by field (the
 * fields come from the route's zod schema) with generated and classic hostile values, and raw
 * bodies and URLs carry what JSON.stringify cannot (bad UTF-8, bad percent-escapes, deep nesting).
 * For every answer: never 5xx; every 4xx is an RFC 9457 problem without a stack trace; and a
 * refused request appended nothing to the event store. HOSTILE_RUNS=<n> runs more cases and
 * prints how many answers each status got.
 */
const { users, communities, projects, communityProjects } = demo;
const RUNS = Number(process.env.HOSTILE_RUNS ?? 25);

/** The classic list: what attackers and broken clients actually send. */
const classics: unknown[] = [
  { $gt: '' },
  { $ne: null },
  { $where: 'sleep(1000)' },
  { $regex: '.*' },
  JSON.parse('{"__proto__": {"isAdmin": true}}'),
  { constructor: { prototype: { polluted: true } } },
  'x'.repeat(300_000),
  [...Array(5_000).keys()],
  nest(2_000),
  -1,
  0,
  1.5,
  Number.MAX_SAFE_INTEGER + 2,
  1e308,
  -0,
  true,
  null,
  '',
  '1',
  '\u0000\u0001\u0007\u001b[31m\r\n',
  '\ud800',
  '../../etc/passwd',
  'javascript:alert(1)',
  '%E0%A4%A',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  [],
  {},
];

function nest(depth: number): unknown {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { a: value };
  return value;
}

const hostileValue = fc.oneof(
  fc.constantFrom(...classics),
  fc.jsonValue({ maxDepth: 4 }),
  fc.string({ unit: 'binary', maxLength: 50 }),
  fc.integer(),
  fc.double({ noNaN: true }),
  fc.array(fc.anything({ maxDepth: 2 }), { maxLength: 5 }),
);

const keysOf = (schema: z.ZodType): string[] => Object.keys((schema as unknown as { shape?: object }).shape ?? {});

type Route = {
  name: string;
  method: 'GET' | 'POST';
  path: () => string;
  schema?: z.ZodType;
  valid?: () => Record<string, unknown>;
  query?: () => Record<string, string>;
  userId: number;
};

describe('hostile input', () => {
  let server: TestServer;
  let resourceId: number;
  let lastPosition: bigint | undefined;
  const statuses = new Map<number, number>();

  beforeAll(async () => {
    server = await startTestServer();
    expect((await server.directory(demoDirectory.events)).status).toBe(200);
    const created = await server.post<{ id: number }>(
      '/api/Resource/SaveProjectResource',
      {
        id: 0,
        name: 'Target',
        resourceUrl: 'https://example.org/t',
        privacyLevel: 1,
        communityProjectId: communityProjects.solarIn1,
      },
      { token: await server.sessionToken(users.team) },
    );
    expect(created.status).toBe(200);
    resourceId = created.body.id;
    lastPosition = await headPosition();
  });
  afterAll(async () => {
    if (process.env.HOSTILE_RUNS)
      process.stdout.write(`hostile-input statuses: ${JSON.stringify(Object.fromEntries([...statuses].sort()))}\n`);
    await server.close();
  });

  async function headPosition(): Promise<bigint | undefined> {
    let position: bigint | undefined;
    for (;;) {
      const batch = await server.services.eventStore.readAll(position, 1000);
      if (batch.length === 0) return position;
      position = batch.at(-1)?.position;
    }
  }

  /** The answer's invariants; a refused request must leave the log as it was. */
  async function check(res: { status: number; headers: Headers; text: string }, label: string): Promise<void> {
    statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    const context = `${label} -> ${res.status} ${res.text.slice(0, 200)}`;
    expect([context, res.status < 500]).toEqual([context, true]);
    expect(res.text).not.toMatch(/at .*\.(ts|js):\d+/);
    const appended = await server.services.eventStore.readAll(lastPosition, 1000);
    if (res.status >= 400) {
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const body = JSON.parse(res.text) as { type?: unknown; status?: unknown };
      expect(typeof body.type).toBe('string');
      expect(body.status).toBe(res.status);
      expect([context, appended.length]).toEqual([context, 0]);
    } else if (appended.length > 0) {
      lastPosition = appended.at(-1)?.position;
    }
  }

  const routes = (): Route[] => [
    {
      name: 'GetResourceList',
      method: 'POST',
      path: () => '/api/Project/GetResourceList',
      schema: getResourceListBody,
      valid: () => ({
        projectId: projects.solar,
        communityId: communities.public1,
        take: 10,
        skip: 0,
        concept: 'a',
        tags: ['x'],
        orderBy: 1,
      }),
      userId: users.team,
    },
    {
      name: 'SaveProjectResource',
      method: 'POST',
      path: () => '/api/Resource/SaveProjectResource',
      schema: saveProjectResourceBody,
      valid: () => ({
        id: 0,
        name: 'Hostile',
        description: 'd',
        resourceUrl: 'https://example.org/h',
        privacyLevel: 1,
        icon: 'i',
        resourceTags: ['t'],
        communityProjectId: communityProjects.solarIn1,
      }),
      userId: users.team,
    },
    {
      name: 'SaveResourcePrivacy',
      method: 'POST',
      path: () => '/api/Privacy/SaveResourcePrivacy',
      schema: saveResourcePrivacyBody,
      valid: () => ({
        resourceId,
        owner: { privacyLevel: 1, circlesToAdd: [], circlesToRemove: [] },
        sharesToUpsert: [{ communityId: communities.public3, privacyLevel: 1, circlesToAdd: [], circlesToRemove: [] }],
        sharesToRemove: [{ communityId: communities.private2 }],
      }),
      userId: users.admin1,
    },
    {
      name: 'UnshareResourceFromCommunity',
      method: 'POST',
      path: () => '/api/Privacy/UnshareResourceFromCommunity',
      schema: unshareResourceBody,
      valid: () => ({ resourceId, communityId: communities.public3 }),
      userId: users.admin1,
    },
    {
      name: 'Applications',
      method: 'POST',
      path: () => `/api/ApplicationDefinition/${demo.applicationDefinition}/Applications`,
      schema: listApplicationsBody,
      valid: () => ({ take: 2, skip: 0, orderBy: 1 }),
      userId: users.admin1,
    },
    {
      name: 'GetResourcePrivacy',
      method: 'GET',
      path: () => '/api/Privacy/GetResourcePrivacy',
      query: () => ({ resourceId: String(resourceId) }),
      userId: users.team,
    },
    {
      name: 'RemoveProjectResource',
      method: 'GET',
      path: () => '/api/Resource/RemoveProjectResource',
      query: () => ({ id: '999999' }),
      userId: users.outsider,
    },
    { name: 'getcurrent', method: 'GET', path: () => '/api/user/getcurrent', query: () => ({}), userId: users.team },
  ];

  const send = async (
    route: Route,
    body: string | Buffer | undefined,
    query = '',
    headers: Record<string, string> = {},
  ) => {
    const response = await fetch(`${server.url}${route.path()}${query}`, {
      method: route.method,
      headers: {
        authorization: `Bearer ${await server.sessionToken(route.userId)}`,
        'content-type': 'application/json',
        ...headers,
      },
      body,
    });
    return { status: response.status, headers: response.headers, text: await response.text() };
  };

  const bodyRoutes = () => routes().filter((r) => r.schema && r.valid);
  const queryRoutes = () => routes().filter((r) => r.query);

  it('given a body that nests past 64 levels in a field the route ignores, with an Idempotency-Key, then a 400 saying so, nothing appended; 64 levels pass', async () => {
    const save = {
      name: 'SaveProjectResource',
      method: 'POST',
      path: () => '/api/Resource/SaveProjectResource',
      userId: users.team,
    } as Route;
    const nested = (levels: number, inner: string) => `${'['.repeat(levels)}${inner}${']'.repeat(levels)}`;
    const body = (image: string) =>
      `{"id":${resourceId},"name":"Target","resourceUrl":"https://example.org/t","privacyLevel":1,` +
      `"communityProjectId":${communityProjects.solarIn1},"image":${image}}`;

    // a recursion no stack survives: 200,000 levels, and brackets inside a string, which do not count
    const deep = await send(save, body(nested(200_000, '"[[[{{{"')), '', { 'Idempotency-Key': 'deep-1' });
    await check(deep, 'deep');
    expect(deep.status).toBe(400);
    expect(JSON.parse(deep.text)).toMatchObject({ detail: 'the JSON body nests deeper than 64 levels' });
    const justPast = await send(save, body(nested(64, '1')), '', { 'Idempotency-Key': 'deep-2' });
    await check(justPast, 'just past');
    expect(justPast.status).toBe(400);

    // 63 levels inside the body's own object: 64 in all, within the bound (the field itself is refused or ignored)
    const within = await send(save, body(nested(63, '"]]]"')), '', { 'Idempotency-Key': 'deep-3' });
    await check(within, 'within');
    expect(within.text).not.toContain('nests deeper');
  });

  it('given every body route, when one to three fields of a valid body are replaced by generated hostile values, then no 5xx and refusals append nothing', async () => {
    for (const route of bodyRoutes()) {
      const fields = [...keysOf(route.schema!), '__proto__', 'constructor', '$where'];
      await fc.assert(
        fc.asyncProperty(
          fc.dictionary(fc.constantFrom(...fields), hostileValue, { minKeys: 1, maxKeys: 3 }),
          async (changes) => {
            const body = { ...route.valid!() };
            for (const [key, value] of Object.entries(changes))
              Object.defineProperty(body, key, { value, enumerable: true });
            await check(
              await send(route, JSON.stringify(body)),
              `${route.name} ${JSON.stringify(changes).slice(0, 200)}`,
            );
          },
        ),
        { numRuns: RUNS },
      );
    }
  });

  it('given every body route, when the whole body is a generated JSON value, then no 5xx and refusals append nothing', async () => {
    for (const route of bodyRoutes()) {
      await fc.assert(
        fc.asyncProperty(fc.oneof(hostileValue, fc.anything({ maxDepth: 3 })), async (value) => {
          await check(await send(route, JSON.stringify(value) ?? 'null'), `${route.name} whole body`);
        }),
        { numRuns: RUNS },
      );
    }
  });

  it.each([
    ['bad UTF-8 bytes', Buffer.from([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc0, 0xaf, 0x22, 0x7d])],
    ['a truncated document', '{"projectId": 10, "name": "'],
    ['deep nesting', `${'['.repeat(50_000)}${']'.repeat(50_000)}`],
    ['deep objects', `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`],
    ['a body over the limit', JSON.stringify({ name: 'x'.repeat(1_100_000) })],
    ['a NUL byte', '{"name":"\u0000"}'],
    ['a lone surrogate escape', '{"name":"\\ud800","projectId":10}'],
    ['duplicate keys', '{"projectId": 10, "projectId": {"$gt": 0}}'],
    ['an empty body', ''],
  ])(
    'given every body route, when the raw body is %s, then no 5xx and refusals append nothing',
    async (_label, raw) => {
      for (const route of bodyRoutes()) await check(await send(route, raw), `${route.name} ${_label}`);
    },
  );

  it.each([
    ['a non-JSON content type', 'text/plain'],
    ['a form content type', 'application/x-www-form-urlencoded'],
    ['an unknown charset', 'application/json; charset=ebcdic'],
  ])('given every body route, when the body comes with %s, then no 5xx', async (_label, contentType) => {
    for (const route of bodyRoutes()) {
      await check(
        await send(route, JSON.stringify(route.valid!()), '', { 'content-type': contentType }),
        `${route.name} ${contentType}`,
      );
    }
  });

  it('given every query route, when a parameter is replaced by generated text, then no 5xx and refusals append nothing', async () => {
    for (const route of queryRoutes()) {
      const names = [...Object.keys(route.query!()), 'id', 'resourceId'];
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...names),
          fc.oneof(
            fc.string({ unit: 'binary', maxLength: 40 }),
            fc.constantFrom('%E0%A4%A', '%', '-1', '1e400', '0x10', ' 1', '1,2'),
          ),
          async (name, value) => {
            const query = `?${new URLSearchParams({ ...route.query!(), [name]: value }).toString()}`;
            await check(await send(route, undefined, query, { 'content-type': '' }), `${route.name} ${query}`);
          },
        ),
        { numRuns: RUNS },
      );
    }
  });

  it.each([
    '?resourceId=%E0%A4%A&id=%E0%A4%A',
    '?resourceId=%&id=%',
    '?resourceId[$gt]=0&id[$gt]=0',
    '?resourceId=1&resourceId=2&id=1&id=2',
    '?__proto__[x]=1&constructor=1',
  ])('given every query route, when the query string is %s, then no 5xx and refusals append nothing', async (query) => {
    for (const route of queryRoutes())
      await check(await send(route, undefined, query, { 'content-type': '' }), `${route.name} ${query}`);
  });

  it.each([
    '/api/ApplicationDefinition/%E0%A4%A/Applications',
    '/api/ApplicationDefinition/%/Applications',
    '/api/ApplicationDefinition/%00/Applications',
    '/api/ApplicationDefinition/1%2F..%2F..%2Finternal/Applications',
    '/api/ApplicationDefinition/99999999999999999999999/Applications',
    '/api/ApplicationDefinition/-1/Applications',
    '/api/%C0%AE%C0%AE/user/getcurrent',
  ])('given the path %s, then no 5xx', async (path) => {
    await check(await send({ ...routes()[4]!, path: () => path }, '{}'), path);
  });

  it('given the directory feed with its token, when batches are generated hostile values, then no 5xx and refusals append nothing', async () => {
    const token = server.services.secrets.directoryToken;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          hostileValue,
          fc.record({
            events: fc.array(
              fc.record({
                type: fc.constantFrom('UserUpserted', 'CircleUpserted', '__proto__', 'ProjectMemberSet'),
                data: hostileValue,
              }),
              { maxLength: 3 },
            ),
          }),
        ),
        async (batch) => {
          const res = await fetch(`${server.url}/internal/directory/events`, {
            method: 'POST',
            headers: { 'x-directory-token': token, 'content-type': 'application/json' },
            body: JSON.stringify(batch) ?? 'null',
          });
          await check({ status: res.status, headers: res.headers, text: await res.text() }, 'directory feed');
        },
      ),
      { numRuns: RUNS * 2 },
    );
  });
});

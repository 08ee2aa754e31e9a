import { demo, demoDirectory } from '../support/demo-directory';
import type { TestServer } from '../support/test-server';
import { startTestServer } from '../support/test-server';

/** GET /api/audit/integrity: the hash chain's head, for auditors only. */
const { users } = demo;

describe('GET /api/audit/integrity', () => {
  let server: TestServer;
  const as = async (userId: number) => ({ token: await server.sessionToken(userId) });

  beforeAll(async () => {
    server = await startTestServer();
    expect((await server.directory(demoDirectory.events)).status).toBe(200);
  });
  afterAll(() => server.close());

  it('given an auditor, when they ask for the head, then it is the newest event, their own recorded read', async () => {
    // when
    const res = await server.get('/api/audit/integrity', await as(users.auditor));
    // then
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      kept: true,
      position: expect.stringMatching(/^[0-9]+$/),
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const reads = await server.get(
      `/api/audit/events?stream=audit-${users.auditor}&type=AuditRead&limit=1000`,
      await as(users.auditor),
    );
    const correlationId = res.headers.get('x-correlation-id');
    const recorded = reads.body.items.find(
      (e: { metadata: { correlationId: string } }) => e.metadata.correlationId === correlationId,
    );
    expect(recorded.data.route).toBe('GET /api/audit/integrity');
    expect(recorded.position).toBe(res.body.position);
  });

  it('given a write after a head was taken, when the head is asked again, then it has moved on with another hash', async () => {
    const before = (await server.get('/api/audit/integrity', await as(users.auditor))).body;
    const saved = await server.post(
      '/api/Resource/SaveProjectResource',
      {
        id: 0,
        name: 'Chained',
        resourceUrl: 'https://example.org/c.pdf',
        privacyLevel: 2,
        communityProjectId: demo.communityProjects.solarIn1,
      },
      await as(users.team),
    );
    expect(saved.status).toBe(200);
    const after = (await server.get('/api/audit/integrity', await as(users.auditor))).body;
    expect(BigInt(after.position)).toBeGreaterThan(BigInt(before.position));
    expect(after.hash).not.toBe(before.hash);
  });

  it.each([
    ['team member', users.team],
    ['community admin', users.admin1],
    ['outsider', users.outsider],
  ])('given a %s without the auditor role, then 403', async (_who, userId) => {
    const res = await server.get('/api/audit/integrity', await as(userId));
    expect(res.status).toBe(403);
    expect(res.body.type).toBe('/problems/forbidden');
  });

  it('given no credential, then 401', async () => {
    const res = await server.get('/api/audit/integrity');
    expect(res.status).toBe(401);
    expect(res.body.type).toBe('/problems/unauthenticated');
  });

  it('given an unknown query parameter, then 400 naming it', async () => {
    const res = await server.get('/api/audit/integrity?from=1', await as(users.auditor));
    expect(res.status).toBe(400);
    expect(res.body.type).toBe('/problems/validation');
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['from']);
  });

  it('given the OpenAPI document, then the route is there for auditors, with its answer', async () => {
    const doc = (await server.get('/openapi.json')).body;
    const operation = doc.paths['/api/audit/integrity'].get;
    expect(operation.operationId).toBe('getLogIntegrity');
    expect(operation.tags).toEqual(['audit']);
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403']));
  });
});

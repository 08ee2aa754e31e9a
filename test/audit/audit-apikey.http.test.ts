/**
 * The audit API read with an API key (docs/api.md "Audit"): an auditor, with an API key,
 * finds who shared resource N into community C, when, and with which credential; reads its history
 * and who could see it; and that read, made with the key, is itself recorded with the key.
 *
 * Creating a key requires being an administrator of at least one community: the auditor
 * (demo user 11, no membership in the demo) is first made an approved admin of community 3.
 */
import { demo, demoDirectory } from '../support/demo-directory';
import type { TestServer } from '../support/test-server';
import { startTestServer } from '../support/test-server';

type AuditEvent = {
  position: string;
  streamId: string;
  type: string;
  data: Record<string, unknown>;
  metadata: { actor: { userId: number; credential: string; apiKeyId?: number }; correlationId: string; at: string };
};
type CreatedKey = { id: number; key: string };

/** Waits until the clock has moved past `ms`, so that the next event is recorded strictly later. */
async function pastMillisecond(ms: number): Promise<void> {
  while (Date.now() <= ms) await new Promise((r) => setTimeout(r, 1));
}

describe('audit API with an API key', () => {
  let server: TestServer;
  let resourceId: number;
  let sharerKey: CreatedKey; // the community 1 admin's key, used to share
  let auditorKey: CreatedKey; // the auditor's key, used to read the audit API
  let beforeShare: string;
  let afterShare: string;

  const createKey = async (userId: number, name: string): Promise<CreatedKey> => {
    const res = await server.post<CreatedKey>('/api/apikey', { name }, { token: await server.sessionToken(userId) });
    if (res.status !== 200) throw new Error(`given: key creation for ${userId} answered ${res.status}`);
    return res.body;
  };

  beforeAll(async () => {
    server = await startTestServer();
    expect((await server.directory(demoDirectory.events)).status).toBe(200);
    // The auditor administers community 3, which lets them create a key; the platform role stays.
    const admin = await server.directory([
      {
        type: 'CommunityMemberSet',
        data: { communityId: demo.communities.public3, userId: demo.users.auditor, role: 'admin', status: 'approved' },
      },
    ]);
    expect(admin.status).toBe(200);

    const created = await server.post<{ id: number }>(
      '/api/Resource/SaveProjectResource',
      {
        id: 0,
        name: 'Budget',
        resourceUrl: 'https://example.org/budget.xlsx',
        privacyLevel: 2,
        communityProjectId: demo.communityProjects.solarIn1,
      },
      { token: await server.sessionToken(demo.users.team) },
    );
    expect(created.status).toBe(200);
    resourceId = created.body.id;

    // The admin of community 1 shares it into community 2 with an API key, not a session.
    sharerKey = await createKey(demo.users.admin1, 'sharing robot');
    beforeShare = new Date().toISOString();
    await pastMillisecond(Date.parse(beforeShare));
    const share = await server.post(
      '/api/Privacy/SaveResourcePrivacy',
      { resourceId, sharesToUpsert: [{ communityId: demo.communities.private2, privacyLevel: 1 }] },
      { apiKey: sharerKey.key },
    );
    expect(share.status).toBe(200);
    await pastMillisecond(Date.now());
    afterShare = new Date().toISOString();

    auditorKey = await createKey(demo.users.auditor, 'audit export');
  });
  afterAll(() => server.close());

  const auditGet = <T>(path: string) => server.get<T>(path, { apiKey: auditorKey.key });

  it('given the share made with a key, when the auditor lists the resource stream with their key, then they find who shared it into C, when and with which credential', async () => {
    const query = new URLSearchParams({ stream: `resource-${resourceId}`, type: 'ResourceShared' });
    const res = await auditGet<{ items: AuditEvent[]; hasMore: boolean }>(`/api/audit/events?${query}`);

    expect(res.status).toBe(200);
    expect(res.body.items).toHaveLength(1);
    const shared = res.body.items[0]!;
    expect(shared).toMatchObject({
      streamId: `resource-${resourceId}`,
      type: 'ResourceShared',
      data: { resourceId, communityId: demo.communities.private2, privacyLevel: 1 },
      metadata: { actor: { userId: demo.users.admin1, credential: 'apiKey', apiKeyId: sharerKey.id } },
    });
    expect(shared.metadata.actor).not.toHaveProperty('impersonatorId');
    expect(Date.parse(shared.metadata.at)).toBeGreaterThan(Date.parse(beforeShare));
    expect(Date.parse(shared.metadata.at)).toBeLessThan(Date.parse(afterShare));
  });

  it('given the sharer key, when the auditor filters by credential and key, then exactly that key’s events are listed', async () => {
    const query = new URLSearchParams({ credential: 'apiKey', apiKeyId: String(sharerKey.id), limit: '1000' });
    const res = await auditGet<{ items: AuditEvent[] }>(`/api/audit/events?${query}`);

    expect(res.status).toBe(200);
    expect(res.body.items.map((e) => [e.streamId, e.type])).toEqual([[`resource-${resourceId}`, 'ResourceShared']]);
  });

  it('given the key, when the auditor reads the history, then the share is a step by the admin with credential apiKey and the key id', async () => {
    const res = await auditGet<{
      resourceId: number;
      steps: { actor: AuditEvent['metadata']['actor']; changes: { kind: string }[] }[];
    }>(`/api/audit/resources/${resourceId}/history`);

    expect(res.status).toBe(200);
    expect(res.body.steps.map((s) => [s.actor, s.changes.map((c) => c.kind)])).toEqual([
      [{ userId: demo.users.team, credential: 'session' }, ['created']],
      [{ userId: demo.users.admin1, credential: 'apiKey', apiKeyId: sharerKey.id }, ['shareAdded']],
    ]);
  });

  it('given the key, when the auditor asks who could see the resource before and after the share, then community 2 appears only after', async () => {
    const before = await auditGet<{ views: { communityId: number | null }[] }>(
      `/api/audit/resources/${resourceId}/access?at=${encodeURIComponent(beforeShare)}`,
    );
    const now = await auditGet<{
      status: string;
      views: { communityId: number | null; users: { userId: number }[] }[];
    }>(`/api/audit/resources/${resourceId}/access`);

    expect(before.status).toBe(200);
    expect(before.body.views.map((v) => v.communityId)).toEqual([demo.communities.public1]);
    expect(now.status).toBe(200);
    expect(now.body.status).toBe('active');
    const community2 = now.body.views.find((v) => v.communityId === demo.communities.private2);
    expect(community2?.users.map((u) => u.userId)).toContain(demo.users.admin2);
  });

  it('given a read made with the key, then its AuditRead event records credential apiKey and the key id, under that request', async () => {
    const read = await auditGet(`/api/audit/resources/${resourceId}/history`);
    expect(read.status).toBe(200);
    const correlationId = read.headers.get('x-correlation-id');
    expect(correlationId).toEqual(expect.any(String));

    const query = new URLSearchParams({ stream: `audit-${demo.users.auditor}`, type: 'AuditRead', limit: '1000' });
    const recorded = await auditGet<{ items: AuditEvent[] }>(`/api/audit/events?${query}`);

    expect(recorded.status).toBe(200);
    const event = recorded.body.items.find((e) => e.metadata.correlationId === correlationId);
    expect(event).toMatchObject({
      type: 'AuditRead',
      data: { route: 'GET /api/audit/resources/{id}/history', params: { id: resourceId } },
      metadata: { actor: { userId: demo.users.auditor, credential: 'apiKey', apiKeyId: auditorKey.id } },
    });
    // The auditor has only ever read with the key, so every record of their reads carries it.
    expect(
      recorded.body.items.every(
        (e) => e.metadata.actor.credential === 'apiKey' && e.metadata.actor.apiKeyId === auditorKey.id,
      ),
    ).toBe(true);
  });

  it('given a key of someone without the auditor role, when it reads the audit API, then 403', async () => {
    const res = await server.get('/api/audit/events', { apiKey: sharerKey.key });

    expect(res.status).toBe(403);
    expect(res.body.type).toBe('/problems/forbidden');
  });
});

/**
 * GET /api/audit/users/{id}/access: everything one person could see at a moment, by view, with
 * the per-resource review's reasons; for now, each view is what GetResourceList serves them.
 */
import { personAccessSchema } from '../../src/audit/audit-schemas';
import { createResourcesClient } from '../../clients/typescript/client';
import type { ResourcesClient } from '../../clients/typescript/client';
import { demo, demoDirectory } from '../support/demo-directory';
import type { TestServer } from '../support/test-server';
import { startTestServer } from '../support/test-server';

async function pastMillisecond(ms: number): Promise<void> {
  while (Date.now() <= ms) await new Promise((r) => setTimeout(r, 1));
}

describe('audit: the access of one person', () => {
  let server: TestServer;
  const clients = new Map<number, ResourcesClient>();
  const as = async (userId: number) => {
    if (!clients.has(userId))
      clients.set(userId, createResourcesClient({ baseUrl: server.url, token: await server.sessionToken(userId) }));
    return clients.get(userId) as ResourcesClient;
  };
  let sharedId: number;
  let beforeShare: string;

  beforeAll(async () => {
    server = await startTestServer();
    expect((await server.directory(demoDirectory.events)).status).toBe(200);
    const team = await as(demo.users.team);
    const save = async (body: Record<string, unknown>) => {
      const res = await team.POST('/api/Resource/SaveProjectResource', {
        body: { id: 0, resourceUrl: 'https://example.org/r.pdf', ...body } as never,
      });
      expect({ status: res.response.status, error: res.error }).toEqual({ status: 200, error: undefined });
      return res.data!.id;
    };
    // A spread of levels and scopes, so that every view holds something for someone.
    sharedId = await save({ name: 'Budget', privacyLevel: 2, communityProjectId: demo.communityProjects.solarIn1 });
    await save({ name: 'Open plan', privacyLevel: 1, communityProjectId: demo.communityProjects.solarIn1 });
    await save({
      name: 'Team notes',
      privacyLevel: 3,
      projectId: demo.projects.solar,
      communityProjectId: 0,
      communityId: 0,
    });
    await save({
      name: 'Public brief',
      privacyLevel: 1,
      projectId: demo.projects.solar,
      communityProjectId: 0,
      communityId: 0,
    });
    await save({ name: 'Water log', privacyLevel: 2, communityProjectId: demo.communityProjects.waterIn2 });
    beforeShare = new Date().toISOString();
    await pastMillisecond(Date.parse(beforeShare));
    const shared = await (
      await as(demo.users.admin1)
    ).POST('/api/Privacy/SaveResourcePrivacy', {
      body: { resourceId: sharedId, sharesToUpsert: [{ communityId: demo.communities.private2, privacyLevel: 1 }] },
    });
    expect(shared.response.status).toBe(200);
  });
  afterAll(() => server.close());

  const activeUsers = [1, 2, 3, 4, 5, 6, 7, 8, 11];
  const communities = [null, demo.communities.public1, demo.communities.private2, demo.communities.public3];
  const projects = [demo.projects.solar, demo.projects.water];

  it('given at = now, then for every demo user and every view the resources are what GetResourceList serves them', async () => {
    const auditor = await as(demo.users.auditor);
    let nonEmpty = 0;
    for (const userId of activeUsers) {
      const { data, response } = await auditor.GET('/api/audit/users/{id}/access', {
        params: { path: { id: userId } },
      });
      expect(response.status).toBe(200);
      expect(personAccessSchema.safeParse(data).error).toBeUndefined();
      for (const projectId of projects) {
        for (const communityId of communities) {
          const view = data!.views.find((v) => v.projectId === projectId && v.communityId === communityId);
          const reviewed = (view?.resources ?? []).map((r) => r.resourceId);
          const list = await (
            await as(userId)
          ).POST('/api/Project/GetResourceList', {
            body: { projectId, ...(communityId === null ? {} : { communityId }), take: 1000 },
          });
          const served =
            list.response.status === 200 ? list.data!.resources.list.map((r) => r.id).sort((a, b) => a - b) : [];
          expect({ userId, projectId, communityId, resources: reviewed }).toEqual({
            userId,
            projectId,
            communityId,
            resources: served,
          });
          if (served.length > 0) nonEmpty++;
        }
      }
      // Every view answered is one of those asked above.
      for (const v of data!.views) {
        expect(projects).toContain(v.projectId);
        expect(communities).toContain(v.communityId);
      }
    }
    expect(nonEmpty).toBeGreaterThan(10);
  });

  it('given a moment before the share, then the admin of community 2 did not see it there; now they do, through the share', async () => {
    const auditor = await as(demo.users.auditor);
    const inCommunity2 = async (at?: string) => {
      const { data } = await auditor.GET('/api/audit/users/{id}/access', {
        params: { path: { id: demo.users.admin2 }, query: at ? { at } : {} },
      });
      return data!.views
        .find((v) => v.communityId === demo.communities.private2 && v.projectId === demo.projects.solar)
        ?.resources.find((r) => r.resourceId === sharedId);
    };
    expect(await inCommunity2(beforeShare)).toBeUndefined();
    expect(await inCommunity2()).toMatchObject({
      name: 'Budget',
      governedBy: 'share',
      effectivePrivacyLevel: 1,
      reasons: [
        expect.objectContaining({ kind: 'administersView', communityId: demo.communities.private2 }),
        expect.objectContaining({ kind: 'reach', level: 1 }),
      ],
    });
  });

  it('given the reasons, then they are those the per-resource review gives the same user', async () => {
    const auditor = await as(demo.users.auditor);
    const person = await auditor.GET('/api/audit/users/{id}/access', { params: { path: { id: demo.users.member1 } } });
    const resource = await auditor.GET('/api/audit/resources/{id}/access', { params: { path: { id: sharedId } } });
    const fromPerson = person
      .data!.views.find((v) => v.communityId === demo.communities.public1)!
      .resources.find((r) => r.resourceId === sharedId)!.reasons;
    const fromResource = resource
      .data!.views.find((v) => v.communityId === demo.communities.public1)!
      .users.find((u) => u.userId === demo.users.member1)!.reasons;
    expect(fromPerson).toEqual(fromResource);
    expect(fromPerson).toEqual([expect.objectContaining({ kind: 'member', level: 2 })]);
  });

  it('given a banned user, then no views; given a user the directory never knew, then 404; a bad at is a 400 naming it', async () => {
    const auditor = await as(demo.users.auditor);
    const banned = await auditor.GET('/api/audit/users/{id}/access', { params: { path: { id: demo.users.banned } } });
    expect(banned.data).toMatchObject({ account: 'banned', views: [] });
    const early = await auditor.GET('/api/audit/users/{id}/access', {
      params: { path: { id: demo.users.member1 }, query: { at: '2000-01-01T00:00:00Z' } },
    });
    expect(early.data).toMatchObject({ account: 'notKnown', name: null, views: [] });
    const unknown = await auditor.GET('/api/audit/users/{id}/access', { params: { path: { id: 999999 } } });
    expect(unknown.response.status).toBe(404);
    const bad = await auditor.GET('/api/audit/users/{id}/access', {
      params: { path: { id: demo.users.member1 }, query: { at: 'yesterday' } },
    });
    expect(bad.response.status).toBe(400);
    expect(bad.error?.errors?.map((e) => e.field)).toEqual(['at']);
  });

  it('given a user without the auditor role, then 403; an auditor read is recorded in audit-{userId}', async () => {
    const refused = await (
      await as(demo.users.admin1)
    ).GET('/api/audit/users/{id}/access', { params: { path: { id: demo.users.member1 } } });
    expect(refused.response.status).toBe(403);
    const auditor = await as(demo.users.auditor);
    const read = await auditor.GET('/api/audit/users/{id}/access', { params: { path: { id: demo.users.member1 } } });
    const correlationId = read.response.headers.get('x-correlation-id');
    const { data } = await auditor.GET('/api/audit/events', {
      params: { query: { stream: `audit-${demo.users.auditor}`, type: 'AuditRead' } },
    });
    expect(data!.items.find((e) => e.metadata.correlationId === correlationId)).toMatchObject({
      data: { route: 'GET /api/audit/users/{id}/access', params: { id: demo.users.member1 } },
    });
  });
});

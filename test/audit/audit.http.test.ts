/**
 * The audit API through the published typed client (clients/typescript): an auditor finds who
 * shared a resource, when and with which credential, reads its history as steps, and asks who
 * could see it at a past moment and now — the answer for now is what GetResourceList serves.
 */
import { auditEventPageSchema, resourceAccessSchema, resourceHistorySchema } from '../../src/audit/audit-schemas';
import { createResourcesClient } from '../../clients/typescript/client';
import type { ResourcesClient } from '../../clients/typescript/client';
import { demo, demoDirectory } from '../support/demo-directory';
import type { TestServer } from '../support/test-server';
import { startTestServer } from '../support/test-server';

/** Waits until the clock has moved past `ms`, so that the next event is recorded strictly later. */
async function pastMillisecond(ms: number): Promise<void> {
  while (Date.now() <= ms) await new Promise((r) => setTimeout(r, 1));
}

describe('audit API', () => {
  let server: TestServer;
  const clients = new Map<number, ResourcesClient>();
  const as = async (userId: number) => {
    if (!clients.has(userId))
      clients.set(userId, createResourcesClient({ baseUrl: server.url, token: await server.sessionToken(userId) }));
    return clients.get(userId) as ResourcesClient;
  };
  let resourceId: number;
  let beforeShare: string; // a moment after creation, before the share into community 2

  beforeAll(async () => {
    server = await startTestServer();
    expect((await server.directory(demoDirectory.events)).status).toBe(200);
    const team = await as(demo.users.team);
    const created = await team.POST('/api/Resource/SaveProjectResource', {
      body: {
        id: 0,
        name: 'Budget',
        resourceUrl: 'https://example.org/budget.xlsx',
        privacyLevel: 2,
        communityProjectId: demo.communityProjects.solarIn1,
      },
    });
    expect(created.response.status).toBe(200);
    resourceId = created.data!.id;
    beforeShare = new Date().toISOString();
    await pastMillisecond(Date.parse(beforeShare));

    const admin1 = await as(demo.users.admin1);
    const share = await admin1.POST('/api/Privacy/SaveResourcePrivacy', {
      body: { resourceId, sharesToUpsert: [{ communityId: demo.communities.private2, privacyLevel: 1 }] },
    });
    expect(share.response.status).toBe(200);
    const custom = await team.POST('/api/Privacy/SaveResourcePrivacy', {
      body: {
        resourceId,
        owner: {
          privacyLevel: 4,
          circlesToAdd: [{ circleId: demo.circles.reviewers1, projectId: null, communityId: demo.communities.public1 }],
        },
      },
    });
    expect(custom.response.status).toBe(200);
    const renamed = await team.POST('/api/Resource/SaveProjectResource', {
      body: {
        id: resourceId,
        name: 'Budget 2025',
        resourceUrl: 'https://example.org/budget.xlsx',
        privacyLevel: 4,
        communityProjectId: demo.communityProjects.solarIn1,
      },
    });
    expect(renamed.response.status).toBe(200);
  });
  afterAll(() => server.close());

  describe('who may read it', () => {
    it.each([
      ['team member', demo.users.team],
      ['community admin', demo.users.admin1],
      ['outsider', demo.users.outsider],
    ])('given a %s without the auditor role, then every audit route answers 403', async (_who, userId) => {
      const api = await as(userId);
      const answers = await Promise.all([
        api.GET('/api/audit/events', {}),
        api.GET('/api/audit/resources/{id}/history', { params: { path: { id: resourceId } } }),
        api.GET('/api/audit/resources/{id}/access', { params: { path: { id: resourceId } } }),
      ]);
      for (const answer of answers) {
        expect(answer.response.status).toBe(403);
        expect(answer.error?.type).toBe('/problems/forbidden');
      }
    });

    it('given an impersonation session of an auditor, then every audit route answers 403, naming the impersonation', async () => {
      const token = await server.token(demo.users.auditor, { impersonatorId: demo.users.admin1 });
      const api = createResourcesClient({ baseUrl: server.url, token });
      const answers = await Promise.all([
        api.GET('/api/audit/events', {}),
        api.GET('/api/audit/resources/{id}/history', { params: { path: { id: resourceId } } }),
        api.GET('/api/audit/integrity', {}),
      ]);
      for (const answer of answers) {
        expect(answer.response.status).toBe(403);
        expect(answer.error).toMatchObject({
          type: '/problems/forbidden',
          detail: expect.stringContaining('impersonation'),
        });
      }
    });

    it('given no credential, then 401', async () => {
      const res = await createResourcesClient({ baseUrl: server.url }).GET('/api/audit/events', {});
      expect(res.response.status).toBe(401);
      expect(res.error?.type).toBe('/problems/unauthenticated');
    });
  });

  describe('GET /api/audit/events', () => {
    it('given a share, when the auditor filters the resource stream by type, then they see who shared it, when and with which credential', async () => {
      const auditor = await as(demo.users.auditor);
      const { data, response } = await auditor.GET('/api/audit/events', {
        params: { query: { stream: `resource-${resourceId}`, type: 'ResourceShared' } },
      });
      expect(response.status).toBe(200);
      expect(auditEventPageSchema.safeParse(data).error).toBeUndefined();
      expect(data!.items).toHaveLength(1);
      expect(data!.items[0]).toMatchObject({
        streamId: `resource-${resourceId}`,
        type: 'ResourceShared',
        data: { resourceId, communityId: demo.communities.private2, privacyLevel: 1 },
        metadata: { actor: { userId: demo.users.admin1, credential: 'session' } },
      });
      expect(Date.parse(data!.items[0]!.metadata.at)).toBeGreaterThan(Date.parse(beforeShare));
    });

    it('given a small page size, when the auditor follows the cursor, then the pages join into the whole filtered log in order', async () => {
      const auditor = await as(demo.users.auditor);
      const whole = await auditor.GET('/api/audit/events', {
        params: { query: { userId: demo.users.team, limit: 1000 } },
      });
      const paged: string[] = [];
      let after: string | undefined;
      for (let guard = 0; guard < 100; guard++) {
        const page = await auditor.GET('/api/audit/events', {
          params: { query: { userId: demo.users.team, limit: 2, ...(after ? { after } : {}) } },
        });
        expect(page.response.status).toBe(200);
        paged.push(...page.data!.items.map((e) => e.position));
        if (!page.data!.hasMore) break;
        after = page.data!.next ?? undefined;
      }
      const positions = whole.data!.items.map((e) => e.position);
      expect(positions.length).toBeGreaterThan(2);
      expect(paged).toEqual(positions);
      expect(whole.data!.items.every((e) => e.metadata.actor.userId === demo.users.team)).toBe(true);
      expect([...positions].sort((a, b) => Number(BigInt(a) - BigInt(b)))).toEqual(positions);
    });

    it('given cursor and nextCursor, when the auditor pages with them, then the pages are those after and next give, and the last nextCursor is null', async () => {
      const auditor = await as(demo.users.auditor);
      const stream = `resource-${resourceId}`;
      const walk = async (follow: 'cursor' | 'after') => {
        const pages: { positions: string[]; nextCursor: string | null; next: string | null; hasMore: boolean }[] = [];
        let from: string | undefined;
        for (let guard = 0; guard < 100; guard++) {
          const page = await auditor.GET('/api/audit/events', {
            params: { query: { stream, limit: 1, ...(from ? { [follow]: from } : {}) } },
          });
          expect(page.response.status).toBe(200);
          const { items, nextCursor, next, hasMore } = page.data!;
          pages.push({ positions: items.map((e) => e.position), nextCursor, next, hasMore });
          from = (follow === 'cursor' ? nextCursor : hasMore ? next : null) ?? undefined;
          if (from === undefined) break;
        }
        return pages;
      };

      const byCursor = await walk('cursor');
      const byAfter = await walk('after');

      expect(byCursor.length).toBeGreaterThan(2);
      expect(byCursor).toEqual(byAfter);
      expect(byCursor.slice(0, -1).every((p) => p.hasMore && p.nextCursor === p.next)).toBe(true);
      expect(byCursor.at(-1)).toMatchObject({ hasMore: false, nextCursor: null });
      expect(byCursor.at(-1)!.next).not.toBeNull();
    });

    it('given a cursor past the largest position a store keeps, then 400 naming cursor, with or without a stream', async () => {
      const past = Buffer.from(`v1:${2n ** 63n}`, 'utf8').toString('base64url');
      const queries: Record<string, string>[] = [{ cursor: past }, { cursor: past, stream: `resource-${resourceId}` }];
      for (const query of queries) {
        const res = await server.get(`/api/audit/events?${new URLSearchParams(query)}`, {
          token: await server.sessionToken(demo.users.auditor),
        });

        expect(res.status).toBe(400);
        expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['cursor']);
      }
    });

    it('given both cursor and after, then 400 naming cursor', async () => {
      const auditor = await as(demo.users.auditor);
      const first = await auditor.GET('/api/audit/events', { params: { query: { limit: 1 } } });
      const cursor = first.data!.nextCursor!;

      const res = await server.get(`/api/audit/events?${new URLSearchParams({ cursor, after: cursor })}`, {
        token: await server.sessionToken(demo.users.auditor),
      });

      expect(res.status).toBe(400);
      expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['cursor']);
    });

    it('given a time range and a credential, then only events inside it made with that credential are listed', async () => {
      const auditor = await as(demo.users.auditor);
      const { data } = await auditor.GET('/api/audit/events', {
        params: { query: { from: beforeShare, credential: 'session', stream: `resource-${resourceId}` } },
      });
      expect(data!.items.map((e) => e.type)).not.toContain('ResourceCreated');
      expect(data!.items.map((e) => e.type)).toContain('ResourceShared');
      expect(data!.items.every((e) => Date.parse(e.metadata.at) >= Date.parse(beforeShare))).toBe(true);
    });

    it.each([
      ['limit', { limit: '0' }],
      ['limit', { limit: '1001' }],
      ['userId', { userId: 'abc' }],
      ['userId', { userId: '3.0' }],
      ['limit', { limit: '1e2' }],
      ['credential', { credential: 'password' }],
      ['from', { from: 'last march' }],
      ['to', { from: '2025-03-02T00:00:00Z', to: '2025-03-01T00:00:00Z' }],
      ['after', { after: 'not-a-cursor' }],
      ['cursor', { cursor: 'not-a-cursor' }],
      ['user', { user: '3' }],
    ])('given a bad %s, then 400 naming it', async (field, query) => {
      const res = await server.get(`/api/audit/events?${new URLSearchParams(query)}`, {
        token: await server.sessionToken(demo.users.auditor),
      });
      expect(res.status).toBe(400);
      expect(res.body.type).toBe('/problems/validation');
      expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual([field]);
    });
  });

  describe('GET /api/audit/resources/{id}/history', () => {
    it('given a created, shared, restricted and renamed resource, then each command is one step saying who, when and what changed', async () => {
      const auditor = await as(demo.users.auditor);
      const { data, response } = await auditor.GET('/api/audit/resources/{id}/history', {
        params: { path: { id: resourceId } },
      });
      expect(response.status).toBe(200);
      expect(resourceHistorySchema.safeParse(data).error).toBeUndefined();
      const steps = data!.steps;
      expect(steps.map((s) => [s.actor.userId, s.changes.map((c) => c.kind)])).toEqual([
        [demo.users.team, ['created']],
        [demo.users.admin1, ['shareAdded']],
        [demo.users.team, ['levelChanged', 'circlesGranted']],
        [demo.users.team, ['edited']],
      ]);
      expect(steps[1]).toMatchObject({ actorName: 'Cleo Park', actor: { credential: 'session' } });
      expect(steps[2]!.changes).toEqual([
        expect.objectContaining({ kind: 'levelChanged', block: 'owner', from: 2, to: 4 }),
        expect.objectContaining({ kind: 'circlesGranted', block: 'owner', circleIds: [demo.circles.reviewers1] }),
      ]);
      expect(steps[3]!.changes[0]).toMatchObject({ kind: 'edited', field: 'name', from: 'Budget', to: 'Budget 2025' });
      expect(steps.every((s) => typeof s.correlationId === 'string' && s.correlationId.length > 0)).toBe(true);
    });

    it('given a resource that never existed, then 404; given a bad id, then 400 naming it', async () => {
      const auditor = await as(demo.users.auditor);
      const missing = await auditor.GET('/api/audit/resources/{id}/history', { params: { path: { id: 999999 } } });
      expect(missing.response.status).toBe(404);
      expect(missing.error?.type).toBe('/problems/not-found');
      // A client outside the types can still send anything: the answer names the field.
      const bad = await server.get('/api/audit/resources/abc/history', {
        token: await server.sessionToken(demo.users.auditor),
      });
      expect(bad.status).toBe(400);
      expect(bad.body.errors.map((e: { field: string }) => e.field)).toEqual(['id']);
    });
  });

  describe('GET /api/audit/resources/{id}/access', () => {
    const activeUsers = [1, 2, 3, 4, 5, 6, 7, 8, 11];
    const viewsToAsk: (number | null)[] = [
      null,
      demo.communities.public1,
      demo.communities.private2,
      demo.communities.public3,
    ];

    it('given at = now, then for every demo user and every view the answer is what GetResourceList serves', async () => {
      const auditor = await as(demo.users.auditor);
      const { data, response } = await auditor.GET('/api/audit/resources/{id}/access', {
        params: { path: { id: resourceId } },
      });
      expect(response.status).toBe(200);
      expect(data!.status).toBe('active');
      expect(resourceAccessSchema.safeParse(data).error).toBeUndefined();
      // Not vacuous: the circle member sees it from community 1, the admin of community 2 through the share.
      expect(data!.views.find((v) => v.communityId === demo.communities.public1)?.users.map((u) => u.userId)).toContain(
        demo.users.circleMember,
      );
      expect(
        data!.views.find((v) => v.communityId === demo.communities.private2)?.users.map((u) => u.userId),
      ).toContain(demo.users.admin2);
      for (const communityId of viewsToAsk) {
        const view = data!.views.find((v) => v.communityId === communityId);
        const reviewed = (view?.users ?? []).map((u) => u.userId).sort((a, b) => a - b);
        const served: number[] = [];
        for (const userId of activeUsers) {
          const list = await (
            await as(userId)
          ).POST('/api/Project/GetResourceList', {
            body: { projectId: demo.projects.solar, ...(communityId === null ? {} : { communityId }), take: 1000 },
          });
          expect(list.response.status).toBe(200);
          if (list.data!.resources.list.some((r) => r.id === resourceId)) served.push(userId);
        }
        expect({ communityId, users: reviewed }).toEqual({ communityId, users: served });
      }
    });

    it('given a moment before the share, then community 2 has no view and community 1 is governed by level 2 (its members)', async () => {
      const auditor = await as(demo.users.auditor);
      const { data } = await auditor.GET('/api/audit/resources/{id}/access', {
        params: { path: { id: resourceId }, query: { at: beforeShare } },
      });
      expect(data!.views.map((v) => v.communityId)).toEqual([demo.communities.public1]);
      const view = data!.views[0]!;
      expect(view).toMatchObject({ governedBy: 'own', effectivePrivacyLevel: 2, communityName: 'Green Valley Makers' });
      expect(view.users.map((u) => u.userId).sort((a, b) => a - b)).toEqual([
        demo.users.team,
        demo.users.admin1,
        demo.users.member1,
        demo.users.circleMember,
      ]);
      const member = view.users.find((u) => u.userId === demo.users.member1)!;
      expect(member.reasons).toEqual([
        expect.objectContaining({ kind: 'member', level: 2, communityId: demo.communities.public1 }),
      ]);
      const admin = view.users.find((u) => u.userId === demo.users.admin1)!;
      expect(admin.reasons.map((r) => r.kind)).toContain('administersView');
    });

    it('given a moment before the resource existed, then it is reported as not created; a bad at is a 400 naming it', async () => {
      const auditor = await as(demo.users.auditor);
      const early = await auditor.GET('/api/audit/resources/{id}/access', {
        params: { path: { id: resourceId }, query: { at: '2000-01-01T00:00:00Z' } },
      });
      expect(early.data).toMatchObject({ status: 'notCreated', views: [] });
      const bad = await auditor.GET('/api/audit/resources/{id}/access', {
        params: { path: { id: resourceId }, query: { at: 'last March' } },
      });
      expect(bad.response.status).toBe(400);
      expect(bad.error?.errors?.map((e) => e.field)).toEqual(['at']);
    });
  });

  describe('auditor reads are recorded', () => {
    it('given an auditor read, then an AuditRead event in audit-{userId} says who read what, when, under which request', async () => {
      const auditor = await as(demo.users.auditor);
      const read = await auditor.GET('/api/audit/resources/{id}/history', { params: { path: { id: resourceId } } });
      const correlationId = read.response.headers.get('x-correlation-id');
      const { data } = await auditor.GET('/api/audit/events', {
        params: { query: { stream: `audit-${demo.users.auditor}`, type: 'AuditRead' } },
      });
      const recorded = data!.items.find((e) => e.metadata.correlationId === correlationId);
      expect(recorded).toMatchObject({
        data: { route: 'GET /api/audit/resources/{id}/history', params: { id: resourceId } },
        metadata: { actor: { userId: demo.users.auditor, credential: 'session' } },
      });
    });
  });
});

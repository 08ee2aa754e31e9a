import { demo } from '../support/demo-directory';
import type { ResourceRecord } from '../support/resource-api';
import { fieldsOf, idsOf, newResource, resourceApi, scope } from '../support/resource-api';
import { serverForSuite } from '../support/suite-server';

/**
 * GET /api/Resource/RemoveProjectResource?id= (docs/api.md "RemoveProjectResource"), over HTTP, on
 * the demo directory: project 10 is in communities 1 (community project 1000) and 2 (1001).
 */
const { users, communities, projects, communityProjects } = demo;
const P = projects.solar;

describe('GET /api/Resource/RemoveProjectResource', () => {
  const server = serverForSuite();
  const api = resourceApi(server);

  /** Whether the team (who sees every resource of the project) finds it in a view. */
  const listedIn = async (
    resourceId: number,
    communityId: number | null,
    userId: number = users.team,
  ): Promise<boolean> =>
    idsOf(await api.listOk(userId, { projectId: P, communityId, take: 1000 })).includes(resourceId);

  describe('given a public project resource, seen project-wide and from both communities of the project', () => {
    // Each test creates its own resource: none depends on another having removed it.
    const publicResource = () => api.create(users.team, newResource(scope.project(P), { privacyLevel: 1 }));

    it('the givens hold: it is listed in every view', async () => {
      const resource = await publicResource();
      expect(await listedIn(resource.id, null)).toBe(true);
      expect(await listedIn(resource.id, communities.public1)).toBe(true);
      expect(await listedIn(resource.id, communities.private2)).toBe(true);
      expect(await listedIn(resource.id, communities.public1, users.member1)).toBe(true);
    });

    it('when the team removes it, then {statusCode: 200} and it is gone at once from every view', async () => {
      // given
      const resource = await publicResource();
      expect(await listedIn(resource.id, communities.private2, users.admin2)).toBe(true);
      // when
      const res = await api.remove(users.team, resource.id);
      // then
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ statusCode: 200 });
      expect(await listedIn(resource.id, null)).toBe(false);
      expect(await listedIn(resource.id, communities.public1)).toBe(false);
      expect(await listedIn(resource.id, communities.private2)).toBe(false);
      expect(await listedIn(resource.id, communities.public1, users.member1)).toBe(false);
      expect(await listedIn(resource.id, communities.private2, users.admin2)).toBe(false);
    });

    it('when it is removed a second time, then 404', async () => {
      // given
      const resource = await publicResource();
      expect((await api.remove(users.team, resource.id)).status).toBe(200);
      // when
      const res = await api.remove(users.team, resource.id);
      // then
      expect(res.status).toBe(404);
      expect(res.body.type).toBe('/problems/not-found');
    });

    it('when it is removed, its history stays: the whole stream is still in the event store, ending with ResourceDeleted', async () => {
      // given
      const resource = await publicResource();
      // when
      expect((await api.remove(users.team, resource.id)).status).toBe(200);
      // then: the only look below HTTP in this suite: the audit trail lives in the event store port.
      const stream = await server.services.eventStore.readStream(`resource-${resource.id}`);
      expect(stream.map((e) => e.type)).toEqual(['ResourceCreated', 'ResourceDeleted']);
      expect(stream.every((e) => e.metadata.actor.userId === users.team)).toBe(true);
    });
  });

  describe('given a community-project resource that was created, updated and changed level', () => {
    let resource: ResourceRecord;
    beforeAll(async () => {
      resource = await api.create(
        users.team,
        newResource(scope.communityProject(communityProjects.solarIn1), { privacyLevel: 2 }),
      );
      const update = await api.save(users.team, {
        ...newResource({}),
        id: resource.id,
        name: 'Second draft',
        privacyLevel: 1,
      });
      expect(update.status).toBe(200);
    });

    it('when the owning community admin removes it, then 200, it is gone, and every event stays in its stream', async () => {
      expect(await listedIn(resource.id, communities.public1, users.outsider)).toBe(true);
      const res = await api.remove(users.admin1, resource.id);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ statusCode: 200 });
      expect(await listedIn(resource.id, communities.public1)).toBe(false);
      expect(await listedIn(resource.id, communities.public1, users.outsider)).toBe(false);
      expect(await listedIn(resource.id, communities.public1, users.admin1)).toBe(false);
      // The only look below HTTP in this suite: the audit trail lives in the event store port.
      const types = (await server.services.eventStore.readStream(`resource-${resource.id}`)).map((e) => e.type);
      expect(types).toEqual(['ResourceCreated', 'ResourceUpdated', 'OwnerPrivacyChanged', 'ResourceDeleted']);
    });
  });

  describe("given a mentor's resource", () => {
    it('the mentor who created it may remove it', async () => {
      const mine = await api.create(users.mentor, newResource(scope.communityProject(communityProjects.solarIn1)));
      const res = await api.remove(users.mentor, mine.id);
      expect(res.status).toBe(200);
      expect(await listedIn(mine.id, communities.public1)).toBe(false);
    });

    it('the team may remove it too', async () => {
      const mentors = await api.create(users.mentor, newResource(scope.communityProject(communityProjects.solarIn1)));
      expect((await api.remove(users.team, mentors.id)).status).toBe(200);
    });
  });

  describe('callers who may not remove', () => {
    it.each<[string, number, () => Record<string, unknown>]>([
      ['an approved member', users.member1, () => newResource(scope.communityProject(communityProjects.solarIn1))],
      ['a pending member', users.pending1, () => newResource(scope.communityProject(communityProjects.solarIn1))],
      ['a circle member', users.circleMember, () => newResource(scope.communityProject(communityProjects.solarIn1))],
      ['an outsider', users.outsider, () => newResource(scope.project(P))],
      [
        'a mentor, on a resource the team created',
        users.mentor,
        () => newResource(scope.communityProject(communityProjects.solarIn1)),
      ],
      ['a community admin, on a project resource', users.admin1, () => newResource(scope.project(P))],
      [
        'the admin of another community',
        users.admin2,
        () => newResource(scope.communityProject(communityProjects.solarIn1)),
      ],
    ])('given %s, when they remove a public resource, then 403 and it stays', async (_who, userId, body) => {
      const resource = await api.create(users.team, body());
      const res = await api.remove(userId, resource.id);
      expect(res.status).toBe(403);
      expect(res.body.type).toBe('/problems/forbidden');
      expect(await listedIn(resource.id, communities.public1)).toBe(true);
    });

    it('given a Team-level resource the caller cannot even see, when an outsider removes it, then 403 (a write), not 404', async () => {
      const hidden = await api.create(users.team, newResource(scope.project(P), { privacyLevel: 3 }));
      expect(await listedIn(hidden.id, null, users.outsider)).toBe(false);
      const res = await api.remove(users.outsider, hidden.id);
      expect(res.status).toBe(403);
      expect(res.body.type).toBe('/problems/forbidden');
      expect(await listedIn(hidden.id, null)).toBe(true);
    });

    it('given a banned user, then 403', async () => {
      const resource = await api.create(users.team, newResource(scope.project(P)));
      const res = await api.remove(users.banned, resource.id);
      expect(res.status).toBe(403);
      expect(res.body.type).toBe('/problems/forbidden');
    });

    it('given no credential, then 401', async () => {
      const resource = await api.create(users.team, newResource(scope.project(P)));
      const res = await server.get(`/api/Resource/RemoveProjectResource?id=${resource.id}`);
      expect(res.status).toBe(401);
      expect(res.body.type).toBe('/problems/unauthenticated');
      expect(await listedIn(resource.id, null)).toBe(true);
    });
  });

  describe('ids', () => {
    it('when the id is unknown, then 404', async () => {
      const res = await api.remove(users.team, 777_777);
      expect(res.status).toBe(404);
      expect(res.body.type).toBe('/problems/not-found');
    });

    it.each(['abc', '0', '-3', '1.5', '', '1e3x'])('when the id is %j, then 400 naming id', async (id) => {
      const res = await api.remove(users.team, id);
      expect(res.status).toBe(400);
      expect(res.body.type).toBe('/problems/validation');
      expect(fieldsOf(res.body)).toEqual(['id']);
    });

    it("when the id is another spelling of a resource's id (hex, a fraction, an exponent, a space, a leading zero), then 400 naming id, and that resource stays", async () => {
      const kept = await api.create(users.team, newResource(scope.communityProject(communityProjects.solarIn1)));
      const spellings = [`0x${kept.id.toString(16)}`, `${kept.id}.0`, `${kept.id}e0`, ` ${kept.id}`, `0${kept.id}`];
      for (const id of spellings) {
        const res = await api.remove(users.team, id);
        expect([id, res.status, fieldsOf(res.body)]).toEqual([id, 400, ['id']]);
      }
      expect((await api.remove(users.team, kept.id)).status).toBe(200);
    });

    it('when the id is missing, then 400 naming id', async () => {
      const res = await server.get('/api/Resource/RemoveProjectResource', { token: await api.tokenOf(users.team) });
      expect(res.status).toBe(400);
      expect(fieldsOf(res.body)).toEqual(['id']);
    });

    it('when the id is sent twice, then 400 naming id', async () => {
      const res = await server.get('/api/Resource/RemoveProjectResource?id=1&id=2', {
        token: await api.tokenOf(users.team),
      });
      expect(res.status).toBe(400);
      expect(fieldsOf(res.body)).toEqual(['id']);
    });
  });
});

import { demo } from '../support/demo-directory';
import { newResource, resourceApi, scope } from '../support/resource-api';
import { serverForSuite } from '../support/suite-server';

/**
 * Two rules docs/api.md settles: a mentor's new resource is always Custom with the
 * team and mentors circles, even when the mentor administers the community; a creator keeps the
 * edit right (and the sight) while on the team or a mentor, whatever role they created it with.
 */
const { users, communities, projects, communityProjects } = demo;
const P = projects.solar;

describe('settled rules over HTTP', () => {
  const server = serverForSuite();
  const api = resourceApi(server);

  const directory = async (...events: { type: string; data: Record<string, unknown> }[]) =>
    expect((await server.directory(events)).status).toBe(200);
  const seen = async (userId: number, resourceId: number) =>
    (await api.listOk(userId, { projectId: P, communityId: communities.public1, take: 1000 })).resources.list.some(
      (r) => r.id === resourceId,
    );

  it('given a mentor who also administers the community, when they create at Public, then the resource is Custom', async () => {
    await directory({
      type: 'CommunityMemberSet',
      data: { communityId: communities.public1, userId: users.mentor, role: 'admin', status: 'approved' },
    });
    try {
      const res = await api.save(
        users.mentor,
        newResource(scope.communityProject(communityProjects.solarIn1), { privacyLevel: 1 }),
      );

      expect(res.status).toBe(200);
      expect(res.body.privacyLevel).toBe(4);
      expect(await seen(users.member1, res.body.id)).toBe(false);
    } finally {
      await directory({
        type: 'CommunityMemberRemoved',
        data: { communityId: communities.public1, userId: users.mentor },
      });
    }
  });

  it('given a resource created by a team member, when they move to mentoring, they still edit and see it; when they leave, neither', async () => {
    const creator = 880_101;
    await directory(
      { type: 'UserUpserted', data: { userId: creator, name: 'Mover', status: 'active' } },
      { type: 'ProjectMemberSet', data: { projectId: P, userId: creator, role: 'team' } },
    );
    const created = await api.create(
      creator,
      newResource(scope.communityProject(communityProjects.solarIn1), { privacyLevel: 3 }),
    );

    await directory({ type: 'ProjectMemberSet', data: { projectId: P, userId: creator, role: 'mentor' } });
    expect(await seen(creator, created.id)).toBe(true);
    expect(
      (
        await api.save(creator, {
          ...newResource(scope.communityProject(communityProjects.solarIn1), { privacyLevel: 3 }),
          id: created.id,
        })
      ).status,
    ).toBe(200);

    await directory({ type: 'ProjectMemberRemoved', data: { projectId: P, userId: creator } });
    expect(await seen(creator, created.id)).toBe(false);
    expect((await api.remove(creator, created.id)).status).toBe(403);
  });
});

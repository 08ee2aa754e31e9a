import { demo } from '../support/demo-directory';
import { communityCircle, privacyApi } from '../support/privacy-api';
import { serverForSuite } from '../support/suite-server';

/**
 * GetResourcePrivacy for someone who can only read the resource (issue 11 item 9): the level,
 * never the granted circles, whose names can belong to a private community.
 *
 * Given a resource of project 10 owned by community 1 at Custom, granted to circle 300 (Reviewers,
 * community 1), and shared by community 1's admin into community 3 (public) at Public, so anyone
 * reaching community 3 reads it.
 */
const { users, communities, projects, circles } = demo;

describe('GetResourcePrivacy for readers', () => {
  const api = privacyApi(serverForSuite());
  let resourceId: number;

  beforeAll(async () => {
    resourceId = await api.create(users.team, { projectId: projects.solar, communityId: communities.public1 }, 4);
    await api.saveOk(users.team, {
      resourceId,
      owner: { privacyLevel: 4, circlesToAdd: [communityCircle(circles.reviewers1, communities.public1)] },
    });
    await api.saveOk(users.admin1, { resourceId, sharesToUpsert: [{ communityId: communities.public3, privacyLevel: 1 }] });
  });

  it.each([
    ['someone outside, reading through the public share', users.outsider],
    ['a member of the granted circle', users.circleMember],
  ])('given %s, when they read the privacy, then the level without circles', async (_who, userId) => {
    const res = await api.read(userId, resourceId);

    expect(res.status).toBe(200);
    expect(res.body.owner).toEqual({ privacyLevel: 4, circles: [] });
    expect(res.body.shares).toEqual([]);
    expect(res.body.shareCandidates).toEqual([]);
  });

  it.each([
    ['the team', users.team],
    ['the owning community admin', users.admin1],
  ])('given %s, when they read the privacy, then the granted circles are listed', async (_who, userId) => {
    const res = await api.read(userId, resourceId);

    expect(res.status).toBe(200);
    expect(res.body.owner.circles.flatMap((g) => g.privacyCircles.map((c) => c.id))).toEqual([circles.reviewers1]);
  });

  it('given the admin of the community shared into, when they read the privacy, then their share but not the owner circles', async () => {
    const res = await api.read(users.admin2, resourceId);

    expect(res.status).toBe(200);
    expect(res.body.owner).toEqual({ privacyLevel: 4, circles: [] });
    expect(res.body.shares.map((s) => [s.communityId, s.privacyLevel])).toEqual([[communities.public3, 1]]);
  });
});

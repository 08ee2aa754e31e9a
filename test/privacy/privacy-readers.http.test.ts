import { demo } from '../support/demo-directory';
import type { ResourcePrivacy } from '../support/privacy-api';
import { communityCircle, privacyApi } from '../support/privacy-api';
import { serverForSuite } from '../support/suite-server';

/**
 * GetResourcePrivacy for someone who can only read the resource: the level,
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
    await api.saveOk(users.admin1, {
      resourceId,
      sharesToUpsert: [{ communityId: communities.public3, privacyLevel: 1 }],
    });
  });

  /** What each kind of caller is shown of the privacy. */
  const thens = {
    'the level without circles': (privacy: ResourcePrivacy) => {
      expect(privacy.owner).toEqual({ privacyLevel: 4, circles: [] });
      expect(privacy.shares).toEqual([]);
      expect(privacy.shareCandidates).toEqual([]);
    },
    'the granted circles are listed': (privacy: ResourcePrivacy) => {
      expect(privacy.owner.circles.flatMap((g) => g.privacyCircles.map((c) => c.id))).toEqual([circles.reviewers1]);
    },
    'their share but not the owner circles': (privacy: ResourcePrivacy) => {
      expect(privacy.owner).toEqual({ privacyLevel: 4, circles: [] });
      expect(privacy.shares.map((s) => [s.communityId, s.privacyLevel])).toEqual([[communities.public3, 1]]);
    },
  };

  it.each<[string, keyof typeof thens, number]>([
    ['someone outside, reading through the public share', 'the level without circles', users.outsider],
    ['a member of the granted circle', 'the level without circles', users.circleMember],
    ['the team', 'the granted circles are listed', users.team],
    ['the owning community admin', 'the granted circles are listed', users.admin1],
    ['the admin of the community shared into', 'their share but not the owner circles', users.admin2],
  ])('given %s, when they read the privacy, then %s', async (_who, then, userId) => {
    const res = await api.read(userId, resourceId);

    expect(res.status).toBe(200);
    thens[then](res.body);
  });
});

/**
 * docs/api.md SaveResourcePrivacy "Who may change what" (and UnshareResourceFromCommunity), as one
 * table of (caller, resource, change) → status, walked over HTTP by one test. Every row gets a
 * fresh resource, so rows cannot leak into each other; after each row the privacy is read back
 * (as the team, who sees every share) to check that a 200 applied the change and a refusal left
 * everything as it was.
 *
 * The world is the demo directory plus Lia (21), an admin of community 3 only. Resources belong to
 * project 10 (Solar Kiosk), which is in communities 1 and 2:
 *  - cp: a community-project resource owned by community 1 (created by its admin, Cleo);
 *  - project: a project resource (created by the team, Ada).
 * Shares in the givens go into community 2 (admin: Finn), made by whoever may share the resource.
 */
import { demo, demoDirectory } from '../support/demo-directory';
import type { ResourcePrivacy, SavePrivacyBody, Where } from '../support/privacy-api';
import { privacyApi } from '../support/privacy-api';
import { serverForSuite } from '../support/suite-server';
import type { HttpResult } from '../support/test-server';

const OTHER_ADMIN = 21;
const P = demo.projects.solar;
const OWNING = demo.communities.public1;
const SHARED_INTO = demo.communities.private2;

const callers = {
  team: demo.users.team,
  mentor: demo.users.mentor,
  'owning admin': demo.users.admin1,
  'member of the owning community': demo.users.member1,
  'admin of the shared-into community': demo.users.admin2,
  'admin of another community': OTHER_ADMIN,
  outsider: demo.users.outsider,
} as const;
type Caller = keyof typeof callers;

type Kind = 'cp' | 'project';
type Change = 'own privacy' | 'add share' | 'update share' | 'remove share' | 'unshare endpoint';

/**
 * For a project resource "owning admin" is Cleo all the same: an admin of community 1, a community
 * the project belongs to, but with no owning community to administer.
 */
const table: [Caller, Kind, Change, 200 | 403 | 409][] = [
  // The own privacy: the team; for a community-project resource also the owning admins.
  ['team', 'cp', 'own privacy', 200],
  ['owning admin', 'cp', 'own privacy', 200],
  ['mentor', 'cp', 'own privacy', 403],
  ['member of the owning community', 'cp', 'own privacy', 403],
  ['admin of the shared-into community', 'cp', 'own privacy', 403],
  ['admin of another community', 'cp', 'own privacy', 403],
  ['outsider', 'cp', 'own privacy', 403],
  ['team', 'project', 'own privacy', 200],
  ['owning admin', 'project', 'own privacy', 403],
  ['mentor', 'project', 'own privacy', 403],
  ['admin of the shared-into community', 'project', 'own privacy', 403],
  ['outsider', 'project', 'own privacy', 403],

  // A new share: a community-project resource by the owning admins only (not even the team); a
  // project resource by the team, into a community the project belongs to.
  ['owning admin', 'cp', 'add share', 200],
  ['team', 'cp', 'add share', 403],
  ['admin of the shared-into community', 'cp', 'add share', 403],
  ['mentor', 'cp', 'add share', 403],
  ['member of the owning community', 'cp', 'add share', 403],
  ['admin of another community', 'cp', 'add share', 403],
  ['outsider', 'cp', 'add share', 403],
  ['team', 'project', 'add share', 200],
  ['owning admin', 'project', 'add share', 403],
  ['admin of the shared-into community', 'project', 'add share', 403],
  ['mentor', 'project', 'add share', 403],
  ['outsider', 'project', 'add share', 403],

  // Changing an existing share: as adding one; 409 for those who may remove it but not change it.
  ['owning admin', 'cp', 'update share', 200],
  ['team', 'cp', 'update share', 409],
  ['admin of the shared-into community', 'cp', 'update share', 409],
  ['mentor', 'cp', 'update share', 403],
  ['member of the owning community', 'cp', 'update share', 403],
  ['admin of another community', 'cp', 'update share', 403],
  ['outsider', 'cp', 'update share', 403],
  ['team', 'project', 'update share', 200],
  ['admin of the shared-into community', 'project', 'update share', 409],
  ['owning admin', 'project', 'update share', 403],
  ['admin of another community', 'project', 'update share', 403],
  ['mentor', 'project', 'update share', 403],
  ['outsider', 'project', 'update share', 403],

  // Removing a share: the team, the admins of the community unshared, the owning admins.
  ['team', 'cp', 'remove share', 200],
  ['admin of the shared-into community', 'cp', 'remove share', 200],
  ['owning admin', 'cp', 'remove share', 200],
  ['mentor', 'cp', 'remove share', 403],
  ['member of the owning community', 'cp', 'remove share', 403],
  ['admin of another community', 'cp', 'remove share', 403],
  ['outsider', 'cp', 'remove share', 403],
  ['team', 'project', 'remove share', 200],
  ['admin of the shared-into community', 'project', 'remove share', 200],
  ['owning admin', 'project', 'remove share', 403],
  ['admin of another community', 'project', 'remove share', 403],
  ['mentor', 'project', 'remove share', 403],
  ['outsider', 'project', 'remove share', 403],

  // UnshareResourceFromCommunity is one sharesToRemove entry: the same rights.
  ['team', 'cp', 'unshare endpoint', 200],
  ['admin of the shared-into community', 'cp', 'unshare endpoint', 200],
  ['owning admin', 'cp', 'unshare endpoint', 200],
  ['member of the owning community', 'cp', 'unshare endpoint', 403],
  ['admin of another community', 'cp', 'unshare endpoint', 403],
  ['outsider', 'cp', 'unshare endpoint', 403],
  ['team', 'project', 'unshare endpoint', 200],
  ['admin of the shared-into community', 'project', 'unshare endpoint', 200],
  ['owning admin', 'project', 'unshare endpoint', 403],
  ['mentor', 'project', 'unshare endpoint', 403],
];

const PROBLEM_TYPE = { 403: '/problems/forbidden', 409: '/problems/conflict' } as const;

describe('SaveResourcePrivacy and UnshareResourceFromCommunity: who may change what', () => {
  const lia = [
    { type: 'UserUpserted', data: { userId: OTHER_ADMIN, name: 'Lia Novak', status: 'active' } },
    {
      type: 'CommunityMemberSet',
      data: { communityId: demo.communities.public3, userId: OTHER_ADMIN, role: 'admin', status: 'approved' },
    },
  ];
  const server = serverForSuite([demoDirectory.events, lia]);
  const api = privacyApi(server);

  /** A fresh resource, shared into SHARED_INTO at Public when the change needs an existing share. */
  async function givenResource(kind: Kind, change: Change): Promise<number> {
    const where: Where = kind === 'cp' ? { projectId: P, communityId: OWNING } : { projectId: P, communityId: null };
    const sharer = kind === 'cp' ? demo.users.admin1 : demo.users.team;
    const resourceId = await api.create(sharer, where, 1);
    if (change !== 'own privacy' && change !== 'add share') {
      await api.saveOk(sharer, { resourceId, sharesToUpsert: [{ communityId: SHARED_INTO, privacyLevel: 1 }] });
    }
    return resourceId;
  }

  function when(change: Change, userId: number, resourceId: number): Promise<HttpResult> {
    const body: SavePrivacyBody = { resourceId };
    switch (change) {
      case 'own privacy':
        return api.save(userId, { ...body, owner: { privacyLevel: 3 } });
      case 'add share':
        return api.save(userId, { ...body, sharesToUpsert: [{ communityId: SHARED_INTO, privacyLevel: 3 }] });
      case 'update share':
        return api.save(userId, { ...body, sharesToUpsert: [{ communityId: SHARED_INTO, privacyLevel: 5 }] });
      case 'remove share':
        return api.save(userId, { ...body, sharesToRemove: [{ communityId: SHARED_INTO }] });
      case 'unshare endpoint':
        return api.unshare(userId, { resourceId, communityId: SHARED_INTO });
    }
  }

  /** The privacy the change should have produced. */
  function applied(change: Change, before: ResourcePrivacy): ResourcePrivacy {
    const share = (privacyLevel: number) => ({
      communityId: SHARED_INTO,
      communityName: 'Harbour Founders',
      privacyLevel,
      circles: [],
    });
    switch (change) {
      case 'own privacy':
        return { ...before, owner: { privacyLevel: 3, circles: [] } };
      case 'add share':
        return {
          ...before,
          shares: [share(3)],
          shareCandidates: before.shareCandidates.filter((c) => c.communityId !== SHARED_INTO),
        };
      case 'update share':
        return { ...before, shares: [share(5)] };
      case 'remove share':
      case 'unshare endpoint':
        return {
          ...before,
          shares: [],
          shareCandidates: [
            ...before.shareCandidates,
            { communityId: SHARED_INTO, communityName: 'Harbour Founders' },
          ].sort((a, b) => a.communityId - b.communityId),
        };
    }
  }

  it('given a fresh resource per row, when each caller makes each change, then the status is as the table says and only a 200 changes anything', async () => {
    const expected: Record<string, string> = {};
    const actual: Record<string, string> = {};
    for (const [caller, kind, change, status] of table) {
      const row = `${caller} / ${kind} / ${change}`;
      const resourceId = await givenResource(kind, change);
      const before = await api.readAll(resourceId);

      const res = await when(change, callers[caller], resourceId);

      const after = await api.readAll(resourceId);
      const problem = res.body as { type?: string; errors?: { field: string }[] } | undefined;
      const type = res.status === 200 ? '' : problem?.type;
      // A refusal names fields of the request that was sent, whichever endpoint it was.
      const sent = change === 'unshare endpoint' ? ['resourceId', 'communityId'] : null;
      const strangers = sent ? (problem?.errors ?? []).map((e) => e.field).filter((f) => !sent.includes(f)) : [];
      const outcome = status === 200 ? applied(change, before) : before;
      expected[row] = `${status} ${status === 200 ? '' : PROBLEM_TYPE[status]} state ok fields named []`;
      actual[row] =
        `${res.status} ${type ?? ''} state ${JSON.stringify(after) === JSON.stringify(outcome) ? 'ok' : JSON.stringify(after)}` +
        ` fields named ${JSON.stringify(strangers)}`;
      if (res.status === 200) expect(res.text).toBe('');
    }
    expect(actual).toEqual(expected);
  });
});

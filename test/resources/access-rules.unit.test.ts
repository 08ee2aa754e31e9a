import {
  canAddResources,
  canEditPrivacyOnProject,
  canSeeAllShares,
  canSeeResourcePrivacyShare,
  canShareCrossCommunity,
  canUpsertShare,
} from '../../src/resources/access/permissions';
import type { View } from '../../src/resources/access/views';
import { administersView, principalsFor, reachesView, viewKey } from '../../src/resources/access/views';
import { isApprovedMember, isCommunityAdmin } from '../../src/directory/viewer';
import { PRIVACY, isPrivacyLevel, validLevelFor } from '../../src/resources/access/privacy-policy';
import {
  D,
  E,
  MENTORS_CIRCLE,
  N,
  O,
  P,
  TEAM_CIRCLE,
  approvedMember,
  communityScope,
  community,
  mentor,
  outsider,
  owningAdmin,
  project,
  projectScope,
  sharedIntoAdmin,
  team,
  viewer,
} from './resource-fixtures';

describe('privacy levels', () => {
  it.each([1, 2, 3, 4, 5])('given %p, then it is a level', (n) => expect(isPrivacyLevel(n)).toBe(true));

  it.each([0, 6, -1, 1.5, NaN, '1', null])('given %p, then it is not a level', (n) =>
    expect(isPrivacyLevel(n)).toBe(false),
  );

  it('given the table of where each level is valid, then Community is invalid only on a project resource’s own level', () => {
    const table = (['communityProjectOwner', 'projectOwner', 'share'] as const).map((block) =>
      [0, 1, 2, 3, 4, 5, 6].map((level) => (validLevelFor(block, level) ? 'Y' : 'N')).join(''),
    );

    expect(table).toEqual(['NYYYYYN', 'NYNYYYN', 'NYYYYYN']);
    expect(PRIVACY.TeamAndMentors).toBe(5);
  });
});

describe('viewer predicates', () => {
  it('given a pending admin, then they are neither an approved member nor an admin', () => {
    const pendingAdmin = {
      ...outsider,
      communities: new Map([[O, { role: 'admin' as const, status: 'pending' as const }]]),
    };

    expect(isApprovedMember(pendingAdmin, O)).toBe(false);
    expect(isCommunityAdmin(pendingAdmin, O)).toBe(false);
    expect(isCommunityAdmin(owningAdmin, O)).toBe(true);
    expect(isApprovedMember(owningAdmin, O)).toBe(true);
  });
});

describe('views and principals', () => {
  const projectView: View = { kind: 'project', project };
  const fromO: View = { kind: 'community', project, community: community(O) };

  it('given views, then their keys name the project or the community', () => {
    expect(viewKey(projectView)).toBe(`p:${P}`);
    expect(viewKey(fromO)).toBe(`c:${O}`);
  });

  it('given a private project, then it is reached by its people and the approved members of its communities only', () => {
    expect(
      [team, mentor, approvedMember, viewer(40, { approved: [N] }), viewer(41, { pending: [O] })].map((v) =>
        reachesView(v, projectView),
      ),
    ).toEqual([true, true, true, false, false]);
    expect(reachesView(outsider, { kind: 'project', project: { ...project, visibility: 'public' } })).toBe(true);
  });

  it('given a team member who administers O, then their principals say so', () => {
    const who = viewer(42, { team: true, admins: [O], approved: [D], pending: [E], circles: [501] });

    expect(principalsFor(who, fromO).sort()).toEqual(
      [
        'public',
        `team:p:${P}`,
        `member:c:${D}`,
        `member:c:${O}`,
        `admin:c:${O}`,
        'circle:501',
        `circle:${TEAM_CIRCLE}`,
      ].sort(),
    );
    expect(administersView(who, fromO)).toBe(true);
    expect(administersView(who, projectView)).toBe(false);
  });

  it('given a mentor, then they hold the mentor and author principals of this project', () => {
    expect(principalsFor(mentor, projectView).sort()).toEqual(
      ['public', `mentor:p:${P}`, `author:${mentor.userId}`, `circle:${MENTORS_CIRCLE}`].sort(),
    );
  });
});

describe('project-level flags and privacy read rules', () => {
  it('given the add right, then inside a community mentors and that community’s admins have it too', () => {
    expect(canAddResources(team, P, null)).toBe(true);
    expect(canAddResources(mentor, P, null)).toBe(false);
    expect(canAddResources(mentor, P, O)).toBe(true);
    expect(canAddResources(owningAdmin, P, O)).toBe(true);
    expect(canAddResources(owningAdmin, P, D)).toBe(false);
    expect(canAddResources(approvedMember, P, O)).toBe(false);
  });

  it('given canEditPrivacy, then the team and an admin of the view community have it', () => {
    expect(canEditPrivacyOnProject(team, P, null)).toBe(true);
    expect(canEditPrivacyOnProject(owningAdmin, P, O)).toBe(true);
    expect(canEditPrivacyOnProject(owningAdmin, P, null)).toBe(false);
    expect(canEditPrivacyOnProject(mentor, P, O)).toBe(false);
  });

  it('given GetResourcePrivacy, then the team and owning admins see all shares; a shared-into admin sees only theirs', () => {
    const cp = { scope: communityScope };

    expect(canSeeAllShares(team, cp)).toBe(true);
    expect(canSeeAllShares(owningAdmin, cp)).toBe(true);
    expect(canSeeAllShares(sharedIntoAdmin, cp)).toBe(false);
    expect(canSeeResourcePrivacyShare(sharedIntoAdmin, cp, D)).toBe(true);
    expect(canSeeResourcePrivacyShare(sharedIntoAdmin, cp, E)).toBe(false);
    expect(canSeeResourcePrivacyShare(approvedMember, cp, D)).toBe(false);
    expect(canShareCrossCommunity(owningAdmin, cp)).toBe(true);
    expect(canShareCrossCommunity(owningAdmin, { scope: projectScope })).toBe(false);
    expect(canShareCrossCommunity(mentor, cp)).toBe(false);
  });

  it('given the team of a community-project resource, then the sharing controls are theirs although only the owning admins add shares', () => {
    const cp = { scope: communityScope };

    expect([canUpsertShare(team, cp), canShareCrossCommunity(team, cp)]).toEqual([false, true]);
  });
});

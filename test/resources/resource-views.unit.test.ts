import { principalsFor } from '../../src/resources/access/views';
import type { PrivacyLevel } from '../../src/resources/access/privacy-policy';
import type { Resource } from '../../src/resources/resource';
import type { ResourceView } from '../../src/resources/access/resource-views';
import { canSee, viewsOf } from '../../src/resources/access/resource-views';
import { shareCandidateIds } from '../../src/privacy/share-candidates';
import { foldResource } from '../../src/resources/resource-evolve';
import type { ResourceEventData } from '../../src/resources/resource-events';
import {
  D,
  D_CIRCLE,
  E,
  N,
  O,
  OWNER,
  P,
  P_CIRCLE,
  community,
  created,
  granted,
  mentor,
  owningAdmin,
  project,
  projectScope,
  ref,
  share,
  shared,
  viewer,
} from './resource-fixtures';

const fold = (events: ResourceEventData[]): Resource => {
  const state = foldResource(events);
  if (state.status !== 'active') throw new Error('expected an active resource');
  return state.resource;
};

/** The fixtures' `created` is by user 1; every audience names its creator (a creator may always edit). */
const CREATOR = 1;

const byKey = (views: ResourceView[]): Record<string, ResourceView> =>
  Object.fromEntries(views.map((v) => [v.viewKey, v]));

describe('viewsOf', () => {
  it('given a project resource shared into D, then it has the project view and one view per community, D governed by the share', () => {
    const resource = fold([
      created({ scope: projectScope, privacyLevel: 3 }),
      shared(D, 4),
      granted(share(D), D_CIRCLE),
    ]);

    const views = byKey(viewsOf(resource, project.communityIds));

    expect(Object.keys(views).sort()).toEqual([`c:${D}`, `c:${E}`, `c:${O}`, `p:${P}`].sort());
    expect(views[`p:${P}`]).toMatchObject({
      communityId: null,
      governedBy: 'own',
      effectivePrivacyLevel: 3,
      originCommunityId: null,
    });
    expect(views[`c:${E}`]).toMatchObject({
      communityId: E,
      governedBy: 'own',
      effectivePrivacyLevel: 3,
      originCommunityId: null,
    });
    expect(views[`c:${D}`]).toEqual({
      viewKey: `c:${D}`,
      communityId: D,
      governedBy: 'share',
      effectivePrivacyLevel: 4,
      circles: [ref(D_CIRCLE)],
      originCommunityId: null,
      audience: [`team:p:${P}`, `author:${CREATOR}`, `circle:${D_CIRCLE}`],
    });
  });

  it('given a community-project resource shared into D and N, then it is seen in O (own) and through each share, with O as origin', () => {
    const resource = fold([created({ privacyLevel: 2 }), shared(D, 1), shared(N, 4)]);

    const views = byKey(viewsOf(resource, project.communityIds));

    expect(Object.keys(views).sort()).toEqual([`c:${D}`, `c:${N}`, `c:${O}`].sort());
    expect(views[`c:${O}`]).toMatchObject({ governedBy: 'own', effectivePrivacyLevel: 2, originCommunityId: null });
    expect(views[`c:${O}`]?.audience).toEqual([`team:p:${P}`, `admin:c:${O}`, `author:${CREATOR}`, `member:c:${O}`]);
    expect(views[`c:${D}`]).toMatchObject({ governedBy: 'share', effectivePrivacyLevel: 1, originCommunityId: O });
    expect(views[`c:${N}`]).toMatchObject({
      governedBy: 'share',
      effectivePrivacyLevel: 4,
      originCommunityId: O,
      circles: [],
    });
  });

  it.each<[PrivacyLevel, string[]]>([
    [1, ['public']],
    [2, [`member:c:${D}`]],
    [3, []],
    [4, [`circle:${P_CIRCLE}`]],
    [5, [`mentor:p:${P}`]],
  ])('given a share at %p, then its audience is the editors plus %j', (level, extra) => {
    const history = [created(), shared(D, level), ...(level === 4 ? [granted(share(D), P_CIRCLE)] : [])];

    const view = byKey(viewsOf(fold(history), project.communityIds))[`c:${D}`];

    expect(view?.audience).toEqual([`team:p:${P}`, `admin:c:${O}`, `author:${CREATOR}`, ...extra]);
  });

  it.each([
    ['on the team', viewer(70, { team: true }), true],
    ['a mentor', viewer(70, { mentor: true }), true],
    ['an approved member only', viewer(70, { approved: [O] }), false],
    ['no longer anything', viewer(70), false],
  ])(
    'given a Team resource created by a community admin, when its creator is now %s, then they see it: %p',
    (_now, creator, expected) => {
      const resource = fold([created({ privacyLevel: 3, createdBy: 70 })]);
      const [own] = viewsOf(resource, project.communityIds);
      if (!own) throw new Error('no view');
      const view = { kind: 'community' as const, project, community: community(O) };

      expect(canSee(new Set(principalsFor(creator, view)), false, own)).toBe(expected);
    },
  );

  it('given a resource a mentor created, then its author is in every audience while the author is a mentor of the project', () => {
    const resource = fold([
      created({ privacyLevel: 4, createdBy: mentor.userId, createdByMentor: true }),
      granted(OWNER, P_CIRCLE),
    ]);
    const [own] = viewsOf(resource, project.communityIds);
    if (!own) throw new Error('no view');
    const view = { kind: 'community' as const, project, community: community(O) };

    expect(own.audience).toContain(`author:${mentor.userId}`);
    expect(canSee(new Set(principalsFor(mentor, view)), false, own)).toBe(true);
    expect(canSee(new Set(principalsFor(viewer(mentor.userId), view)), false, own)).toBe(false);
  });

  it('given a Team community-project resource shared into D, then the owning admins see it from D too (they may edit it)', () => {
    const resource = fold([created({ privacyLevel: 3 }), shared(D, 3)]);
    const fromD = byKey(viewsOf(resource, project.communityIds))[`c:${D}`];
    if (!fromD) throw new Error('no view');

    const principals = new Set(principalsFor(owningAdmin, { kind: 'community', project, community: community(D) }));

    expect(canSee(principals, false, fromD)).toBe(true);
  });

  it('given a project resource shared into D, then every view appears once: D only through its share', () => {
    const resource = fold([created({ scope: projectScope, privacyLevel: 3 }), shared(D, 1)]);

    const views = viewsOf(resource, project.communityIds);

    expect(views.map((v) => [v.viewKey, v.governedBy]).sort()).toEqual(
      [
        [`c:${D}`, 'share'],
        [`c:${E}`, 'own'],
        [`c:${O}`, 'own'],
        [`p:${P}`, 'own'],
      ].sort(),
    );
  });

  it('given a community-project resource holding a share into its owning community, then O has only its own view', () => {
    // The decider never shares into the owning community; the views still let the own level govern it.
    const resource = fold([created({ privacyLevel: 3 }), shared(O, 1), shared(D, 1)]);

    const views = viewsOf(resource, project.communityIds);

    expect(views.map((v) => [v.viewKey, v.governedBy, v.effectivePrivacyLevel])).toEqual([
      [`c:${O}`, 'own', 3],
      [`c:${D}`, 'share', 1],
    ]);
  });

  it('given a project resource at Community (never valid there), then its project view admits the editors only', () => {
    const resource = fold([created({ scope: projectScope, privacyLevel: 2 })]);

    const projectView = byKey(viewsOf(resource, project.communityIds))[`p:${P}`];

    expect(projectView?.audience).toEqual([`team:p:${P}`, `author:${CREATOR}`]);
  });

  it('given an empty audience match, then only administering the view lets a caller see it', () => {
    const view: ResourceView = {
      viewKey: 'c:1',
      communityId: 1,
      governedBy: 'own',
      effectivePrivacyLevel: 3,
      circles: [],
      originCommunityId: null,
      audience: ['team:p:7'],
    };

    expect(canSee(new Set(['public']), false, view)).toBe(false);
    expect(canSee(new Set(['public']), true, view)).toBe(true);
  });
});

describe('shareCandidateIds', () => {
  it('given a community-project resource owned by O shared into D, then the candidates are P’s other communities', () => {
    expect(shareCandidateIds(fold([created(), shared(D, 1)]), project.communityIds)).toEqual([E]);
  });

  it('given an unshared project resource, then every community of the project is a candidate', () => {
    expect(shareCandidateIds(fold([created({ scope: projectScope })]), project.communityIds)).toEqual([O, D, E]);
  });
});

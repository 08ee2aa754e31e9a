import type { ResourceInView } from '../../src/resources/access/resource-read-access';
import { canReadResourceIn, viewCommunityIds } from '../../src/resources/access/resource-read-access';
import type { Viewer } from '../../src/directory/viewer';
import type { View } from '../../src/resources/access/views';
import type { Resource } from '../../src/resources/resource';
import { foldResource } from '../../src/resources/resource-evolve';
import { viewsOf } from '../../src/resources/access/resource-views';
import {
  D,
  E,
  N,
  O,
  approvedMember,
  community,
  created,
  mentor,
  outsider,
  owningAdmin,
  project,
  shared,
  sharedIntoAdmin,
  team,
  viewer,
} from './resource-fixtures';

/**
 * Who may read a resource at all (GetResourcePrivacy's 404 rule): a community-project resource of
 * P owned by O at level Team, shared into D at level Community.
 */
describe('canReadResourceIn', () => {
  const state = foldResource([created({ privacyLevel: 3 }), shared(D, 2)]);
  if (state.status !== 'active') throw new Error('the fixture resource must be active');
  const resource: Resource = state.resource;

  /** Its views, with the communities the directory knows (`unknown`: one it does not). */
  const viewsKnowing = (unknown: number | null = null): ResourceInView[] =>
    viewsOf(resource, project.communityIds).map((visibility) => {
      const view: View | null =
        visibility.communityId === null
          ? { kind: 'project', project }
          : visibility.communityId === unknown
            ? null
            : { kind: 'community', project, community: community(visibility.communityId) };
      return { view, visibility };
    });

  it.each<[string, Viewer, number | null, boolean]>([
    ['the team (editors)', team, null, true],
    ['an admin of the owning community (editors)', owningAdmin, null, true],
    ['an admin of the community it is shared into', sharedIntoAdmin, null, true],
    ['an approved member of the community it is shared into at Community', approvedMember, null, true],
    ['an approved member of that community, when the directory does not know it', approvedMember, D, false],
    ['an approved member of the owning community only (own level Team)', viewer(12, { approved: [O] }), null, false],
    [
      'an admin of another community of the project (a community-project resource has no view there)',
      viewer(13, { admins: [E] }),
      null,
      false,
    ],
    ['a mentor who did not create it', mentor, null, false],
    ['an outsider', outsider, null, false],
  ])('given %s, then allowed is %p', (_who, who, unknown, allowed) => {
    expect(canReadResourceIn(who, resource, viewsKnowing(unknown))).toBe(allowed);
  });

  it.each<[string, Viewer]>([
    ['the team', team],
    ['an admin of the owning community', owningAdmin],
  ])('given %s (editors) and no view of it known, then allowed: editors read it whatever its views', (_who, who) => {
    expect(canReadResourceIn(who, resource, [])).toBe(true);
  });

  it('given an approved member of every community and no view of it known, then not allowed', () => {
    expect(canReadResourceIn(viewer(14, { approved: [O, D, E] }), resource, [])).toBe(false);
  });
});

describe('viewCommunityIds', () => {
  it('given a resource shared into a community of its project and one outside it, then the project’s communities and that one, once each', () => {
    const state = foldResource([created({ privacyLevel: 3 }), shared(D, 2), shared(N, 1)]);
    if (state.status !== 'active') throw new Error('the fixture resource must be active');
    expect(viewCommunityIds(state.resource, project)).toEqual([O, D, E, N]);
  });
});

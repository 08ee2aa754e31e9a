import { principal } from './principals';
import type { PrivacyLevel } from './privacy-policy';
import { policyOf } from './privacy-policy';
import { communityViewKey, projectViewKey } from './views';
import type { CircleRef, PrivacyBlock, Resource } from '../resource';
import { owningCommunityId } from '../resource';

/**
 * Who sees a resource, from the resource's side (the caller's side is ./views.ts). The
 * per-community visibility read model holds one
 * document per (resource, view), each naming the privacy block that governs that view and the
 * `audience` it admits. A list query then matches the caller's principals against `audience`
 * with one indexed `$in`, so directory changes (joining a circle, a team) need no re-projection.
 */
export type ResourceView = {
  /** `p:<projectId>` or `c:<communityId>`, as `viewKey` of ./views.ts. */
  readonly viewKey: string;
  readonly communityId: number | null;
  readonly governedBy: 'own' | 'share';
  readonly effectivePrivacyLevel: PrivacyLevel;
  /** The governing block's granted circles. */
  readonly circles: readonly CircleRef[];
  /** The owning community, when a community-project resource is seen through a share; else null. */
  readonly originCommunityId: number | null;
  readonly audience: readonly string[];
};

/**
 * Every view the resource appears in. `projectCommunityIds`: the communities its project belongs
 * to now — a project resource appears in each of them, governed by its own level unless it was
 * shared there. A share always makes a view, even into a community the project is not in.
 */
export function viewsOf(resource: Resource, projectCommunityIds: readonly number[]): ResourceView[] {
  const projectId = resource.scope.projectId;
  const owning = owningCommunityId(resource);
  const editors = editorsOf(resource);
  const views: ResourceView[] = [];
  const ownView = (viewKey: string, communityId: number | null): ResourceView => ({
    viewKey,
    communityId,
    governedBy: 'own',
    effectivePrivacyLevel: resource.owner.privacyLevel,
    circles: resource.owner.circles,
    originCommunityId: null,
    audience: audienceOf(editors, resource.owner, projectId, communityId),
  });

  if (owning === null) {
    views.push(ownView(projectViewKey(projectId), null));
    for (const communityId of new Set(projectCommunityIds)) {
      if (!resource.shares.some((s) => s.communityId === communityId)) {
        views.push(ownView(communityViewKey(communityId), communityId));
      }
    }
  } else {
    views.push(ownView(communityViewKey(owning), owning));
  }
  for (const share of resource.shares) {
    // The own level governs the owning community; decide never shares into it.
    if (share.communityId === owning) continue;
    views.push({
      viewKey: communityViewKey(share.communityId),
      communityId: share.communityId,
      governedBy: 'share',
      effectivePrivacyLevel: share.privacyLevel,
      circles: share.circles,
      originCommunityId: owning,
      audience: audienceOf(editors, share, projectId, share.communityId),
    });
  }
  return views;
}

/**
 * Whether a caller sees a resource view: community admins see everything in their own community's
 * view (`administersView`); anyone else needs one principal in the audience.
 */
export function canSee(principals: ReadonlySet<string>, administersView: boolean, view: ResourceView): boolean {
  return administersView || view.audience.some((p) => principals.has(p));
}

/** Those who may edit a resource see it in every view, whatever its level. */
function editorsOf(resource: Resource): string[] {
  const editors = [principal.team(resource.scope.projectId)];
  const owning = owningCommunityId(resource);
  if (owning !== null) editors.push(principal.admin(owning));
  // The creator edits while on the team (the team principal) or a mentor: principalsFor grants the
  // author principal to the project's mentors only, so it admits the creator exactly then.
  editors.push(principal.author(resource.createdBy));
  return editors;
}

function audienceOf(
  editors: readonly string[],
  block: PrivacyBlock,
  projectId: number,
  viewCommunityId: number | null,
): string[] {
  // Whom the governing level admits besides: its row of the policy table (./privacy-policy.ts).
  const admitted = policyOf(block.privacyLevel).admits({ projectId, viewCommunityId, circles: block.circles });
  return [...new Set([...editors, ...admitted])];
}

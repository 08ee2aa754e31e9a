import { principal } from '../resources/access/principals';
import type { View } from '../resources/access/views';
import { administersView, principalsFor } from '../resources/access/views';
import type { DirectoryState } from '../directory/directory-state';
import { communityOf, projectOf, viewerOf } from '../directory/directory-state';
import type { PrivacyLevel } from '../resources/access/privacy-policy';
import type { Resource, ResourceState } from '../resources/resource';
import { owningCommunityId } from '../resources/resource';
import type { ResourceView } from '../resources/access/resource-views';
import { canSee, viewsOf } from '../resources/access/resource-views';

/**
 * "Who could read this resource then?": the resource and the directory as they stood at one
 * moment, judged by the rules the service applies now (viewsOf, principalsFor, administersView,
 * canSee) — the very functions behind GetResourceList, so a review of "now" answers what the
 * read model serves.
 */

/** Why one user sees the resource in one view. */
export type AccessReason =
  | { readonly kind: 'administersView'; readonly communityId: number }
  | { readonly kind: 'team'; readonly projectId: number }
  | { readonly kind: 'owningCommunityAdmin'; readonly communityId: number }
  | { readonly kind: 'author'; readonly userId: number }
  | { readonly kind: 'reach'; readonly level: PrivacyLevel }
  | { readonly kind: 'member'; readonly level: PrivacyLevel; readonly communityId: number }
  | { readonly kind: 'mentor'; readonly level: PrivacyLevel; readonly projectId: number }
  | { readonly kind: 'circle'; readonly level: PrivacyLevel; readonly circleId: number };

export type ViewAccess = {
  readonly viewKey: string;
  /** null: the project-wide view. */
  readonly communityId: number | null;
  /** The community's name at that moment. */
  readonly communityName: string | null;
  readonly governedBy: 'own' | 'share';
  readonly effectivePrivacyLevel: PrivacyLevel;
  readonly circleIds: readonly number[];
  readonly users: readonly {
    readonly userId: number;
    readonly name: string;
    readonly reasons: readonly AccessReason[];
  }[];
};

export type AccessReview =
  | { readonly status: 'notCreated' | 'deleted'; readonly views: readonly [] }
  | { readonly status: 'active'; readonly views: readonly ViewAccess[] };

export function reviewAccess(resourceState: ResourceState, directory: DirectoryState): AccessReview {
  // One case per state a resource can be in: a new state is a compile error here.
  switch (resourceState.status) {
    case 'initial':
      return { status: 'notCreated', views: [] };
    case 'deleted':
      return { status: 'deleted', views: [] };
    case 'active':
      break;
    default: {
      const unexpected: never = resourceState;
      throw new Error(`unknown resource state ${JSON.stringify(unexpected)}`);
    }
  }
  const resource = resourceState.resource;
  const project = projectOf(directory, resource.scope.projectId);
  const resourceViews = viewsOf(resource, project?.communityIds ?? []);
  // Inactive and banned accounts are refused on every endpoint: they see nothing.
  const viewers = [...directory.users.values()]
    .filter((u) => u.status === 'active')
    .sort((a, b) => a.userId - b.userId)
    .map((u) => ({ user: u, viewer: viewerOf(directory, u.userId) }));

  const views = resourceViews.map((rv): ViewAccess => {
    const community = rv.communityId === null ? null : communityOf(directory, rv.communityId);
    const base = {
      viewKey: rv.viewKey,
      communityId: rv.communityId,
      communityName: community?.name ?? null,
      governedBy: rv.governedBy,
      effectivePrivacyLevel: rv.effectivePrivacyLevel,
      circleIds: rv.circles.map((c) => c.circleId),
    };
    // A list from an unknown project or community answers 404: no one sees anything there.
    if (!project || (rv.communityId !== null && !community)) return { ...base, users: [] };
    const view: View = community ? { kind: 'community', project, community } : { kind: 'project', project };
    const reasonOf = reasonsByPrincipal(resource, rv);
    const users = [];
    for (const { user, viewer } of viewers) {
      const principals = new Set(principalsFor(viewer, view));
      const admin = administersView(viewer, view);
      if (!canSee(principals, admin, rv)) continue;
      const reasons: AccessReason[] =
        admin && community ? [{ kind: 'administersView', communityId: community.communityId }] : [];
      for (const p of rv.audience) {
        const reason = principals.has(p) ? reasonOf.get(p) : undefined;
        if (reason) reasons.push(reason);
      }
      users.push({ userId: user.userId, name: user.name, reasons });
    }
    return { ...base, users };
  });
  return { status: 'active', views };
}

/** What each principal of a view's audience stands for, spelled with the same builders. */
function reasonsByPrincipal(resource: Resource, view: ResourceView): Map<string, AccessReason> {
  const projectId = resource.scope.projectId;
  const level = view.effectivePrivacyLevel;
  const reasons = new Map<string, AccessReason>();
  for (const circle of view.circles)
    reasons.set(principal.circle(circle.circleId), { kind: 'circle', level, circleId: circle.circleId });
  reasons.set(principal.public, { kind: 'reach', level });
  if (view.communityId !== null)
    reasons.set(principal.member(view.communityId), { kind: 'member', level, communityId: view.communityId });
  reasons.set(principal.mentor(projectId), { kind: 'mentor', level, projectId });
  reasons.set(principal.author(resource.createdBy), { kind: 'author', userId: resource.createdBy });
  const owning = owningCommunityId(resource);
  if (owning !== null) reasons.set(principal.admin(owning), { kind: 'owningCommunityAdmin', communityId: owning });
  reasons.set(principal.team(projectId), { kind: 'team', projectId });
  return reasons;
}

/** One line a person reads, for tables. */
export function describeReason(reason: AccessReason): string {
  switch (reason.kind) {
    case 'administersView':
      return `administrator of community ${reason.communityId}`;
    case 'team':
      return `team of project ${reason.projectId}`;
    case 'owningCommunityAdmin':
      return `administrator of owning community ${reason.communityId}`;
    case 'author':
      return 'created it as a mentor, still a mentor';
    case 'reach':
      return `level ${reason.level}: reaches the view`;
    case 'member':
      return `level ${reason.level}: approved member of community ${reason.communityId}`;
    case 'mentor':
      return `level ${reason.level}: mentor of project ${reason.projectId}`;
    case 'circle':
      return `level ${reason.level}: member of circle ${reason.circleId}`;
    default: {
      const _exhaustive: never = reason;
      return _exhaustive;
    }
  }
}

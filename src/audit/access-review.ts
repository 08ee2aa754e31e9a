import { principal } from '../resources/access/principals';
import type { View } from '../resources/access/views';
import { administersView, principalsFor } from '../resources/access/views';
import type { Viewer } from '../directory/viewer';
import type { AccountStatus } from '../domain/auth/caller';
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
  // Inactive and banned accounts are refused on every endpoint: they see nothing.
  const viewers = [...directory.users.values()]
    .filter((u) => u.status === 'active')
    .sort((a, b) => a.userId - b.userId)
    .map((u) => ({ user: u, viewer: viewerOf(directory, u.userId) }));

  const views = judgedViews(resource, directory).map((judged): ViewAccess => {
    const users = [];
    for (const { user, viewer } of viewers) {
      const reasons = reasonsToSee(viewer, judged);
      if (reasons) users.push({ userId: user.userId, name: user.name, reasons });
    }
    return { ...judged.base, users };
  });
  return { status: 'active', views };
}

/** One view of a resource, with what judging a viewer in it needs. */
type JudgedView = {
  readonly base: Omit<ViewAccess, 'users'>;
  readonly projectId: number;
  readonly resourceView: ResourceView;
  /** Null where no list is served (an unknown project or community answers 404): no one sees it there. */
  readonly view: View | null;
  readonly reasonOf: ReadonlyMap<string, AccessReason>;
};

function judgedViews(resource: Resource, directory: DirectoryState): JudgedView[] {
  const project = projectOf(directory, resource.scope.projectId);
  return viewsOf(resource, project?.communityIds ?? []).map((rv) => {
    const community = rv.communityId === null ? null : communityOf(directory, rv.communityId);
    const base = {
      viewKey: rv.viewKey,
      communityId: rv.communityId,
      communityName: community?.name ?? null,
      governedBy: rv.governedBy,
      effectivePrivacyLevel: rv.effectivePrivacyLevel,
      circleIds: rv.circles.map((c) => c.circleId),
    };
    const view: View | null =
      !project || (rv.communityId !== null && !community)
        ? null
        : community
          ? { kind: 'community', project, community }
          : { kind: 'project', project };
    return {
      base,
      projectId: resource.scope.projectId,
      resourceView: rv,
      view,
      reasonOf: reasonsByPrincipal(resource, rv),
    };
  });
}

/** Every reason the viewer sees the resource in this view, or null when they do not. */
function reasonsToSee(viewer: Viewer, judged: JudgedView): AccessReason[] | null {
  const { view, resourceView: rv } = judged;
  if (!view) return null;
  const principals = new Set(principalsFor(viewer, view));
  const admin = administersView(viewer, view);
  if (!canSee(principals, admin, rv)) return null;
  const reasons: AccessReason[] =
    admin && view.kind === 'community' ? [{ kind: 'administersView', communityId: view.community.communityId }] : [];
  for (const p of rv.audience) {
    const reason = principals.has(p) ? judged.reasonOf.get(p) : undefined;
    if (reason) reasons.push(reason);
  }
  return reasons;
}

/** One resource a person could see in one view, and why. */
export type SeenResource = {
  readonly resourceId: number;
  readonly name: string;
  readonly governedBy: 'own' | 'share';
  readonly effectivePrivacyLevel: PrivacyLevel;
  readonly reasons: readonly AccessReason[];
};

/** A view a person looks from, as GetResourceList is asked: a project, alone or from one community. */
export type PersonView = {
  readonly viewKey: string;
  readonly projectId: number;
  readonly projectName: string | null;
  /** null: the project-wide view. */
  readonly communityId: number | null;
  readonly communityName: string | null;
  readonly resources: readonly SeenResource[];
};

export type PersonAccess =
  | { readonly account: 'notKnown'; readonly name: null; readonly views: readonly [] }
  | { readonly account: AccountStatus; readonly name: string; readonly views: readonly PersonView[] };

/**
 * "What could this person see then?": every resource as it stood, judged for one viewer with the
 * same functions as the per-resource review, grouped by the view GetResourceList is asked for.
 */
export function reviewPersonAccess(
  userId: number,
  resources: Iterable<ResourceState>,
  directory: DirectoryState,
): PersonAccess {
  const user = directory.users.get(userId);
  if (!user) return { account: 'notKnown', name: null, views: [] };
  // Inactive and banned accounts are refused on every endpoint: they see nothing.
  if (user.status !== 'active') return { account: user.status, name: user.name, views: [] };
  const viewer = viewerOf(directory, userId);
  const byView = new Map<string, { view: Omit<PersonView, 'resources'>; resources: SeenResource[] }>();
  for (const state of resources) {
    if (state.status !== 'active') continue;
    const resource = state.resource;
    for (const judged of judgedViews(resource, directory)) {
      const reasons = reasonsToSee(viewer, judged);
      if (!reasons || !judged.view) continue;
      const key = `${judged.projectId} ${judged.base.viewKey}`;
      let entry = byView.get(key);
      if (!entry) {
        entry = {
          view: {
            viewKey: judged.base.viewKey,
            projectId: judged.projectId,
            projectName: judged.view.project.name ?? null,
            communityId: judged.base.communityId,
            communityName: judged.base.communityName,
          },
          resources: [],
        };
        byView.set(key, entry);
      }
      entry.resources.push({
        resourceId: resource.resourceId,
        name: resource.name,
        governedBy: judged.base.governedBy,
        effectivePrivacyLevel: judged.base.effectivePrivacyLevel,
        reasons,
      });
    }
  }
  const views = [...byView.values()]
    .map(({ view, resources: seen }) => ({ ...view, resources: seen.sort((a, b) => a.resourceId - b.resourceId) }))
    .sort((a, b) => a.projectId - b.projectId || (a.communityId ?? 0) - (b.communityId ?? 0));
  return { account: 'active', name: user.name, views };
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

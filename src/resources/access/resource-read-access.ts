import type { Resource } from '../resource';
import type { ResourceView } from './resource-views';
import { canSee, viewsOf } from './resource-views';
import { canEditResource } from './permissions';
import type { CommunityFacts, ProjectFacts, Viewer } from '../../directory/viewer';
import type { View } from './views';
import { administersView, principalsFor } from './views';

/**
 * One view a resource appears in, as the rules see it: the view (its project, and its community
 * when it is a community's view) and what governs who sees the resource there. `view` is null for
 * a community the directory does not know: such a view is seen by no one.
 */
export type ResourceInView = { readonly view: View | null; readonly visibility: ResourceView };

/**
 * Whether the caller may read a resource at all (GetResourcePrivacy answers 404 otherwise): an
 * editor, or someone who sees it in at least one of its views under the list's own rules (the
 * caller's principals for that view against the view's audience; a community's admins see
 * everything in their community's view).
 */
export function canReadResourceIn(
  viewer: Viewer,
  resource: Pick<Resource, 'scope' | 'createdBy'>,
  views: readonly ResourceInView[],
): boolean {
  if (canEditResource(viewer, resource)) return true;
  return views.some(
    ({ view, visibility }) =>
      view !== null && canSee(new Set(principalsFor(viewer, view)), administersView(viewer, view), visibility),
  );
}

/**
 * The same rule computed from the resource itself instead of a read model (file downloads):
 * `communities` holds the facts of every community its views are in (see `viewCommunityIds`).
 */
export function canReadResource(
  viewer: Viewer,
  resource: Resource,
  project: ProjectFacts,
  communities: ReadonlyMap<number, CommunityFacts>,
): boolean {
  const inView = (visibility: ResourceView): ResourceInView => {
    if (visibility.communityId === null) return { view: { kind: 'project', project }, visibility };
    const community = communities.get(visibility.communityId);
    return { view: community ? { kind: 'community', project, community } : null, visibility };
  };
  return canReadResourceIn(viewer, resource, viewsOf(resource, project.communityIds).map(inView));
}

/** The communities whose facts `canReadResource` needs for this resource. */
export const viewCommunityIds = (resource: Resource, project: ProjectFacts): number[] => [
  ...new Set([...project.communityIds, ...resource.shares.map((s) => s.communityId)]),
];

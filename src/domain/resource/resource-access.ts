import { canEditResource } from '../access/permissions';
import type { CommunityFacts, ProjectFacts, Viewer } from '../access/viewer';
import type { View } from '../access/views';
import { administersView, principalsFor } from '../access/views';
import type { Resource } from './resource';
import { canSee, viewsOf } from './resource-views';

/**
 * Whether the caller may read the resource at all: an editor, or someone who sees it in at least
 * one of its views under the list's own rules (the same rule as GetResourcePrivacy's check, computed
 * from the resource itself instead of a read model). `communities`: the facts of every community
 * its views are in (the project's communities and those it is shared into); a view whose
 * community the directory does not know is not seen.
 */
export function canReadResource(
  viewer: Viewer,
  resource: Resource,
  project: ProjectFacts,
  communities: ReadonlyMap<number, CommunityFacts>,
): boolean {
  if (canEditResource(viewer, resource)) return true;
  return viewsOf(resource, project.communityIds).some((resourceView) => {
    let view: View = { kind: 'project', project };
    if (resourceView.communityId !== null) {
      const community = communities.get(resourceView.communityId);
      if (!community) return false;
      view = { kind: 'community', project, community };
    }
    return canSee(new Set(principalsFor(viewer, view)), administersView(viewer, view), resourceView);
  });
}

/** The communities whose facts `canReadResource` needs for this resource. */
export const viewCommunityIds = (resource: Resource, project: ProjectFacts): number[] => [
  ...new Set([...project.communityIds, ...resource.shares.map((s) => s.communityId)]),
];

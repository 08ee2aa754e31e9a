import type { Resource } from '../resource/resource';
import type { ResourceView } from '../resource/resource-views';
import { canSee } from '../resource/resource-views';
import { canEditResource } from './permissions';
import type { Viewer } from './viewer';
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
    ({ view, visibility }) => view !== null && canSee(new Set(principalsFor(viewer, view)), administersView(viewer, view), visibility),
  );
}

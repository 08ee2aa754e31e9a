import type { Viewer } from '../directory/viewer';
import { isCommunityAdmin } from '../directory/viewer';

/** What the rule needs to know about an application definition: the community that owns it. */
export type ApplicationDefinitionOwner = { readonly communityId: number };

/** Who may list an application definition's applications: the approved admins of the community owning it. */
export function canListApplications(viewer: Viewer, definition: ApplicationDefinitionOwner): boolean {
  return isCommunityAdmin(viewer, definition.communityId);
}

import type { Resource } from '../resource';
import { owningCommunityId } from '../resource';
import type { Viewer } from '../../directory/viewer';
import { isCommunityAdmin, isMentor, isTeam } from '../../directory/viewer';

/**
 * Every permission rule of resources and their privacy, in one place: who may create and edit a
 * resource, who may change which privacy block or share, and who sees a resource's privacy.
 */

type ResourceFacts = Pick<Resource, 'scope' | 'createdBy'>;

const isOwningCommunityAdmin = (viewer: Viewer, resource: Pick<Resource, 'scope'>): boolean => {
  const owner = owningCommunityId(resource);
  return owner !== null && isCommunityAdmin(viewer, owner);
};

/** The team adds resources; inside a community so do the project's mentors and that community's admins. */
export function canAddResources(viewer: Viewer, projectId: number, communityId: number | null): boolean {
  if (isTeam(viewer, projectId)) return true;
  if (communityId === null) return false;
  return isMentor(viewer, projectId) || isCommunityAdmin(viewer, communityId);
}

/** The list flag `canEditResources`: the same people who may add. */
export const canEditResourcesFlag = canAddResources;

/**
 * Edit or delete: the team (every resource of the project), the owning community's admins (its
 * community-project resources), and the resource's creator while they are on the project's team
 * or one of its mentors, whatever role they had when they created it.
 */
export function canEditResource(viewer: Viewer, resource: ResourceFacts): boolean {
  const projectId = resource.scope.projectId;
  if (isTeam(viewer, projectId) || isOwningCommunityAdmin(viewer, resource)) return true;
  return resource.createdBy === viewer.userId && isMentor(viewer, projectId);
}

/** The own level and its circles: the team; for a community-project resource also the owning admins. */
export function canChangeOwnerPrivacy(viewer: Viewer, resource: Pick<Resource, 'scope'>): boolean {
  return isTeam(viewer, resource.scope.projectId) || isOwningCommunityAdmin(viewer, resource);
}

/**
 * Add or change a share: a community-project resource belongs to its owning community, so only
 * that community's admins share it (not even the team); a project resource is shared by the team.
 */
export function canUpsertShare(viewer: Viewer, resource: Pick<Resource, 'scope'>): boolean {
  return resource.scope.kind === 'communityProject'
    ? isOwningCommunityAdmin(viewer, resource)
    : isTeam(viewer, resource.scope.projectId);
}

/**
 * Withdraw the share into `communityId`: the team, the admins of that community (they may refuse
 * what was shared into it), and the owning community's admins (they took the decision to share,
 * so they may take it back).
 */
export function canRemoveShare(viewer: Viewer, resource: Pick<Resource, 'scope'>, communityId: number): boolean {
  return (
    isTeam(viewer, resource.scope.projectId) ||
    isCommunityAdmin(viewer, communityId) ||
    isOwningCommunityAdmin(viewer, resource)
  );
}

/** The list flag `canEditPrivacy`: the team, or an admin of the community the project is viewed from. */
export function canEditPrivacyOnProject(viewer: Viewer, projectId: number, communityId: number | null): boolean {
  return isTeam(viewer, projectId) || (communityId !== null && isCommunityAdmin(viewer, communityId));
}

/**
 * GetResourcePrivacy: the team and the owning community's admins see every share and every
 * share candidate; anyone else who can read the resource sees none.
 */
export function canSeeAllShares(viewer: Viewer, resource: Pick<Resource, 'scope'>): boolean {
  return isTeam(viewer, resource.scope.projectId) || isOwningCommunityAdmin(viewer, resource);
}

/** Share candidates go with the full list of shares. */
export const canSeeShareCandidates = canSeeAllShares;

/** One share of GetResourcePrivacy: everyone who sees all, plus the admins of the shared-into community. */
export function canSeeResourcePrivacyShare(
  viewer: Viewer,
  resource: Pick<Resource, 'scope'>,
  shareCommunityId: number,
): boolean {
  return canSeeAllShares(viewer, resource) || isCommunityAdmin(viewer, shareCommunityId);
}

/**
 * GetResourcePrivacy's `canShareCrossCommunity`: may add or change shares, or remove any of them.
 * An admin of a shared-into community may still remove that one share (canRemoveShare) although
 * this flag is false for them: it describes the resource-wide sharing controls.
 */
export function canShareCrossCommunity(viewer: Viewer, resource: Pick<Resource, 'scope'>): boolean {
  return canUpsertShare(viewer, resource) || canSeeAllShares(viewer, resource);
}

/**
 * GetResourcePrivacy's circle groups: granted circles name people's groups, a private community's
 * included, so a caller who can only read the resource gets the level without them. Those who may
 * edit the resource see every block's circles; the admins of a shared-into community also see
 * their own share's (pass its community id).
 */
export function canSeeGrantedCircles(viewer: Viewer, resource: ResourceFacts, shareCommunityId?: number): boolean {
  if (canEditResource(viewer, resource)) return true;
  return shareCommunityId !== undefined && isCommunityAdmin(viewer, shareCommunityId);
}

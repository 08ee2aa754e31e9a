import type { Resource } from '../resources/resource';
import { owningCommunityId } from '../resources/resource';

/**
 * GetResourcePrivacy `shareCandidates`: the communities the project belongs to, less the
 * owning community and those the resource is already shared into. Ids only; names come from the
 * directory.
 */
export function shareCandidateIds(
  resource: Pick<Resource, 'scope' | 'shares'>,
  projectCommunityIds: readonly number[],
): number[] {
  const excluded = new Set([owningCommunityId(resource), ...resource.shares.map((s) => s.communityId)]);
  return [...new Set(projectCommunityIds)].filter((communityId) => !excluded.has(communityId));
}

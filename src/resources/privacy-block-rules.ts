import type { PrivacyBlockKind, PrivacyLevel } from './access/privacy-policy';
import { takesCircles } from './access/privacy-policy';
import type { PrivacyBlock, Resource } from './resource';
import type { BlockRef, ResourceEventData } from './resource-events';

/**
 * The privacy-block rules both halves of the resource decider apply: which kind of block a
 * resource's own level sits in (its valid levels differ), and what a block leaving a level that
 * takes circles loses.
 */

export const ownerBlockKind = (scope: Resource['scope']): PrivacyBlockKind =>
  scope.kind === 'project' ? 'projectOwner' : 'communityProjectOwner';

/**
 * Moving a block off Custom (a level that takes circles) clears its circles, one explicit
 * event each.
 */
export function revokeAllIfLeavingCustom(
  resourceId: number,
  block: BlockRef,
  before: PrivacyBlock,
  level: PrivacyLevel,
): ResourceEventData[] {
  if (!takesCircles(before.privacyLevel) || takesCircles(level)) return [];
  return before.circles.map((circle) => ({ type: 'CircleRevoked', data: { resourceId, block, circle } }));
}

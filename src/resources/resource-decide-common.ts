import type { DomainErrorKind } from '../domain/errors';
import { DomainError, notFound, validationError } from '../domain/errors';
import type { PrivacyBlockKind, PrivacyLevel } from './access/privacy-policy';
import { NOT_A_LEVEL_MESSAGE, takesCircles } from './access/privacy-policy';
import type { PrivacyBlock, Resource, ResourceState } from './resource';
import type { ResourceDecisionContext } from './resource-commands';
import type { BlockRef, ResourceEventData } from './resource-events';

/** The refusals and consequences both halves of the resource decider share. */

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

export function activeResource(state: ResourceState, resourceId: number): Resource {
  if (state.status !== 'active') throw notFound(`resource ${resourceId} not found`);
  return state.resource;
}

export const ownerBlockKind = (scope: Resource['scope']): PrivacyBlockKind =>
  scope.kind === 'project' ? 'projectOwner' : 'communityProjectOwner';

export const invalidLevel = (field: string): DomainError => validationError(field, NOT_A_LEVEL_MESSAGE);

/** A refusal that names the part of the request refused. */
export const refused = (kind: DomainErrorKind, field: string, message: string): DomainError =>
  new DomainError(kind, message, [{ field, message }]);

/** The handler loads the project of the resource; anything else is a bug in the caller, not a 4xx. */
export function assertContextProject(context: ResourceDecisionContext, projectId: number): void {
  if (context.project.projectId !== projectId) {
    throw new Error(`decide got project ${context.project.projectId} for a resource of project ${projectId}`);
  }
}

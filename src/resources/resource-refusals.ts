import type { DomainErrorKind } from '../domain/errors';
import { DomainError, notFound, validationError } from '../domain/errors';
import { NOT_A_LEVEL_MESSAGE } from './access/privacy-policy';
import type { Resource, ResourceState } from './resource';
import type { ResourceDecisionContext } from './resource-commands';

/**
 * The checks a resource command starts with (the resource exists, the facts are of its project)
 * and the refusals decide words alike wherever it raises them.
 */

/** 404 unless the resource exists and is not deleted. */
export function activeResource(state: ResourceState, resourceId: number): Resource {
  if (state.status !== 'active') throw notFound(`resource ${resourceId} not found`);
  return state.resource;
}

/** The handler loads the project of the resource; anything else is a bug in the caller, not a 4xx. */
export function assertContextProject(context: ResourceDecisionContext, projectId: number): void {
  if (context.project.projectId !== projectId) {
    throw new Error(`decide got project ${context.project.projectId} for a resource of project ${projectId}`);
  }
}

export const invalidLevel = (field: string): DomainError => validationError(field, NOT_A_LEVEL_MESSAGE);

/** A refusal that names the part of the request refused. */
export const refused = (kind: DomainErrorKind, field: string, message: string): DomainError =>
  new DomainError(kind, message, [{ field, message }]);

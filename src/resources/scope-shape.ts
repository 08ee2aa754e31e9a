import { DomainError } from '../domain/errors';

/** The scope fields of a SaveProjectResource request, as sent. */
export type ScopeFields = {
  readonly projectId?: number | null | undefined;
  readonly communityProjectId?: number | null | undefined;
  readonly communityId?: number | null | undefined;
  readonly paragraphId?: number | null | undefined;
};

/** Which of docs/api.md's scope shapes a create request used; resolving it needs the directory. */
export type ScopeShape =
  | { readonly kind: 'paragraph'; readonly paragraphId: number }
  | { readonly kind: 'communityProject'; readonly communityProjectId: number }
  | { readonly kind: 'projectInCommunity'; readonly projectId: number; readonly communityId: number }
  | { readonly kind: 'project'; readonly projectId: number };

const given = (value: number | null | undefined): value is number =>
  value !== undefined && value !== null && value !== 0;

/**
 * Exactly one shape must be sent (docs/api.md "Scope shapes"). A project resource must send
 * communityProjectId and communityId as 0 explicitly, so that a client which merely forgot the
 * community does not silently create a project-wide resource. A paragraph decides the scope on
 * its own and the other scope fields are ignored.
 */
export function scopeShapeOf(fields: ScopeFields): ScopeShape {
  const { projectId, communityProjectId, communityId, paragraphId } = fields;
  if (given(paragraphId)) return { kind: 'paragraph', paragraphId };
  if (given(communityProjectId) && !given(projectId) && !given(communityId)) {
    return { kind: 'communityProject', communityProjectId };
  }
  if (given(projectId) && given(communityId) && !given(communityProjectId)) {
    return { kind: 'projectInCommunity', projectId, communityId };
  }
  if (given(projectId) && communityProjectId === 0 && communityId === 0) return { kind: 'project', projectId };
  throw new DomainError('validation', 'the scope fields match none of the three scope shapes', [
    {
      field: 'communityProjectId',
      message:
        'send exactly one scope: communityProjectId; or projectId with communityId; or ' +
        'projectId with communityProjectId and communityId sent as 0',
    },
  ]);
}

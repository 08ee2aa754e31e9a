import type { CircleRef } from '../resources/resource';
import type { ChangeResourcePrivacy, CircleChanges } from '../resources/resource-commands';
import type { RequestInfo } from '../commands/request-info';
import { stampOf } from '../commands/request-info';
import type { ResourceCommandDeps, ResourceCommandResult } from '../resources/resource-command-runner';
import { decisionFacts, runResourceCommand } from '../resources/resource-command-runner';
import { activeResource } from '../resources/resource-refusals';
import { DomainError } from '../domain/errors';

type CircleChangesInput = {
  readonly circlesToAdd: readonly CircleRef[];
  readonly circlesToRemove: readonly CircleRef[];
};

/** SaveResourcePrivacy's body, its shape already checked by the API. */
export type ChangeResourcePrivacyInput = {
  readonly resourceId: number;
  readonly owner?: CircleChangesInput & { readonly privacyLevel: number };
  readonly sharesToUpsert: readonly (CircleChangesInput & {
    readonly communityId: number;
    readonly privacyLevel: number;
    readonly reason?: string | null | undefined;
  })[];
  readonly sharesToRemove: readonly { readonly communityId: number }[];
};

const copyCircles = (block: CircleChangesInput): CircleChanges => ({
  circlesToAdd: block.circlesToAdd.map(({ circleId, projectId, communityId }) => ({
    circleId,
    projectId,
    communityId,
  })),
  circlesToRemove: block.circlesToRemove.map(({ circleId, projectId, communityId }) => ({
    circleId,
    projectId,
    communityId,
  })),
});

/** Every circle the request names, added or removed, in any block: the decision needs their facts. */
function referencedCircleIds(input: ChangeResourcePrivacyInput): number[] {
  const blocks: CircleChangesInput[] = [...(input.owner ? [input.owner] : []), ...input.sharesToUpsert];
  return [...new Set(blocks.flatMap((b) => [...b.circlesToAdd, ...b.circlesToRemove].map((c) => c.circleId)))];
}

/**
 * SaveResourcePrivacy: every block of the request in one ChangeResourcePrivacy command, decided
 * against one revision of the resource and appended at once, so the request is all or nothing.
 */
export async function changeResourcePrivacy(
  deps: ResourceCommandDeps,
  request: RequestInfo,
  input: ChangeResourcePrivacyInput,
): Promise<ResourceCommandResult> {
  const now = deps.clock().toISOString();
  const data: ChangeResourcePrivacy['data'] = {
    resourceId: input.resourceId,
    ...(input.owner ? { owner: { privacyLevel: input.owner.privacyLevel, ...copyCircles(input.owner) } } : {}),
    sharesToUpsert: input.sharesToUpsert.map((s) => ({
      communityId: s.communityId,
      privacyLevel: s.privacyLevel,
      reason: s.reason ?? null,
      ...copyCircles(s),
    })),
    sharesToRemove: input.sharesToRemove.map((s) => ({ communityId: s.communityId })),
  };
  const referenced = {
    circleIds: referencedCircleIds(input),
    communityIds: input.sharesToUpsert.map((s) => s.communityId),
  };
  return runResourceCommand(
    deps.eventStore,
    input.resourceId,
    async (state): Promise<ChangeResourcePrivacy> => {
      const { projectId } = activeResource(state, input.resourceId).scope;
      const facts = await decisionFacts(deps.directory, request, now, projectId, referenced);
      return { type: 'ChangeResourcePrivacy', data, facts };
    },
    stampOf(request, now),
  );
}

/**
 * UnshareResourceFromCommunity: exactly one `sharesToRemove` entry of SaveResourcePrivacy. A
 * refusal names the fields of this request: the entry's are its `communityId`.
 */
export async function unshareResourceFromCommunity(
  deps: ResourceCommandDeps,
  request: RequestInfo,
  input: { readonly resourceId: number; readonly communityId: number },
): Promise<ResourceCommandResult> {
  try {
    return await changeResourcePrivacy(deps, request, {
      resourceId: input.resourceId,
      sharesToUpsert: [],
      sharesToRemove: [{ communityId: input.communityId }],
    });
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    const field = (name: string) => (name.startsWith('sharesToRemove[0]') ? 'communityId' : name);
    const errors = error.errors.map((e) => ({ ...e, field: field(e.field) }));
    throw new DomainError(error.kind, error.message, errors, error.extensions);
  }
}

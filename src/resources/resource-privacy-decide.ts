import { canChangeOwnerPrivacy, canRemoveShare, canUpsertShare } from './access/permissions';
import type { FieldError } from '../domain/errors';
import { DomainError } from '../domain/errors';
import type { PrivacyBlockKind, PrivacyLevel } from './access/privacy-policy';
import {
  CIRCLES_NEED_LEVEL_MESSAGE,
  NEEDS_PROJECT_IN_COMMUNITY_MESSAGE,
  levelRefusal,
  needsProjectInCommunity,
  takesCircles,
  validLevelFor,
} from './access/privacy-policy';
import type { CircleRef, PrivacyBlock, Resource, ResourceState } from './resource';
import { findShare, owningCommunityId } from './resource';
import type { ChangeResourcePrivacy, CircleChanges, ResourceDecisionContext } from './resource-commands';
import { ownerBlockKind, revokeAllIfLeavingCustom } from './privacy-block-rules';
import { activeResource, assertContextProject, refused } from './resource-refusals';
import type { BlockRef, ResourceEventData } from './resource-events';
import { evolve } from './resource-evolve';

/**
 * SaveResourcePrivacy: 404, then every block's permission in request
 * order, then every 400 (all reported at once), then the events. Nothing is emitted unless every
 * check passes, and each event is emitted only when it changes something, so sending the same
 * request twice emits nothing the second time.
 */
export function changePrivacy(command: ChangeResourcePrivacy, state: ResourceState): ResourceEventData[] {
  const { owner, sharesToUpsert, sharesToRemove } = command.data;
  const context = command.facts;
  const resource = activeResource(state, command.data.resourceId);
  assertContextProject(context, resource.scope.projectId);
  const { viewer, project } = context;
  const owning = owningCommunityId(resource);

  if (owner && !canChangeOwnerPrivacy(viewer, resource)) {
    throw refused('forbidden', 'owner', 'you may not change the privacy of this resource');
  }
  sharesToUpsert.forEach((upsert, i) => {
    if (canUpsertShare(viewer, resource)) return;
    // 409 rather than 403: the caller has a say over this share (they may withdraw it) but its
    // level belongs to someone else.
    if (findShare(resource, upsert.communityId) && canRemoveShare(viewer, resource, upsert.communityId)) {
      throw refused(
        'conflict',
        `sharesToUpsert[${i}]`,
        'this share exists and is not yours to change; you may only remove it',
      );
    }
    throw refused('forbidden', `sharesToUpsert[${i}]`, 'you may not share this resource');
  });
  // A removal is checked even when there is no such share: "not an error" must not let an
  // outsider probe which communities a resource is shared into.
  sharesToRemove.forEach((removal, i) => {
    if (!canRemoveShare(viewer, resource, removal.communityId)) {
      throw refused('forbidden', `sharesToRemove[${i}]`, 'you may not remove this share');
    }
  });

  const errors: FieldError[] = [];
  if (owner) errors.push(...blockErrors('owner', owner, ownerBlockKind(resource.scope), owning, context));
  const seen = new Set<number>();
  const once = (communityId: number, field: string): void => {
    if (seen.has(communityId)) errors.push({ field, message: 'this community appears more than once in the request' });
    seen.add(communityId);
  };
  sharesToUpsert.forEach((upsert, i) => {
    const path = `sharesToUpsert[${i}]`;
    once(upsert.communityId, `${path}.communityId`);
    errors.push(...blockErrors(path, upsert, 'share', upsert.communityId, context));
    if (!context.knownCommunities.has(upsert.communityId)) {
      errors.push({ field: `${path}.communityId`, message: `community ${upsert.communityId} does not exist` });
    } else if (upsert.communityId === owning) {
      errors.push({ field: `${path}.communityId`, message: 'a resource cannot be shared into its owning community' });
    } else if (!project.communityIds.includes(upsert.communityId)) {
      if (resource.scope.kind === 'project') {
        errors.push({
          field: `${path}.communityId`,
          message: 'a project resource can only be shared into a community its project belongs to',
        });
      } else if (needsProjectInCommunity(upsert.privacyLevel)) {
        errors.push({ field: `${path}.privacyLevel`, message: NEEDS_PROJECT_IN_COMMUNITY_MESSAGE });
      }
    }
  });
  sharesToRemove.forEach((removal, i) => once(removal.communityId, `sharesToRemove[${i}].communityId`));
  if (errors.length > 0) throw new DomainError('validation', 'the privacy change is not valid', errors);

  // Emit against a working copy, so each check ("already granted?") sees the earlier events.
  const events: ResourceEventData[] = [];
  let current = resource;
  const emit = (event: ResourceEventData): void => {
    events.push(event);
    const next = evolve({ status: 'active', resource: current }, event);
    if (next.status === 'active') current = next.resource;
  };
  const resourceId = resource.resourceId;

  if (owner) {
    const level = owner.privacyLevel as PrivacyLevel; // validated above
    if (level !== current.owner.privacyLevel) {
      revokeAllIfLeavingCustom(resourceId, { kind: 'owner' }, current.owner, level).forEach(emit);
      emit({ type: 'OwnerPrivacyChanged', data: { resourceId, privacyLevel: level, lastUpdated: context.now } });
    }
    applyCircleChanges(resourceId, { kind: 'owner' }, () => current.owner, owner, emit);
  }
  for (const upsert of sharesToUpsert) {
    const { communityId } = upsert;
    const level = upsert.privacyLevel as PrivacyLevel; // validated above
    const block: BlockRef = { kind: 'share', communityId };
    const existing = findShare(current, communityId);
    if (!existing) {
      const reason = upsert.reason === undefined ? {} : { reason: upsert.reason };
      emit({ type: 'ResourceShared', data: { resourceId, communityId, privacyLevel: level, ...reason } });
    } else if (existing.privacyLevel !== level) {
      // A share survives a level change of its resource; only its circles go.
      revokeAllIfLeavingCustom(resourceId, block, existing, level).forEach(emit);
      emit({ type: 'SharePrivacyChanged', data: { resourceId, communityId, privacyLevel: level } });
    }
    applyCircleChanges(resourceId, block, () => shareOf(current, communityId), upsert, emit);
  }
  for (const { communityId } of sharesToRemove) {
    if (findShare(current, communityId)) emit({ type: 'ResourceUnshared', data: { resourceId, communityId } });
  }
  return events;
}

/**
 * The 400s of one privacy block. `blockCommunityId` is the community whose circles the block may
 * grant besides the project's own: the owning community for the owner block (none for a project
 * resource), the shared-into community for a share.
 */
function blockErrors(
  path: string,
  block: CircleChanges & { readonly privacyLevel: number },
  kind: PrivacyBlockKind,
  blockCommunityId: number | null,
  context: ResourceDecisionContext,
): FieldError[] {
  const errors: FieldError[] = [];
  if (!validLevelFor(kind, block.privacyLevel)) {
    errors.push({ field: `${path}.privacyLevel`, message: levelRefusal(kind) });
  } else if (block.circlesToAdd.length > 0 && !takesCircles(block.privacyLevel)) {
    errors.push({ field: `${path}.circlesToAdd`, message: CIRCLES_NEED_LEVEL_MESSAGE });
  }

  const checkShape = (ref: CircleRef, field: string): boolean => {
    if ((ref.projectId === null) === (ref.communityId === null)) {
      errors.push({ field: `${field}.projectId`, message: 'exactly one of projectId and communityId must be set' });
      return false;
    }
    return true;
  };
  const added = new Set<number>();
  block.circlesToAdd.forEach((ref, j) => {
    const field = `${path}.circlesToAdd[${j}]`;
    added.add(ref.circleId);
    if (!checkShape(ref, field)) return;
    const facts = context.circles.get(ref.circleId);
    if (!facts) {
      errors.push({ field: `${field}.circleId`, message: `circle ${ref.circleId} does not exist` });
    } else if (facts.projectId !== ref.projectId) {
      errors.push({ field: `${field}.projectId`, message: `circle ${ref.circleId} is not a circle of that project` });
    } else if (facts.communityId !== ref.communityId) {
      errors.push({
        field: `${field}.communityId`,
        message: `circle ${ref.circleId} is not a circle of that community`,
      });
    } else if (
      facts.projectId !== context.project.projectId &&
      (blockCommunityId === null || facts.communityId !== blockCommunityId)
    ) {
      errors.push({
        field: `${field}.circleId`,
        message:
          blockCommunityId === null
            ? 'only the project’s circles can be granted here'
            : 'only circles of the project or of the block’s community can be granted here',
      });
    }
  });
  // Removals are only shape-checked: revoking a circle that is not granted is a no-op, and a
  // grant must stay revocable even if its circle has since changed in the directory.
  block.circlesToRemove.forEach((ref, j) => {
    const field = `${path}.circlesToRemove[${j}]`;
    if (!checkShape(ref, field)) return;
    if (added.has(ref.circleId)) {
      errors.push({ field: `${field}.circleId`, message: 'a circle cannot be both added and removed in one request' });
    }
  });
  return errors;
}

/** Revokes first, then grants, each only when it changes the block. */
function applyCircleChanges(
  resourceId: number,
  block: BlockRef,
  current: () => PrivacyBlock,
  changes: CircleChanges,
  emit: (event: ResourceEventData) => void,
): void {
  for (const ref of changes.circlesToRemove) {
    const granted = current().circles.find((c) => c.circleId === ref.circleId);
    if (granted) emit({ type: 'CircleRevoked', data: { resourceId, block, circle: granted } });
  }
  for (const ref of changes.circlesToAdd) {
    if (current().circles.some((c) => c.circleId === ref.circleId)) continue;
    const circle: CircleRef = { circleId: ref.circleId, projectId: ref.projectId, communityId: ref.communityId };
    emit({ type: 'CircleGranted', data: { resourceId, block, circle } });
  }
}

function shareOf(resource: Resource, communityId: number): PrivacyBlock {
  const share = findShare(resource, communityId);
  if (!share) throw new Error(`share ${communityId} vanished while deciding`);
  return share;
}

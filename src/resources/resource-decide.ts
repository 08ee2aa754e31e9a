import { canAddResources, canChangeOwnerPrivacy, canEditResource } from './access/permissions';
import { isMentor } from '../directory/viewer';
import type { Decider } from '../domain/decider';
import { DomainError, validationError } from '../domain/errors';
import { PRIVACY, isPrivacyLevel, levelInvalidOn, validLevelFor } from './access/privacy-policy';
import type { DetectedType, ResourceContent, ResourceState } from './resource';
import type { CreateResource, DeleteResource, ResourceCommand, UpdateResource } from './resource-commands';
import { ownerBlockKind, revokeAllIfLeavingCustom } from './privacy-block-rules';
import { activeResource, assertContextProject, invalidLevel, refused } from './resource-refusals';
import type { ResourceEventData } from './resource-events';
import { isResourceEvent } from './resource-events';
import { evolve, initialState } from './resource-evolve';
import { fieldsOf } from './resource-fields';
import { changePrivacy } from './resource-privacy-decide';
import { detectResourceType } from './resource-type';
import { normalizeTags } from './tags';

/**
 * The resource decider: a command (its metadata the facts around it: caller, project, circles,
 * clock) and the resource's current state in; the events that record the decision out, or a
 * DomainError. Events come without metadata: the command layer stamps actor and correlation id
 * on append. The privacy half (SaveResourcePrivacy) is in resource-privacy-decide.ts.
 */
export function decide(command: ResourceCommand, state: ResourceState): ResourceEventData[] {
  switch (command.type) {
    case 'CreateResource':
      return create(command, state);
    case 'UpdateResource':
      return update(command, state);
    case 'DeleteResource':
      return remove(command, state);
    case 'ChangeResourcePrivacy':
      return changePrivacy(command, state);
    default: {
      const _exhaustive: never = command;
      throw new Error(`unknown command ${JSON.stringify(_exhaustive)}`);
    }
  }
}

export const resourceDecider: Decider<ResourceState, ResourceCommand, ResourceEventData> = {
  decide,
  // A resource stream holds only resource events; anything else is skipped, as foldResource does.
  evolve: (state, event) => (isResourceEvent(event) ? evolve(state, event) : state),
  initialState: () => initialState,
};

/** What a save records of the content: the tags normalized, the type and image detected from the URL. */
function recordedContent(data: ResourceContent): ResourceContent & DetectedType {
  return { ...fieldsOf(data), tags: normalizeTags(data.tags), ...detectResourceType(data.resourceUrl) };
}

function create(command: CreateResource, state: ResourceState): ResourceEventData[] {
  const { data, facts: context } = command;
  if (state.status !== 'initial') throw refused('conflict', 'id', `resource ${data.resourceId} already exists`);
  const { viewer, project } = context;
  assertContextProject(context, data.scope.projectId);

  // Checked before the permission, as body shape: 0, 6 and the like are invalid whoever sends them.
  if (!isPrivacyLevel(data.privacyLevel)) throw invalidLevel('privacyLevel');
  const communityId = data.scope.kind === 'communityProject' ? data.scope.communityId : null;
  if (!canAddResources(viewer, project.projectId, communityId)) {
    throw new DomainError('forbidden', 'you may not add resources to this project');
  }
  const ownerKind = ownerBlockKind(data.scope);
  if (!validLevelFor(ownerKind, data.privacyLevel)) throw validationError('privacyLevel', levelInvalidOn(ownerKind));

  // A mentor's resource is always Custom, granted to the team
  // and the mentors, whatever was requested and whatever other role the mentor holds (a community
  // admin too). Only a caller on the team (never also a mentor) or a non-mentor admin chooses.
  const byMentor = isMentor(viewer, project.projectId);
  const events: ResourceEventData[] = [
    {
      type: 'ResourceCreated',
      data: {
        resourceId: data.resourceId,
        scope: data.scope,
        paragraphId: data.paragraphId,
        ...recordedContent(data),
        privacyLevel: byMentor ? PRIVACY.Custom : data.privacyLevel,
        createdBy: viewer.userId,
        createdByMentor: byMentor,
        postDate: context.now,
      },
    },
  ];
  if (byMentor) {
    for (const circleId of new Set([project.teamCircleId, project.mentorsCircleId])) {
      events.push({
        type: 'CircleGranted',
        data: {
          resourceId: data.resourceId,
          block: { kind: 'owner' },
          circle: { circleId, projectId: project.projectId, communityId: null },
        },
      });
    }
  }
  return events;
}

function update(command: UpdateResource, state: ResourceState): ResourceEventData[] {
  const { data, facts: context } = command;
  const resource = activeResource(state, data.resourceId);
  assertContextProject(context, resource.scope.projectId);
  const { viewer } = context;

  if (!isPrivacyLevel(data.privacyLevel)) throw invalidLevel('privacyLevel');
  if (!canEditResource(viewer, resource)) throw new DomainError('forbidden', 'you may not edit this resource');

  // The scope is not part of the command: an update cannot move a resource.
  const events: ResourceEventData[] = [
    {
      type: 'ResourceUpdated',
      data: {
        resourceId: resource.resourceId,
        ...recordedContent(data),
        lastUpdated: context.now,
      },
    },
  ];
  const level = data.privacyLevel;
  if (level !== resource.owner.privacyLevel) {
    // An editor who may not change the own privacy and sends a different level gets 403,
    // rather than a silent keep, so the client learns the level was not applied.
    if (!canChangeOwnerPrivacy(viewer, resource)) {
      throw refused('forbidden', 'privacyLevel', 'you may not change the privacy of this resource');
    }
    const ownerKind = ownerBlockKind(resource.scope);
    if (!validLevelFor(ownerKind, level)) throw validationError('privacyLevel', levelInvalidOn(ownerKind));
    events.push(...revokeAllIfLeavingCustom(resource.resourceId, { kind: 'owner' }, resource.owner, level));
    events.push({
      type: 'OwnerPrivacyChanged',
      data: { resourceId: resource.resourceId, privacyLevel: level, lastUpdated: context.now },
    });
  }
  return events;
}

function remove(command: DeleteResource, state: ResourceState): ResourceEventData[] {
  const context = command.facts;
  const resource = activeResource(state, command.data.resourceId);
  assertContextProject(context, resource.scope.projectId);
  if (!canEditResource(context.viewer, resource))
    throw new DomainError('forbidden', 'you may not delete this resource');
  // Circles and shares go with the resource: the deletion is one fact, not a cascade of events.
  return [{ type: 'ResourceDeleted', data: { resourceId: resource.resourceId, resourceUrl: resource.resourceUrl } }];
}

import type { Caller } from '../domain/auth/caller';
import type { ProjectFacts } from '../domain/access/viewer';
import type { EventMetadata } from '../domain/event';
import { notFound } from '../domain/errors';
import type { Resource, ResourceState } from '../domain/resource/resource';
import type { ResourceCommand, ResourceDecisionContext } from '../domain/resource/resource-commands';
import { decide } from '../domain/resource/resource-decide';
import { resourceStreamId } from '../domain/resource/resource-events';
import { evolve, foldResource } from '../domain/resource/resource-evolve';
import type { EventStore } from '../infra/event-store/event-store';
import type { DirectoryReader } from '../projections/directory/directory-reader';
import { handleCommand } from './command-handler';

export type ResourceCommandDeps = {
  readonly eventStore: EventStore;
  readonly directory: DirectoryReader;
  readonly clock: () => Date;
};

export type RequestInfo = { readonly caller: Caller; readonly correlationId: string };

export type ResourceCommandResult = {
  /** Global position of the last appended event; undefined when nothing changed. */
  readonly position: bigint | undefined;
  /** The resource after the command; undefined once deleted. */
  readonly resource: Resource | undefined;
};

/** The directory ids a command names, beyond its resource's project. */
export type Referenced = { readonly circleIds?: readonly number[]; readonly communityIds?: readonly number[] };

/** Loads the facts a decision needs: the caller, the project, the circles and communities the command names. */
export async function decisionContext(
  deps: ResourceCommandDeps,
  request: RequestInfo,
  projectId: number,
  referenced: Referenced = {},
): Promise<{ context: ResourceDecisionContext; metadata: EventMetadata }> {
  const now = deps.clock().toISOString();
  const [viewer, project, circles, communities] = await Promise.all([
    deps.directory.viewer(request.caller.userId),
    deps.directory.project(projectId),
    deps.directory.circles(referenced.circleIds ?? []),
    deps.directory.communities(referenced.communityIds ?? []),
  ]);
  if (!project) throw notFound(`project ${projectId} not found`);
  return {
    context: { now, viewer, project: project satisfies ProjectFacts, circles, knownCommunities: new Set(communities.keys()) },
    metadata: { actor: request.caller.actor, correlationId: request.correlationId, at: now },
  };
}

/** The project of an existing resource, read from its stream; 404 when it does not exist. */
export async function projectOfResource(store: EventStore, resourceId: number): Promise<number> {
  const state = foldResource(await store.readStream(resourceStreamId(resourceId)));
  if (state.status !== 'active') throw notFound(`resource ${resourceId} not found`);
  return state.resource.scope.projectId;
}

/** Load, decide, append on the resource's stream; answers the state after the command. */
export async function runResourceCommand(
  deps: ResourceCommandDeps,
  command: ResourceCommand,
  context: ResourceDecisionContext,
  metadata: EventMetadata,
): Promise<ResourceCommandResult> {
  const { position, events, state } = await handleCommand(
    deps.eventStore,
    resourceStreamId(command.data.resourceId),
    foldResource,
    (current: ResourceState) => decide(command, current, context),
    metadata,
  );
  const after = events.reduce(evolve, state);
  return { position, resource: after.status === 'active' ? after.resource : undefined };
}

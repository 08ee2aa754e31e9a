import type { EventMetadata } from '../domain/event';
import { notFound } from '../domain/errors';
import type { Resource, ResourceState } from './resource';
import type { ResourceCommand, ResourceDecisionContext } from './resource-commands';
import { resourceDecider } from './resource-decide';
import { resourceStreamId } from './resource-events';
import { foldResource } from './resource-evolve';
import type { EventStore, Write } from '../ports/event-store';
import { handleCommand } from '../commands/command-handler';
import type { DirectoryFacts } from '../directory/directory-facts';
import type { RequestInfo } from '../commands/request-info';

export type ResourceCommandDeps = {
  readonly eventStore: EventStore;
  readonly directory: DirectoryFacts;
  readonly clock: () => Date;
};

export type ResourceCommandResult = {
  /** Where the command's events landed; undefined when nothing changed. */
  readonly write: Write | undefined;
  /** The resource after the command; undefined once deleted. */
  readonly resource: Resource | undefined;
};

/** The directory ids a command names, beyond its resource's project. */
export type Referenced = { readonly circleIds?: readonly number[]; readonly communityIds?: readonly number[] };

/** Loads the facts a decision needs: the caller, the project, the circles and communities the command names. */
export async function decisionFacts(
  directory: DirectoryFacts,
  request: RequestInfo,
  now: string,
  projectId: number,
  referenced: Referenced = {},
): Promise<ResourceDecisionContext> {
  const [viewer, project, circles, communities] = await Promise.all([
    directory.viewer(request.caller.userId),
    directory.project(projectId),
    directory.circles(referenced.circleIds ?? []),
    directory.communities(referenced.communityIds ?? []),
  ]);
  if (!project) throw notFound(`project ${projectId} not found`);
  return { now, viewer, project, circles, knownCommunities: new Set(communities.keys()) };
}

/**
 * Runs a command on a resource's stream: `commandFor` builds it from the state read (once per
 * attempt) and its facts. Answers the state after the command. `newStream`: the id was issued for
 * this command, so there is no stream to read yet.
 */
export async function runResourceCommand(
  eventStore: EventStore,
  resourceId: number,
  commandFor: (state: ResourceState) => ResourceCommand | Promise<ResourceCommand>,
  stamp: EventMetadata,
  options: { readonly newStream?: boolean } = {},
): Promise<ResourceCommandResult> {
  const { write, state } = await handleCommand(
    eventStore,
    resourceStreamId(resourceId),
    resourceDecider,
    commandFor,
    stamp,
    options,
  );
  return { write, resource: state.status === 'active' ? state.resource : undefined };
}

/** A resource as its stream holds it now; undefined when it never existed or was deleted. */
export async function loadResource(eventStore: EventStore, resourceId: number): Promise<Resource | undefined> {
  const state = foldResource(await eventStore.readStream(resourceStreamId(resourceId)));
  return state.status === 'active' ? state.resource : undefined;
}

/**
 * The resource a stream holds now (a request whose attempt died after its write is answered from it); 404
 * once deleted.
 */
export async function currentResource(eventStore: EventStore, streamId: string): Promise<Resource> {
  const state = foldResource(await eventStore.readStream(streamId));
  if (state.status !== 'active') throw notFound(`resource of ${streamId} not found`);
  return state.resource;
}

import { DomainError, notFound } from '../domain/errors';
import type { Resource, ResourceScope } from './resource';
import type { CreateResource, DeleteResource, UpdateResource } from './resource-commands';
import { resourceDecider } from './resource-decide';
import type { ScopeFields, ScopeShape } from './scope-shape';
import { scopeShapeOf } from './scope-shape';
import type { ScopeDirectory } from '../directory/directory-facts';
import type { Viewer } from '../directory/viewer';
import { nextId } from '../commands/id-sequence';
import type { RequestInfo } from '../commands/request-info';
import { stampOf } from '../commands/request-info';
import type { ResourceCommandDeps, ResourceCommandResult } from './resource-command-runner';
import { decisionFacts, runResourceCommand } from './resource-command-runner';
import { activeResource } from './resource-refusals';
import type { ApiFields } from './resource-fields';
import { storedFieldsOf } from './resource-fields';

/*
 * The commands a resource's own routes run: SaveProjectResource (create or update) and
 * RemoveProjectResource. Each loads what decide needs (the scope, the directory's facts, the
 * upload check) and runs the resource decider through the one command handler.
 */

/** The save request as parsed: the editable fields under the API's names, the level, the scope. */
export type SaveResourceInput = ScopeFields &
  ApiFields & {
    readonly id: number;
    readonly privacyLevel: number;
  };

/** Resolves a scope shape against the directory: 404 for unknown ids, 400 for a project outside the community. */
async function resolveScope(
  directory: ScopeDirectory,
  shape: ScopeShape,
): Promise<{ scope: ResourceScope; paragraphId: number | null }> {
  const inCommunity = async (projectId: number, communityId: number, field: string): Promise<ResourceScope> => {
    const link = await directory.communityProjectOf(projectId, communityId);
    if (!link) {
      throw new DomainError('validation', `project ${projectId} is not part of community ${communityId}`, [
        { field, message: 'the project is not part of this community' },
      ]);
    }
    return { kind: 'communityProject', projectId, communityId, communityProjectId: link.communityProjectId };
  };
  switch (shape.kind) {
    case 'paragraph': {
      const paragraph = await directory.paragraph(shape.paragraphId);
      if (!paragraph) throw notFound(`paragraph ${shape.paragraphId} not found`);
      const scope =
        paragraph.communityId === null
          ? ({ kind: 'project', projectId: paragraph.projectId } as const)
          : await inCommunity(paragraph.projectId, paragraph.communityId, 'paragraphId');
      return { scope, paragraphId: shape.paragraphId };
    }
    case 'communityProject': {
      const link = await directory.communityProject(shape.communityProjectId);
      if (!link) throw notFound(`community project ${shape.communityProjectId} not found`);
      return {
        scope: {
          kind: 'communityProject',
          projectId: link.projectId,
          communityId: link.communityId,
          communityProjectId: link.communityProjectId,
        },
        paragraphId: null,
      };
    }
    case 'projectInCommunity': {
      if (!(await directory.community(shape.communityId))) throw notFound(`community ${shape.communityId} not found`);
      if (!(await directory.project(shape.projectId))) throw notFound(`project ${shape.projectId} not found`);
      return { scope: await inCommunity(shape.projectId, shape.communityId, 'communityId'), paragraphId: null };
    }
    case 'project':
      return { scope: { kind: 'project', projectId: shape.projectId }, paragraphId: null };
    default: {
      const unexpected: never = shape;
      throw new Error(`unknown scope shape ${JSON.stringify(unexpected)}`);
    }
  }
}

/**
 * Whether a resource may point at an uploaded file (the files feature answers it): a 400 on
 * `resourceUrl` when not; a URL that is no upload path passes. `current`: the resource being updated.
 */
export type UploadCheck = (viewer: Viewer, resourceUrl: string, current?: Resource) => Promise<void>;

export type SaveResourceDeps = ResourceCommandDeps & {
  readonly directory: ScopeDirectory;
  readonly assertUsableUpload: UploadCheck;
};

/**
 * SaveProjectResource: id 0 creates (the scope comes from the request's shape), any other id
 * updates (the scope stays the one it was created with; scope fields are ignored).
 */
export async function saveProjectResource(
  deps: SaveResourceDeps,
  request: RequestInfo,
  input: SaveResourceInput,
): Promise<ResourceCommandResult> {
  const content = { ...storedFieldsOf(input), privacyLevel: input.privacyLevel };
  const now = deps.clock().toISOString();
  const stamp = stampOf(request, now);
  if (input.id !== 0) {
    return runResourceCommand(
      deps.eventStore,
      input.id,
      async (state): Promise<UpdateResource> => {
        const resource = activeResource(state, input.id);
        const facts = await decisionFacts(deps.directory, request, now, resource.scope.projectId);
        await deps.assertUsableUpload(facts.viewer, input.resourceUrl, resource);
        return { type: 'UpdateResource', data: { resourceId: input.id, ...content }, facts };
      },
      stamp,
    );
  }

  const { scope, paragraphId } = await resolveScope(deps.directory, scopeShapeOf(input));
  const facts = await decisionFacts(deps.directory, request, now, scope.projectId);
  await deps.assertUsableUpload(facts.viewer, input.resourceUrl);
  const create = (resourceId: number): CreateResource => ({
    type: 'CreateResource',
    data: { resourceId, scope, paragraphId, ...content },
    facts,
  });
  // Decide once before allocating an id, so refused requests burn no ids.
  resourceDecider.decide(create(0), resourceDecider.initialState());
  const resourceId = await nextId(deps.eventStore, 'resource', stamp);
  return runResourceCommand(deps.eventStore, resourceId, () => create(resourceId), stamp, { newStream: true });
}

export async function removeProjectResource(
  deps: ResourceCommandDeps,
  request: RequestInfo,
  resourceId: number,
): Promise<ResourceCommandResult> {
  const now = deps.clock().toISOString();
  return runResourceCommand(
    deps.eventStore,
    resourceId,
    async (state): Promise<DeleteResource> => {
      const resource = activeResource(state, resourceId);
      const facts = await decisionFacts(deps.directory, request, now, resource.scope.projectId);
      return { type: 'DeleteResource', data: { resourceId }, facts };
    },
    stampOf(request, now),
  );
}

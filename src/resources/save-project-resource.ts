import { DomainError, notFound } from '../domain/errors';
import type { ResourceScope } from './resource';
import type { CreateResource, DeleteResource, UpdateResource } from './resource-commands';
import { resourceDecider } from './resource-decide';
import type { ScopeFields, ScopeShape } from './scope-shape';
import { scopeShapeOf } from './scope-shape';
import type { FilesStore } from '../files/files-store';
import type { ScopeDirectory } from '../directory/directory-facts';
import { assertUsableUpload, uploadPathOf } from '../files/file-lifecycle';
import { nextId } from '../commands/id-sequence';
import type { RequestInfo } from '../commands/request-info';
import { metadataOf } from '../commands/request-info';
import type { ResourceCommandDeps, ResourceCommandResult } from './resource-command-runner';
import { decisionContext, existingResource, runResourceCommand } from './resource-command-runner';

export type SaveResourceInput = ScopeFields & {
  readonly id: number;
  readonly name: string;
  readonly description: string;
  readonly resourceUrl: string;
  readonly privacyLevel: number;
  readonly icon: string;
  readonly resourceTags: readonly string[];
};

/** Resolves a scope shape against the directory: 404 for unknown ids, 400 for a project outside the community. */
async function resolveScope(directory: ScopeDirectory, shape: ScopeShape): Promise<{ scope: ResourceScope; paragraphId: number | null }> {
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
        scope: { kind: 'communityProject', projectId: link.projectId, communityId: link.communityId, communityProjectId: link.communityProjectId },
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

/** The files read model, when the service has one: an upload path is checked against it (refused without). */
export type SaveResourceDeps = ResourceCommandDeps & { readonly directory: ScopeDirectory; readonly files?: FilesStore };

/** `released`: the upload path the resource referenced before, when the command may have dropped the last reference to it. */
export type SaveResourceResult = ResourceCommandResult & { readonly released?: string };

/**
 * SaveProjectResource: id 0 creates (the scope comes from the request's shape), any other id
 * updates (the scope stays the one it was created with; scope fields are ignored).
 */
export async function saveProjectResource(
  deps: SaveResourceDeps,
  request: RequestInfo,
  input: SaveResourceInput,
): Promise<SaveResourceResult> {
  const content = {
    name: input.name,
    description: input.description,
    resourceUrl: input.resourceUrl,
    icon: input.icon,
    tags: input.resourceTags,
    privacyLevel: input.privacyLevel,
  };
  const now = deps.clock().toISOString();
  const metadata = metadataOf(request, now);
  if (input.id !== 0) {
    let before: string | undefined;
    const result = await runResourceCommand(
      deps.eventStore,
      input.id,
      async (state): Promise<UpdateResource> => {
        const resource = existingResource(state, input.id);
        const context = await decisionContext(deps.directory, request, now, resource.scope.projectId);
        await assertUsableUpload(deps, context.viewer, input.resourceUrl, resource);
        before = uploadPathOf(resource);
        return { type: 'UpdateResource', data: { resourceId: input.id, ...content }, metadata: context };
      },
      metadata,
    );
    return before !== undefined && before !== result.resource?.resourceUrl ? { ...result, released: before } : result;
  }

  const { scope, paragraphId } = await resolveScope(deps.directory, scopeShapeOf(input));
  const context = await decisionContext(deps.directory, request, now, scope.projectId);
  await assertUsableUpload(deps, context.viewer, input.resourceUrl);
  const create = (resourceId: number): CreateResource => ({
    type: 'CreateResource',
    data: { resourceId, scope, paragraphId, ...content },
    metadata: context,
  });
  // Decide once before allocating an id, so refused requests burn no ids.
  resourceDecider.decide(create(0), resourceDecider.initialState());
  const resourceId = await nextId(deps.eventStore, 'resource', metadata);
  return runResourceCommand(deps.eventStore, resourceId, () => create(resourceId), metadata);
}

export async function removeProjectResource(
  deps: ResourceCommandDeps,
  request: RequestInfo,
  resourceId: number,
): Promise<SaveResourceResult> {
  const now = deps.clock().toISOString();
  let before: string | undefined;
  const result = await runResourceCommand(
    deps.eventStore,
    resourceId,
    async (state): Promise<DeleteResource> => {
      const resource = existingResource(state, resourceId);
      const context = await decisionContext(deps.directory, request, now, resource.scope.projectId);
      before = uploadPathOf(resource);
      return { type: 'DeleteResource', data: { resourceId }, metadata: context };
    },
    metadataOf(request, now),
  );
  return before !== undefined ? { ...result, released: before } : result;
}

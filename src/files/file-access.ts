import type { Caller } from '../domain/auth/caller';
import { validationError } from '../domain/errors';
import type { DirectoryFacts } from '../directory/directory-facts';
import type { Viewer } from '../directory/viewer';
import { canEditResource } from '../resources/access/permissions';
import { canReadResource, viewCommunityIds } from '../resources/access/resource-read-access';
import type { Resource } from '../resources/resource';
import { loadResource } from '../resources/resource-command-runner';
import type { UploadCheck } from '../resources/project-resource-commands';
import type { EventStore } from '../ports/event-store';
import type { StoredFile } from './files-projection';
import type { FilesStore } from './files-store';
import { parseUploadPath } from './upload-policy';

/** What the access rules on uploads read: the log (the resources), the files read model, the directory. */
export type FileAccessDeps = {
  readonly eventStore: EventStore;
  readonly stores: { readonly files: FilesStore };
  readonly directory: DirectoryFacts;
};

/**
 * Who may download (docs/api.md "Files"). A caller who can see a resource referencing the path, or
 * its uploader while nothing references it. Undefined otherwise, which the route answers with
 * the same 404 as a path that does not exist.
 */
export async function downloadableFile(
  deps: FileAccessDeps,
  caller: Caller,
  path: string,
): Promise<StoredFile | undefined> {
  if (!parseUploadPath(path)) return undefined;
  const files = deps.stores.files;
  const file = await files.file(path);
  if (!file || file.deleted) return undefined;
  const referencing = await files.referencingResources(path);
  if (referencing.length === 0) return file.uploadedBy === caller.userId ? file : undefined;
  const viewer = await deps.directory.viewer(caller.userId);
  for (const resourceId of referencing) {
    const resource = await loadResource(deps.eventStore, resourceId);
    if (!resource) continue;
    const project = await deps.directory.project(resource.scope.projectId);
    if (!project) continue;
    const communities = await deps.directory.communities(viewCommunityIds(resource, project));
    if (canReadResource(viewer, resource, project, communities)) return file;
  }
  return undefined;
}

/**
 * SaveProjectResource with an upload path (docs/api.md "Files"): it must name a stored upload of
 * the caller, or one already referenced by a resource the caller may edit; 400 on `resourceUrl`
 * otherwise, whether or not the path exists. `current`, the resource being updated, is already
 * read: its own stream is not read again.
 */
export const usableUploadCheck =
  (deps: Omit<FileAccessDeps, 'directory'>): UploadCheck =>
  async (viewer: Viewer, resourceUrl: string, current?: Resource): Promise<void> => {
    if (!parseUploadPath(resourceUrl)) return;
    const refuse = () =>
      validationError('resourceUrl', 'must be a file you uploaded or one of a resource you may edit');
    const files = deps.stores.files;
    const file = await files.file(resourceUrl);
    if (!file || file.deleted) throw refuse();
    if (file.uploadedBy === viewer.userId) return;
    for (const resourceId of await files.referencingResources(resourceUrl)) {
      const resource = resourceId === current?.resourceId ? current : await loadResource(deps.eventStore, resourceId);
      if (resource && canEditResource(viewer, resource)) return;
    }
    throw refuse();
  };

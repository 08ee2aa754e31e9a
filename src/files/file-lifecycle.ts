import type { Caller } from '../domain/auth/caller';
import type { EventMetadata } from '../domain/event';
import { systemActor } from '../domain/event';
import { canEditResource } from '../resources/access/permissions';
import type { Viewer } from '../directory/viewer';
import { validationError } from '../domain/errors';
import type { DeleteFile, RecordUpload } from './file-decide';
import { fileDecider } from './file-decide';
import type { FileDeleted, FileUploaded } from './file-events';
import { fileStreamId } from './file-events';
import { parseUploadPath } from './upload-policy';
import type { Resource } from '../resources/resource';
import { canReadResource, viewCommunityIds } from '../resources/access/resource-read-access';
import { resourceStreamId } from '../resources/resource-events';
import { foldResource } from '../resources/resource-evolve';
import type { EventStore } from '../ports/event-store';
import type { FileStore, StagedFile } from '../ports/file-store';
import type { Logger } from '../observability/logger';
import type { FilesStore, StoredFile } from './files-store';
import type { ReadModels } from '../projections/read-models';
import { handleCommand } from '../commands/command-handler';
import type { DirectoryFacts } from '../directory/directory-facts';

export type FileDeps = {
  readonly eventStore: EventStore;
  readonly fileStore: FileStore;
  readonly files: FilesStore;
  readonly readModels: ReadModels;
  readonly directory: DirectoryFacts;
  readonly clock: () => Date;
  readonly logger: Logger;
  readonly config: { readonly UPLOAD_ORPHAN_HOURS: number; readonly PROJECTION_WAIT_MS: number };
};

/**
 * Publishes a checked, staged upload under its path and records FileUploaded on the file's own
 * stream. Either both happen or neither: a failed append removes the published bytes.
 */
export async function storeUpload(
  deps: Pick<FileDeps, 'eventStore' | 'fileStore'>,
  staged: StagedFile,
  file: Omit<FileUploaded['data'], 'size'>,
  metadata: EventMetadata,
): Promise<bigint> {
  const parsed = parseUploadPath(file.path);
  if (!parsed) throw new Error('not an upload path');
  await deps.fileStore.commit(staged, file.path);
  try {
    const command: RecordUpload = { type: 'RecordUpload', data: { ...file, size: staged.size } };
    const { position } = await handleCommand(deps.eventStore, fileStreamId(parsed.fileId), fileDecider, () => command, metadata);
    if (position === undefined) throw new Error('RecordUpload must record FileUploaded');
    return position;
  } catch (error) {
    await deps.fileStore.delete(file.path).catch(() => undefined);
    throw error;
  }
}

/**
 * Deletes an upload for good: FileDeleted on its stream (once: a second call appends nothing),
 * then the bytes. Returns the position of the appended event, undefined when it was already gone.
 */
export async function deleteUpload(
  deps: Pick<FileDeps, 'eventStore' | 'fileStore'>,
  path: string,
  reason: FileDeleted['data']['reason'],
  metadata: EventMetadata,
): Promise<bigint | undefined> {
  const parsed = parseUploadPath(path);
  if (!parsed) return undefined;
  const command: DeleteFile = { type: 'DeleteFile', data: { path, reason } };
  const { position } = await handleCommand(deps.eventStore, fileStreamId(parsed.fileId), fileDecider, () => command, metadata);
  await deps.fileStore.delete(path);
  return position;
}

/**
 * After a resource stopped referencing `path` (deleted, or updated to another URL): once the
 * files read model shows that change, deletes the upload when no resource references it any more
 * (SPEC: deleting a resource deletes its uploaded file).
 */
export async function releaseIfUnreferenced(
  deps: FileDeps,
  path: string | undefined,
  after: bigint | undefined,
  metadata: EventMetadata,
): Promise<void> {
  if (path === undefined || !parseUploadPath(path)) return;
  if (after !== undefined) await deps.readModels.waitFor(after, deps.config.PROJECTION_WAIT_MS);
  const file = await deps.files.file(path);
  if (!file || file.deleted) return;
  if ((await deps.files.referencingResources(path)).length > 0) return;
  const position = await deleteUpload(deps, path, 'unreferenced', metadata);
  if (position !== undefined) await deps.readModels.waitFor(position, deps.config.PROJECTION_WAIT_MS);
}

/** The upload path a resource references; undefined for a link. */
export const uploadPathOf = (resource: Resource): string | undefined =>
  parseUploadPath(resource.resourceUrl) ? resource.resourceUrl : undefined;

const SWEEP_BATCH = 100;

/**
 * Deletes every upload made more than UPLOAD_ORPHAN_HOURS before `now` that no resource
 * references (FileDeleted, reason `orphaned`), and staged bytes a dead process left behind.
 */
export async function sweepOrphans(
  deps: Pick<FileDeps, 'eventStore' | 'fileStore' | 'files' | 'readModels' | 'config'>,
  now: Date,
): Promise<{ deleted: string[] }> {
  const cutoff = new Date(now.getTime() - deps.config.UPLOAD_ORPHAN_HOURS * 3_600_000);
  const metadata: EventMetadata = { actor: systemActor, correlationId: `sweep-${now.toISOString()}`, at: now.toISOString() };
  const deleted: string[] = [];
  let last: bigint | undefined;
  for (;;) {
    const paths = (await deps.files.unreferencedUploads(cutoff.toISOString(), SWEEP_BATCH)).filter((p) => !deleted.includes(p));
    if (paths.length === 0) break;
    for (const path of paths) {
      last = (await deleteUpload(deps, path, 'orphaned', metadata)) ?? last;
      deleted.push(path);
    }
    if (last !== undefined) await deps.readModels.waitFor(last, deps.config.PROJECTION_WAIT_MS);
  }
  await deps.fileStore.purgeStaging(cutoff);
  return { deleted };
}

/** Runs the sweeper in the process, every hour (at most every UPLOAD_ORPHAN_HOURS / 4). */
export function startOrphanSweeper(deps: FileDeps): { stop(): void } {
  const everyMs = Math.min(3_600_000, (deps.config.UPLOAD_ORPHAN_HOURS * 3_600_000) / 4);
  const timer = setInterval(() => {
    sweepOrphans(deps, deps.clock()).then(
      ({ deleted }) => {
        if (deleted.length > 0) deps.logger.info({ deleted: deleted.length }, 'orphaned uploads deleted');
      },
      (error: unknown) => deps.logger.error({ err: error }, 'orphan sweep failed'),
    );
  }, everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

async function activeResource(eventStore: EventStore, resourceId: number): Promise<Resource | undefined> {
  const state = foldResource(await eventStore.readStream(resourceStreamId(resourceId)));
  return state.status === 'active' ? state.resource : undefined;
}

/**
 * DESIGN "Upload": who may download. A caller who can see a resource referencing the path, or
 * its uploader while nothing references it. Undefined otherwise, which the route answers with
 * the same 404 as a path that does not exist.
 */
export async function downloadableFile(
  deps: Pick<FileDeps, 'eventStore' | 'files' | 'directory'>,
  caller: Caller,
  path: string,
): Promise<StoredFile | undefined> {
  if (!parseUploadPath(path)) return undefined;
  const file = await deps.files.file(path);
  if (!file || file.deleted) return undefined;
  const referencing = await deps.files.referencingResources(path);
  if (referencing.length === 0) return file.uploadedBy === caller.userId ? file : undefined;
  const viewer = await deps.directory.viewer(caller.userId);
  for (const resourceId of referencing) {
    const resource = await activeResource(deps.eventStore, resourceId);
    if (!resource) continue;
    const project = await deps.directory.project(resource.scope.projectId);
    if (!project) continue;
    const communities = await deps.directory.communities(viewCommunityIds(resource, project));
    if (canReadResource(viewer, resource, project, communities)) return file;
  }
  return undefined;
}

/**
 * SaveProjectResource with an upload path (DESIGN "Uploads"): it must name a stored upload of
 * the caller, or one already referenced by a resource the caller may edit; 400 on `resourceUrl`
 * otherwise, whether or not the path exists.
 */
export async function assertUsableUpload(
  deps: { readonly eventStore: EventStore; readonly files?: FilesStore },
  viewer: Viewer,
  resourceUrl: string,
  /** The resource being updated, already read: its own stream is not read again. */
  current?: Resource,
): Promise<void> {
  if (!parseUploadPath(resourceUrl)) return;
  const refuse = () => validationError('resourceUrl', 'must be a file you uploaded or one of a resource you may edit');
  if (!deps.files) throw refuse();
  const file = await deps.files.file(resourceUrl);
  if (!file || file.deleted) throw refuse();
  if (file.uploadedBy === viewer.userId) return;
  for (const resourceId of await deps.files.referencingResources(resourceUrl)) {
    const resource = resourceId === current?.resourceId ? current : await activeResource(deps.eventStore, resourceId);
    if (resource && canEditResource(viewer, resource)) return;
  }
  throw refuse();
}

import type { EventMetadata } from '../domain/event';
import { systemActor } from '../domain/event';
import type { DeleteFile, RecordUpload } from './file-decide';
import { fileDecider } from './file-decide';
import type { FileDeleted, FileUploaded } from './file-events';
import { fileStreamId } from './file-events';
import { parseUploadPath } from './upload-policy';
import type { EventStore } from '../ports/event-store';
import type { FileStore, StagedFile } from '../ports/file-store';
import type { Logger } from '../observability/logger';
import type { FilesStore } from './files-store';
import type { ReadModels } from '../projections/read-models';
import { handleCommand } from '../commands/command-handler';

export type FileDeps = {
  readonly eventStore: EventStore;
  readonly fileStore: FileStore;
  readonly stores: { readonly files: FilesStore };
  readonly readModels: ReadModels;
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
  stamp: EventMetadata,
): Promise<bigint> {
  const parsed = parseUploadPath(file.path);
  if (!parsed) throw new Error('not an upload path');
  await deps.fileStore.commit(staged, file.path);
  try {
    const command: RecordUpload = { type: 'RecordUpload', data: { ...file, size: staged.size } };
    const { position } = await handleCommand(
      deps.eventStore,
      fileStreamId(parsed.fileId),
      fileDecider,
      () => command,
      stamp,
    );
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
  stamp: EventMetadata,
): Promise<bigint | undefined> {
  const parsed = parseUploadPath(path);
  if (!parsed) return undefined;
  const command: DeleteFile = { type: 'DeleteFile', data: { path, reason } };
  const { position } = await handleCommand(
    deps.eventStore,
    fileStreamId(parsed.fileId),
    fileDecider,
    () => command,
    stamp,
  );
  await deps.fileStore.delete(path);
  return position;
}

const SWEEP_BATCH = 100;

/**
 * Deletes every upload made more than UPLOAD_ORPHAN_HOURS before `now` that no resource
 * references (FileDeleted, reason `orphaned`), and staged bytes a dead process left behind.
 */
export async function sweepOrphans(
  deps: Pick<FileDeps, 'eventStore' | 'fileStore' | 'stores' | 'readModels' | 'config'>,
  now: Date,
): Promise<{ deleted: string[] }> {
  const cutoff = new Date(now.getTime() - deps.config.UPLOAD_ORPHAN_HOURS * 3_600_000);
  const stamp: EventMetadata = {
    actor: systemActor,
    correlationId: `sweep-${now.toISOString()}`,
    at: now.toISOString(),
  };
  const deleted: string[] = [];
  let last: bigint | undefined;
  for (;;) {
    const paths = (await deps.stores.files.unreferencedUploads(cutoff.toISOString(), SWEEP_BATCH)).filter(
      (p) => !deleted.includes(p),
    );
    if (paths.length === 0) break;
    for (const path of paths) {
      last = (await deleteUpload(deps, path, 'orphaned', stamp)) ?? last;
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

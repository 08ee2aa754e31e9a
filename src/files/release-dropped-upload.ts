import type { WriteReaction } from '../commands/write-reaction';
import type { Resource } from '../resources/resource';
import { RESOURCE_STREAM_PREFIX } from '../resources/resource-events';
import { foldResource } from '../resources/resource-evolve';
import type { EventStore } from '../ports/event-store';
import type { FileStore } from '../ports/file-store';
import { deleteUpload } from './file-lifecycle';
import type { FilesStore } from './files-store';
import { parseUploadPath } from './upload-policy';

export type ReleaseDeps = {
  readonly eventStore: EventStore;
  readonly fileStore: FileStore;
  readonly stores: { readonly files: FilesStore };
};

/** The upload path a resource references; undefined for a link. */
const uploadPathOf = (resource: Resource): string | undefined =>
  parseUploadPath(resource.resourceUrl) ? resource.resourceUrl : undefined;

/**
 * Deleting a resource deletes its uploaded file. A reaction to every write on a resource
 * stream: when the resource referenced an upload before the write and no longer does (deleted, or
 * updated to another URL), and the files read model, which already shows the write, knows no
 * resource that still references it, the upload is deleted (FileDeleted, `unreferenced`).
 */
export const releaseDroppedUpload =
  (deps: ReleaseDeps): WriteReaction =>
  async (write, stamp) => {
    const stream = write.stream;
    if (!stream?.id.startsWith(RESOURCE_STREAM_PREFIX)) return undefined;
    // A write that began the stream had nothing before it to drop (every new resource): no need
    // to read the stream back.
    if (stream.firstRevision === 0n) return undefined;
    const history = await deps.eventStore.readStream(stream.id);
    const before = foldResource(history.filter((event) => event.revision < stream.firstRevision));
    const dropped = before.status === 'active' ? uploadPathOf(before.resource) : undefined;
    if (dropped === undefined) return undefined;
    const now = foldResource(history);
    if (now.status === 'active' && now.resource.resourceUrl === dropped) return undefined;
    const files = deps.stores.files;
    const file = await files.file(dropped);
    if (!file || file.deleted) return undefined;
    if ((await files.referencingResources(dropped)).length > 0) return undefined;
    return deleteUpload(deps, dropped, 'unreferenced', stamp);
  };

import type { FileEvent } from './file-events';
import { parseUploadPath } from './upload-policy';
import type { ResourceEvent } from '../resources/resource-events';
import type { RecordedEvent } from '../ports/event-store';
import { foldingProjection, type ReadModelProjection } from '../projections/read-model-projection';
import type { FilesStore } from './files-store';

export const FILES_PROJECTION = 'files';

type Folded = Stripped<FileEvent | ResourceEvent>;
type Stripped<E> = E extends { type: infer T; data: infer D } ? { type: T; data: D } : never;

/** Only paths of the upload shape are references to a stored file; links are not. */
const uploadPathOrNull = (resourceUrl: string): string | null => (parseUploadPath(resourceUrl) ? resourceUrl : null);

/**
 * Folds FileUploaded/FileDeleted into the files, and ResourceCreated/Updated/Deleted into which
 * resource references which path (a deleted resource keeps a tombstone row, so replaying an older
 * ResourceUpdated cannot bring its reference back).
 */
/** The events this read model folds: the files' own, and the resources that reference them. */
const FOLDED_TYPES: ReadonlySet<string> = new Set([
  'FileUploaded',
  'FileDeleted',
  'ResourceCreated',
  'ResourceUpdated',
  'ResourceDeleted',
]);

export function filesProjection(store: FilesStore): ReadModelProjection {
  return foldingProjection({
    name: FILES_PROJECTION,
    store: store.projectionStore,
    selects: { types: FOLDED_TYPES },
    async fold(event: Folded, recorded: RecordedEvent): Promise<void> {
      const position = recorded.position;
      switch (event.type) {
        case 'FileUploaded': {
          const { path, name, size, contentType, uploadedBy, at } = event.data;
          return store.recordUpload({ path, name, size, contentType, uploadedBy, uploadedAt: at }, position);
        }
        case 'FileDeleted':
          return store.recordDeletion(event.data.path, position);
        case 'ResourceCreated':
        case 'ResourceUpdated':
          return store.setReference(event.data.resourceId, uploadPathOrNull(event.data.resourceUrl), position);
        case 'ResourceDeleted':
          return store.setReference(event.data.resourceId, null, position);
        default:
          return;
      }
    },
  });
}

import type { FileEvent } from './file-events';
import { parseUploadPath } from './upload-policy';
import type { ResourceEvent } from '../resources/resource-events';
import type { CollectionDeclaration, Document, DocumentReadModel } from '../projections/document-store';

/** An upload as the files read model knows it: the document of the files collection, keyed by path. */
export type StoredFile = {
  readonly path: string;
  readonly name: string;
  readonly size: number;
  readonly contentType: string;
  readonly uploadedBy: number;
  readonly uploadedAt: string;
  /** A FileDeleted was recorded: the path is gone for good, a rebuild does not bring it back. */
  readonly deleted: boolean;
};

/** The upload a resource references, keyed by the resource's id. */
export type FileReference = { readonly resourceId: number; readonly path: string };

type Folded = Extract<
  FileEvent | ResourceEvent,
  { type: 'FileUploaded' | 'FileDeleted' | 'ResourceCreated' | 'ResourceUpdated' | 'ResourceDeleted' }
>;

export const FILES = 'files';
export const FILE_REFERENCES = 'file_references';
/** Live uploads oldest first (the sweep's walk); which resources reference a path, by id. */
export const LIVE_BY_AGE = 'live_by_age';
export const BY_PATH = 'by_path';

const COLLECTIONS: readonly CollectionDeclaration[] = [
  {
    name: FILES,
    indexes: {
      [LIVE_BY_AGE]: {
        equal: ['deleted'],
        order: [
          ['uploadedAt', 1],
          ['path', 1],
        ],
      },
    },
  },
  { name: FILE_REFERENCES, indexes: { [BY_PATH]: { equal: ['path'], order: [['resourceId', 1]] } } },
];

/** Only paths of the upload shape are references to a stored file; links are not. */
const uploadPathOrNull = (resourceUrl: string): string | null => (parseUploadPath(resourceUrl) ? resourceUrl : null);

function evolveFile(file: StoredFile | null, event: Extract<Folded, { type: 'FileUploaded' | 'FileDeleted' }>) {
  if (event.type === 'FileDeleted') return file && { ...file, deleted: true };
  // A deleted path stays deleted: an upload replayed or made again under it does not revive it.
  if (file?.deleted) return file;
  const { path, name, size, contentType, uploadedBy, at } = event.data;
  return { path, name, size, contentType, uploadedBy, uploadedAt: at, deleted: false } satisfies StoredFile;
}

function evolveReference(event: Extract<Folded, { type: `Resource${string}` }>): FileReference | null {
  const path = event.type === 'ResourceDeleted' ? null : uploadPathOrNull(event.data.resourceUrl);
  return path === null ? null : { resourceId: event.data.resourceId, path };
}

/**
 * The files read model: each upload (FileUploaded, FileDeleted) by its path, and the upload each
 * resource references (ResourceCreated/Updated/Deleted) by the resource's id. A resource that
 * references none (a link, or deleted) has no reference document: where it had one, the runner
 * keeps a tombstone at the event's position, so replaying an older event cannot bring it back.
 */
export const FILES_READ_MODEL: DocumentReadModel<Folded> = {
  /**
   * Not 'files': that checkpoint counted the tables of the hand-written adapters before these
   * documents, which its collections do not hold. Under a name of its own the projection finds no
   * checkpoint in a read database written before them and folds the log from its start into them;
   * the old tables are no longer read.
   */
  name: 'file-documents',
  canHandle: {
    types: new Set<Folded['type']>([
      'FileUploaded',
      'FileDeleted',
      'ResourceCreated',
      'ResourceUpdated',
      'ResourceDeleted',
    ]),
    // A resource's first event: without an upload it has no reference to write.
    changes: (event) =>
      event.type !== 'ResourceCreated' ||
      evolveReference(event as Extract<Folded, { type: 'ResourceCreated' }>) !== null,
  },
  collections: COLLECTIONS,
  documentsOf: (event) =>
    event.type === 'FileUploaded' || event.type === 'FileDeleted'
      ? [{ collection: FILES, id: event.data.path }]
      : [{ collection: FILE_REFERENCES, id: event.data.resourceId }],
  evolve: (_collection, document, event): Document | null =>
    event.type === 'FileUploaded' || event.type === 'FileDeleted'
      ? evolveFile(document as StoredFile | null, event)
      : evolveReference(event),
};

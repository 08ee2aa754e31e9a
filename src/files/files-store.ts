import type { ProjectionStore } from '../projections/read-model-projection';

/** An upload as the files read model knows it. */
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

/**
 * The files read model's port, named for the service's questions: what is stored under a path,
 * which resources reference it, which uploads nobody references. Writes carry the global
 * position of the event they come from and are ignored when the store already holds a later one.
 */
export interface FilesStore {
  readonly projectionStore: ProjectionStore;

  recordUpload(file: Omit<StoredFile, 'deleted'>, position: bigint): Promise<void>;
  recordDeletion(path: string, position: bigint): Promise<void>;
  /** The upload path a resource references now; null when it references none (a link, or deleted: a tombstone). */
  setReference(resourceId: number, path: string | null, position: bigint): Promise<void>;

  file(path: string): Promise<StoredFile | null>;
  referencingResources(path: string): Promise<number[]>;
  /** Paths of live uploads made before `uploadedBefore` (ISO 8601) that no resource references, oldest first. */
  unreferencedUploads(uploadedBefore: string, limit: number): Promise<string[]>;
}

/** What the download check needs: which resources reference a path. */
export type FileAccess = Pick<FilesStore, 'referencingResources'>;

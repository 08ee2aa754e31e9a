import type { Collection, Document, Filter, UpdateFilter } from 'mongodb';
import type { FilesStore, StoredFile } from '../../files/files-store';
import type { ProjectionStore } from '../../projections/read-model-projection';
import type { MongoReadDb } from './mongo-read-db';
import { mongoProjectionStore } from './mongo-read-db';
import { applyGuardedUpsert } from './mongo-guarded-write';

export const FILES_COLLECTIONS = { files: 'files', references: 'file_references' } as const;

export type FileDoc = Omit<StoredFile, 'path'> & { _id: string; position: number };
export type ReferenceDoc = { _id: number; path: string | null; position: number };

/** A guarded write: applied only where the document holds an older position; `upsert` inserts a missing one. */
export type GuardedWrite<T> = { filter: Filter<T>; update: UpdateFilter<T>; upsert: boolean };

// Pure builders, evaluated with mingo in the contract test (no MongoDB runs there).

export function uploadWrite(file: Omit<StoredFile, 'deleted'>, position: bigint): GuardedWrite<FileDoc> {
  const { path, ...rest } = file;
  return {
    // A deleted file never matches: the upsert then hits the existing _id and is ignored.
    filter: { _id: path, position: { $lt: Number(position) }, deleted: false },
    update: { $set: { ...rest, deleted: false, position: Number(position) } },
    upsert: true,
  };
}

export function deletionWrite(path: string, position: bigint): GuardedWrite<FileDoc> {
  return {
    filter: { _id: path, position: { $lt: Number(position) } },
    update: { $set: { deleted: true, position: Number(position) } },
    upsert: false,
  };
}

export function referenceWrite(resourceId: number, path: string | null, position: bigint): GuardedWrite<ReferenceDoc> {
  return {
    filter: { _id: resourceId, position: { $lt: Number(position) } },
    update: { $set: { path, position: Number(position) } },
    upsert: true,
  };
}

export const referencingFilter = (path: string): Filter<ReferenceDoc> => ({ path });

export const liveUploadsBeforeFilter = (uploadedBefore: string): Filter<FileDoc> => ({
  deleted: false,
  uploadedAt: { $lt: uploadedBefore },
});

/** The files read model on MongoDB; indexes for each query are declared by `ensureIndexes`. */
export class MongoFilesStore implements FilesStore {
  readonly projectionStore: ProjectionStore;

  constructor(private readonly readDb: MongoReadDb) {
    this.projectionStore = mongoProjectionStore(readDb, Object.values(FILES_COLLECTIONS));
  }

  private get files() {
    return this.readDb.db.collection<FileDoc>(FILES_COLLECTIONS.files);
  }

  private get references() {
    return this.readDb.db.collection<ReferenceDoc>(FILES_COLLECTIONS.references);
  }

  async ensureIndexes(): Promise<void> {
    await this.files.createIndex({ deleted: 1, uploadedAt: 1 });
    await this.references.createIndex({ path: 1 });
  }

  private async apply<T extends FileDoc | ReferenceDoc>(collection: string, write: GuardedWrite<T>): Promise<void> {
    const { session } = this.readDb.sessionOption();
    const target = this.readDb.db.collection(collection) as Collection<Document>;
    if (write.upsert)
      await applyGuardedUpsert(target, { filter: write.filter as Document, update: write.update as Document }, session);
    else await target.updateOne(write.filter as Document, write.update as Document, { session });
  }

  recordUpload(file: Omit<StoredFile, 'deleted'>, position: bigint): Promise<void> {
    return this.apply(FILES_COLLECTIONS.files, uploadWrite(file, position));
  }

  recordDeletion(path: string, position: bigint): Promise<void> {
    return this.apply(FILES_COLLECTIONS.files, deletionWrite(path, position));
  }

  setReference(resourceId: number, path: string | null, position: bigint): Promise<void> {
    return this.apply(FILES_COLLECTIONS.references, referenceWrite(resourceId, path, position));
  }

  async file(path: string): Promise<StoredFile | null> {
    const doc = await this.files.findOne({ _id: path }, this.readDb.readOptions());
    if (!doc) return null;
    const { _id, position: _position, ...rest } = doc;
    return { path: _id, ...rest };
  }

  async referencingResources(path: string): Promise<number[]> {
    const docs = await this.references
      .find(referencingFilter(path), this.readDb.readOptions())
      .sort({ _id: 1 })
      .toArray();
    return docs.map((d) => d._id);
  }

  async unreferencedUploads(uploadedBefore: string, limit: number): Promise<string[]> {
    const out: string[] = [];
    const cursor = this.files
      .find(liveUploadsBeforeFilter(uploadedBefore), this.readDb.readOptions())
      .sort({ uploadedAt: 1, _id: 1 })
      .project<{ _id: string }>({ _id: 1 });
    for await (const doc of cursor) {
      if (out.length >= limit) break;
      if (
        (await this.references.countDocuments(referencingFilter(doc._id), {
          limit: 1,
          ...this.readDb.readOptions(),
        })) === 0
      )
        out.push(doc._id);
    }
    await cursor.close();
    return out;
  }
}

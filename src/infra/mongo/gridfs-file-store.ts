import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Db, Filter, GridFSFile } from 'mongodb';
import { GridFSBucket, MongoClient, MongoRuntimeError, ObjectId } from 'mongodb';
import { parseUploadPath } from '../../files/upload-policy';
import { DEFAULT_MONGO_QUERY_TIMEOUT_MS, mongoClientOptions } from '../../config/mongo-client-options';
import type { ByteRange, FileStore, StagedFile } from '../../ports/file-store';
import { InvalidFilePathError } from '../../ports/file-store';

const BUCKET = 'uploads';
/**
 * Uploads begun and not yet whole, by GridFS file id. GridFS writes a file's chunks as they come
 * and its files document only at the end, so a process that dies mid-upload leaves chunks no files
 * document names, which a sweep of staged files documents never finds: this record does.
 */
const STAGING = `${BUCKET}.staging`;

type StagingDoc = { _id: ObjectId };

/** The GridFS query for the committed file stored under a path (pure, tested with mingo). */
export function committedFileFilter(storedPath: string): Filter<GridFSFile> {
  return { filename: storedPath, 'metadata.staged': false };
}

/** The GridFS query for staged files left before a time (pure, tested with mingo). */
export function staleStagingFilter(before: Date): Filter<GridFSFile> {
  return { 'metadata.staged': true, uploadDate: { $lt: before } };
}

/**
 * The uploads begun before a time and never finished (pure, tested with mingo): an ObjectId
 * starts with the second it was made, when the upload began.
 */
export function abandonedUploadsFilter(before: Date): Filter<StagingDoc> {
  return { _id: { $lt: ObjectId.createFromTime(Math.floor(before.getTime() / 1000)) } };
}

/**
 * Files in MongoDB GridFS (bucket `uploads`), used when MONGODB_URL is set. A staged file is a
 * GridFS file named `.staging/<uuid>` with `metadata.staged: true`; commit renames it to its path
 * and clears the flag, so a reader never sees a half-written or unchecked upload. Queries of the
 * files collection carry `maxTimeMS`; a download stream takes no such option (GridFSBucket's read
 * options have none that works), so the client's socket timeout is its bound.
 */
export class GridFsFileStore implements FileStore {
  private readonly bucket: GridFSBucket;

  /** The options of every query of the files collection: a server-side time bound. */
  private readonly query: { maxTimeMS: number };

  constructor(
    private readonly db: Db,
    private readonly client?: MongoClient,
    queryTimeoutMs = DEFAULT_MONGO_QUERY_TIMEOUT_MS,
  ) {
    this.bucket = new GridFSBucket(db, { bucketName: BUCKET });
    this.query = { maxTimeMS: queryTimeoutMs };
  }

  static async connect(
    url: string,
    dbName?: string,
    queryTimeoutMs = DEFAULT_MONGO_QUERY_TIMEOUT_MS,
  ): Promise<GridFsFileStore> {
    const client = new MongoClient(url, mongoClientOptions(queryTimeoutMs));
    await client.connect();
    return new GridFsFileStore(client.db(dbName), client, queryTimeoutMs);
  }

  private files() {
    return this.db.collection<GridFSFile>(`${BUCKET}.files`);
  }

  private chunks() {
    return this.db.collection<{ files_id: ObjectId }>(`${BUCKET}.chunks`);
  }

  private staging() {
    return this.db.collection<StagingDoc>(STAGING);
  }

  private checked(storedPath: string): string {
    if (!parseUploadPath(storedPath)) throw new InvalidFilePathError(storedPath);
    return storedPath;
  }

  async stage(content: Readable): Promise<StagedFile> {
    // Recorded before the first chunk: a crash from here on leaves something a purge finds.
    const id = new ObjectId();
    await this.staging().insertOne({ _id: id });
    const upload = this.bucket.openUploadStreamWithId(id, `.staging/${randomUUID()}`, { metadata: { staged: true } });
    let size = 0;
    content.on('data', (chunk: Buffer) => {
      size += chunk.length;
    });
    try {
      await pipeline(content, upload);
    } catch (error) {
      await upload.abort().catch(() => undefined);
      await this.bucket.delete(upload.id).catch(() => undefined);
      await this.staging().deleteOne({ _id: id });
      throw error;
    }
    // Whole: its files document (staged) is what a purge finds from now on.
    await this.staging().deleteOne({ _id: id });
    return { key: upload.id.toHexString(), size };
  }

  async commit(staged: StagedFile, storedPath: string): Promise<void> {
    await this.files().updateOne(
      { _id: new ObjectId(staged.key), 'metadata.staged': true },
      { $set: { filename: this.checked(storedPath), 'metadata.staged': false } },
    );
  }

  async discard(staged: StagedFile): Promise<void> {
    await this.bucket.delete(new ObjectId(staged.key)).catch(() => undefined);
  }

  async stat(storedPath: string): Promise<{ size: number } | null> {
    const doc = await this.files().findOne(committedFileFilter(this.checked(storedPath)), this.query);
    return doc ? { size: doc.length } : null;
  }

  async open(storedPath: string, range?: ByteRange): Promise<Readable | null> {
    const doc = await this.files().findOne(committedFileFilter(this.checked(storedPath)), this.query);
    if (!doc) return null;
    // GridFS's `end` is exclusive, HTTP's is inclusive.
    return this.bucket.openDownloadStream(doc._id, range ? { start: range.start, end: range.end + 1 } : {});
  }

  async delete(storedPath: string): Promise<boolean> {
    const doc = await this.files().findOne(committedFileFilter(this.checked(storedPath)), this.query);
    if (!doc) return false;
    try {
      await this.bucket.delete(doc._id);
    } catch (error) {
      // Another delete removed its files document between the find and this one: not this one's.
      // The driver says so only in words (MongoRuntimeError, "File not found for id …").
      if (error instanceof MongoRuntimeError && error.message.startsWith('File not found')) return false;
      throw error;
    }
    return true;
  }

  /** Staged files left before `before`, and the chunks of uploads that died before they were whole. */
  async purgeStaging(before: Date): Promise<number> {
    const stale = await this.files().find(staleStagingFilter(before), this.query).toArray();
    for (const doc of stale) await this.bucket.delete(doc._id).catch(() => undefined);
    const purged = new Set(stale.map((doc) => String(doc._id)));
    const abandoned = await this.staging().find(abandonedUploadsFilter(before), this.query).toArray();
    for (const { _id } of abandoned) {
      await this.chunks().deleteMany({ files_id: _id });
      // Written just before the process died, perhaps: a staged document goes with its chunks.
      await this.files().deleteOne({ _id, 'metadata.staged': true });
      await this.staging().deleteOne({ _id });
      purged.add(String(_id));
    }
    return purged.size;
  }

  async close(): Promise<void> {
    await this.client?.close();
  }
}

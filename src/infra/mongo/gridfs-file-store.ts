import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Db, Filter, GridFSFile } from 'mongodb';
import { GridFSBucket, MongoClient, ObjectId } from 'mongodb';
import { parseUploadPath } from '../../files/upload-policy';
import { DEFAULT_MONGO_QUERY_TIMEOUT_MS, mongoClientOptions } from '../../config/mongo-client-options';
import type { ByteRange, FileStore, StagedFile } from '../../ports/file-store';
import { InvalidFilePathError } from '../../ports/file-store';

const BUCKET = 'uploads';

/** The GridFS query for the committed file stored under a path (pure, tested with mingo). */
export function committedFileFilter(storedPath: string): Filter<GridFSFile> {
  return { filename: storedPath, 'metadata.staged': false };
}

/** The GridFS query for staged files left before a time (pure, tested with mingo). */
export function staleStagingFilter(before: Date): Filter<GridFSFile> {
  return { 'metadata.staged': true, uploadDate: { $lt: before } };
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

  private checked(storedPath: string): string {
    if (!parseUploadPath(storedPath)) throw new InvalidFilePathError(storedPath);
    return storedPath;
  }

  async stage(content: Readable): Promise<StagedFile> {
    const upload = this.bucket.openUploadStream(`.staging/${randomUUID()}`, { metadata: { staged: true } });
    let size = 0;
    content.on('data', (chunk: Buffer) => {
      size += chunk.length;
    });
    try {
      await pipeline(content, upload);
    } catch (error) {
      await upload.abort().catch(() => undefined);
      await this.bucket.delete(upload.id).catch(() => undefined);
      throw error;
    }
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
    await this.bucket.delete(doc._id);
    return true;
  }

  async purgeStaging(before: Date): Promise<number> {
    const stale = await this.files().find(staleStagingFilter(before), this.query).toArray();
    for (const doc of stale) await this.bucket.delete(doc._id).catch(() => undefined);
    return stale.length;
  }

  async close(): Promise<void> {
    await this.client?.close();
  }
}

import { randomUUID } from 'node:crypto';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { parseUploadPath } from '../../files/upload-policy';
import type { ByteRange, FileStore, StagedFile } from '../../ports/file-store';
import { InvalidFilePathError } from '../../ports/file-store';
import { SCHEMA_NAME } from './migrations';
import { statementBounds } from './client-bound';
import { PreparingClient } from './preparing-client';

/**
 * The bytes of one row of `file_chunks`. Fixed per file (recorded in its header), so a range read
 * knows which rows hold its bytes; small enough that an upload holds at most one in memory.
 */
const CHUNK_BYTES = 256 * 1024;
/** A download reads this many bytes of chunks per query: a 3 MB file in three round trips. */
const READ_BYTES = 1024 * 1024;
const DEFAULT_QUERY_TIMEOUT_MS = 10_000;
/** Two keys of pg_advisory_xact_lock: this constant for the file store's tables, and the schema's hash. */
const FILE_STORE_LOCK_CLASS = 0x70_72_66_6c; // 'prfl'

/*
 * The tables are created once, under an advisory lock, rather than through the log's versioned
 * migrations (migrations.ts): those record their versions in the schema's `schema_migrations`, whose
 * numbers are the log's, and this store may well share the log's schema. These are the first shape;
 * a later change of it must be a step of its own here, since the bytes cannot be rebuilt from events.
 *
 * `stored_files`, not `files`: the files read model has a `files` table, and a deployment that put
 * both in one schema would otherwise find the other's table already "created".
 *
 * A header with no path is staged: being written while its size is null, whole once it is set.
 * Chunks go with their header (on delete cascade), so dropping a header leaves none behind; they
 * are stored out of line uncompressed (storage external), uploads being mostly compressed already.
 */
const DDL = `
  create table stored_files (
    id uuid primary key,
    path text collate "C" unique,
    size bigint,
    chunk_bytes integer not null check (chunk_bytes > 0),
    staged_at timestamptz not null,
    check (path is null or size is not null)
  );
  create index stored_files_staged on stored_files (staged_at) where path is null;
  create table file_chunks (
    file_id uuid not null references stored_files (id) on delete cascade,
    n integer not null,
    data bytea not null,
    primary key (file_id, n)
  );
  alter table file_chunks alter column data set storage external;`;

export type PostgresFileStoreOptions = {
  /** The schema of the file store's tables, created with them at connect if missing. */
  readonly schema: string;
  readonly poolSize?: number;
  /** The server-side bound of every statement; a download's queries are one chunk range each. */
  readonly queryTimeoutMs?: number;
};

/**
 * An incoming stream cut into chunks of `chunkBytes`, each inserted before more is taken: the
 * stream's backpressure holds the source meanwhile, so an upload's memory is one chunk, whatever
 * its size.
 */
class ChunkSink extends Writable {
  size = 0;
  private buffered: Buffer[] = [];
  private bufferedBytes = 0;
  private next = 0;
  private inFlight: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly chunkBytes: number,
    private readonly insert: (n: number, data: Buffer) => Promise<unknown>,
  ) {
    super({ highWaterMark: chunkBytes });
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.size += chunk.length;
    this.buffered.push(chunk);
    this.bufferedBytes += chunk.length;
    this.track(this.flush(false), callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.track(this.flush(true), callback);
  }

  /** Resolves once no insert is under way: after it, nothing more of this upload reaches the table. */
  settled(): Promise<void> {
    return this.inFlight.then(
      () => undefined,
      () => undefined,
    );
  }

  private track(work: Promise<void>, callback: (error?: Error | null) => void): void {
    this.inFlight = work;
    work.then(
      () => callback(),
      (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
    );
  }

  private async flush(all: boolean): Promise<void> {
    while (this.bufferedBytes >= this.chunkBytes || (all && this.bufferedBytes > 0)) {
      if (this.destroyed) return;
      const joined = this.buffered.length === 1 ? this.buffered[0]! : Buffer.concat(this.buffered, this.bufferedBytes);
      const data = joined.subarray(0, this.chunkBytes);
      const rest = joined.subarray(data.length);
      this.buffered = rest.length > 0 ? [rest] : [];
      this.bufferedBytes = rest.length;
      await this.insert(this.next, data);
      this.next += 1;
    }
  }
}

/**
 * Files in PostgreSQL, for the PostgreSQL backend: a header row per file and its bytes in chunks
 * of 256 KiB, written as the upload streams in and read back a range of chunks per query, so no
 * file is ever whole in memory and a download holds a connection only for each query, not for as
 * long as a slow client takes. Staging is the header without a path; commit sets the path, so a
 * reader never sees a half-written or unchecked upload. A staged header is stamped with this
 * process's clock, the one the sweep's cutoff is computed on.
 */
export class PostgresFileStore implements FileStore {
  private closing: Promise<void> | undefined;

  private constructor(private readonly pool: pg.Pool) {}

  /** The store on `schema`, its tables created if missing (the first process creates, the others wait). */
  static async connect(connectionString: string, options: PostgresFileStoreOptions): Promise<PostgresFileStore> {
    const { schema } = options;
    if (!SCHEMA_NAME.test(schema)) throw new Error(`not a schema name this store takes: ${JSON.stringify(schema)}`);
    const pool = new pg.Pool({
      connectionString,
      Client: PreparingClient,
      max: options.poolSize ?? 10,
      options: `-c search_path=${schema}`,
      // A query past its bound fails instead of holding an upload or a download.
      ...statementBounds(options.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS),
      keepAlive: true,
    });
    // An idle connection that fails (the server restarted) is dropped by the pool; the next query
    // fails or gets a new one. Without a listener the pool's 'error' would end the process.
    pool.on('error', () => undefined);
    try {
      await createTables(pool, schema);
    } catch (error) {
      await pool.end();
      throw error;
    }
    return new PostgresFileStore(pool);
  }

  private checked(storedPath: string): string {
    if (!parseUploadPath(storedPath)) throw new InvalidFilePathError(storedPath);
    return storedPath;
  }

  private stagedKey(staged: StagedFile): string {
    if (!/^[0-9a-f-]{36}$/.test(staged.key)) throw new InvalidFilePathError(staged.key);
    return staged.key;
  }

  async stage(content: Readable): Promise<StagedFile> {
    const key = randomUUID();
    // Recorded before the first chunk: a process that dies mid-upload leaves a header the sweep finds.
    try {
      await this.pool.query('insert into stored_files (id, chunk_bytes, staged_at) values ($1, $2, $3)', [
        key,
        CHUNK_BYTES,
        new Date(),
      ]);
    } catch (error) {
      content.destroy();
      throw error;
    }
    const sink = new ChunkSink(CHUNK_BYTES, (n, data) =>
      this.pool.query('insert into file_chunks (file_id, n, data) values ($1, $2, $3)', [key, n, data]),
    );
    try {
      await pipeline(content, sink);
      const { rowCount } = await this.pool.query('update stored_files set size = $2 where id = $1 and path is null', [
        key,
        sink.size,
      ]);
      if (rowCount === 0) throw new Error('the staged file was swept while it was written');
    } catch (error) {
      // An insert still under way would otherwise land after the header's removal is decided; the
      // foreign key refuses it then anyway, but waiting leaves nothing to reason about.
      await sink.settled();
      await this.pool.query('delete from stored_files where id = $1', [key]).catch(() => undefined);
      throw error;
    }
    return { key, size: sink.size };
  }

  async commit(staged: StagedFile, storedPath: string): Promise<void> {
    const { rowCount } = await this.pool.query(
      'update stored_files set path = $2 where id = $1 and path is null and size is not null',
      [this.stagedKey(staged), this.checked(storedPath)],
    );
    // Published under the path would be nothing: the caller must not record an upload without bytes.
    if (rowCount === 0) throw new Error('no staged file to commit: discarded or swept');
  }

  async discard(staged: StagedFile): Promise<void> {
    await this.pool.query('delete from stored_files where id = $1 and path is null', [this.stagedKey(staged)]);
  }

  async stat(storedPath: string): Promise<{ size: number } | null> {
    const { rows } = await this.pool.query<{ size: string }>('select size from stored_files where path = $1', [
      this.checked(storedPath),
    ]);
    const row = rows[0];
    return row ? { size: Number(row.size) } : null;
  }

  async open(storedPath: string, range?: ByteRange): Promise<Readable | null> {
    const { rows } = await this.pool.query<{ id: string; size: string; chunk_bytes: number }>(
      'select id, size, chunk_bytes from stored_files where path = $1',
      [this.checked(storedPath)],
    );
    const row = rows[0];
    if (!row) return null;
    const size = Number(row.size);
    const bytes = size === 0 ? null : { start: range?.start ?? 0, end: range?.end ?? size - 1 };
    return Readable.from(this.chunks(row.id, size, row.chunk_bytes, bytes), {
      objectMode: false,
      highWaterMark: READ_BYTES,
    });
  }

  /** The bytes of `range`, a range of chunks per query, pulled as the reader takes them. */
  private async *chunks(id: string, size: number, chunkBytes: number, range: ByteRange | null) {
    if (range === null) return;
    const last = Math.floor(range.end / chunkBytes);
    const perQuery = Math.max(1, Math.floor(READ_BYTES / chunkBytes));
    let n = Math.floor(range.start / chunkBytes);
    while (n <= last) {
      const upTo = Math.min(last, n + perQuery - 1);
      const { rows } = await this.pool.query<[number, Buffer]>({
        text: 'select n, data from file_chunks where file_id = $1 and n between $2 and $3 order by n',
        values: [id, n, upTo],
        // Text results (bytea as hex): node-postgres decodes every binary result column as UTF-8
        // text before any type parser sees it, which would mangle the bytes.
        rowMode: 'array',
      });
      for (const [at, data] of rows) {
        const from = n * chunkBytes;
        // Deleted while it was read: the stream fails rather than end as if the file were shorter.
        if (at !== n || data.length !== Math.min(chunkBytes, size - from))
          throw new Error('the file changed while it was read');
        yield data.subarray(Math.max(0, range.start - from), Math.min(data.length, range.end - from + 1));
        n += 1;
      }
      if (n <= upTo) throw new Error('the file changed while it was read');
    }
  }

  async delete(storedPath: string): Promise<boolean> {
    const { rowCount } = await this.pool.query('delete from stored_files where path = $1', [this.checked(storedPath)]);
    return (rowCount ?? 0) > 0;
  }

  /** Staged files left before `before`, whole or not: their chunks go with them. */
  async purgeStaging(before: Date): Promise<number> {
    const { rowCount } = await this.pool.query('delete from stored_files where path is null and staged_at < $1', [
      before,
    ]);
    return rowCount ?? 0;
  }

  close(): Promise<void> {
    this.closing ??= this.pool.end();
    return this.closing;
  }
}

async function createTables(pool: pg.Pool, schema: string): Promise<void> {
  const client = await pool.connect();
  const cut = () => undefined;
  client.on('error', cut);
  try {
    await client.query('begin');
    try {
      await client.query('select pg_advisory_xact_lock($1, hashtext($2))', [FILE_STORE_LOCK_CLASS, schema]);
      // Looked for first: CREATE SCHEMA needs the CREATE privilege on the database even when the
      // schema exists, which a service's user given a schema of its own need not have.
      const { rowCount } = await client.query('select 1 from pg_namespace where nspname = $1', [schema]);
      if (rowCount === 0) await client.query(`create schema "${schema}"`);
      await client.query(`set local search_path to "${schema}"`);
      const { rows } = await client.query<{ found: string | null }>("select to_regclass('stored_files') as found");
      if (rows[0]?.found === null) await client.query(DDL);
      await client.query('commit');
    } catch (error) {
      await client.query('rollback').catch(() => undefined);
      throw error;
    }
  } finally {
    client.off('error', cut);
    client.release();
  }
}

import type { FilesStore, StoredFile } from '../../files/files-store';
import type { ProjectionStore } from '../../projections/read-model-projection';
import { postgresProjectionStore, type PostgresReadDb } from './postgres-read-db';

const TABLES = ['files', 'file_references'] as const;

type FileRow = {
  path: string;
  name: string;
  size: string;
  content_type: string;
  uploaded_by: string;
  uploaded_at: string;
  deleted: boolean;
};

const toFile = (row: FileRow): StoredFile => ({
  path: row.path,
  name: row.name,
  size: Number(row.size),
  contentType: row.content_type,
  uploadedBy: Number(row.uploaded_by),
  uploadedAt: row.uploaded_at,
  deleted: row.deleted,
});

/*
 * Paths and times compare under collation "C", by code point as SQLite and MongoDB compare them:
 * under the database's default (a linguistic one, say en_US) the oldest-first order of the sweep,
 * and which uploads are "before" its cutoff, would depend on how the server was initialised.
 */
const DDL = `
  create table if not exists files (
    path text collate "C" primary key,
    name text not null,
    size bigint not null,
    content_type text not null,
    uploaded_by bigint not null,
    uploaded_at text collate "C" not null,
    deleted boolean not null default false,
    position bigint not null
  );
  create index if not exists files_live_by_age on files (uploaded_at, path) where not deleted;
  create table if not exists file_references (
    resource_id bigint primary key,
    path text collate "C",
    position bigint not null
  );
  create index if not exists file_references_by_path on file_references (path);`;

/**
 * The files read model on PostgreSQL, in the read database's generation schema. Every write is
 * guarded by position in its own statement (`on conflict … where`), so a replayed batch changes
 * nothing; inside a batch the writes join its transaction through `PostgresReadDb.query`.
 */
export class PostgresFilesStore implements FilesStore {
  readonly projectionStore: ProjectionStore;

  private constructor(private readonly read: PostgresReadDb) {
    this.projectionStore = postgresProjectionStore(read, TABLES);
  }

  static async open(read: PostgresReadDb): Promise<PostgresFilesStore> {
    await read.ensure(DDL);
    return new PostgresFilesStore(read);
  }

  async recordUpload(file: Omit<StoredFile, 'deleted'>, position: bigint): Promise<void> {
    // A deleted path keeps its tombstone: a replayed or reused upload does not bring it back.
    await this.read.query(
      `insert into files as f (path, name, size, content_type, uploaded_by, uploaded_at, deleted, position)
       values ($1, $2, $3, $4, $5, $6, false, $7)
       on conflict (path) do update set name = excluded.name, size = excluded.size,
         content_type = excluded.content_type, uploaded_by = excluded.uploaded_by,
         uploaded_at = excluded.uploaded_at, position = excluded.position
       where f.position < excluded.position and not f.deleted`,
      [file.path, file.name, file.size, file.contentType, file.uploadedBy, file.uploadedAt, position.toString()],
    );
  }

  async recordDeletion(path: string, position: bigint): Promise<void> {
    await this.read.query('update files set deleted = true, position = $2 where path = $1 and position < $2', [
      path,
      position.toString(),
    ]);
  }

  async setReference(resourceId: number, path: string | null, position: bigint): Promise<void> {
    await this.read.query(
      `insert into file_references as r (resource_id, path, position) values ($1, $2, $3)
       on conflict (resource_id) do update set path = excluded.path, position = excluded.position
       where r.position < excluded.position`,
      [resourceId, path, position.toString()],
    );
  }

  async file(path: string): Promise<StoredFile | null> {
    const { rows } = await this.read.query<FileRow>(
      'select path, name, size, content_type, uploaded_by, uploaded_at, deleted from files where path = $1',
      [path],
    );
    const row = rows[0];
    return row ? toFile(row) : null;
  }

  async referencingResources(path: string): Promise<number[]> {
    const { rows } = await this.read.query<{ resource_id: string }>(
      'select resource_id from file_references where path = $1 order by resource_id',
      [path],
    );
    return rows.map((row) => Number(row.resource_id));
  }

  async unreferencedUploads(uploadedBefore: string, limit: number): Promise<string[]> {
    const { rows } = await this.read.query<{ path: string }>(
      `select f.path from files f
       where not f.deleted and f.uploaded_at < $1
         and not exists (select 1 from file_references r where r.path = f.path)
       order by f.uploaded_at, f.path limit $2`,
      [uploadedBefore, limit],
    );
    return rows.map((row) => row.path);
  }
}

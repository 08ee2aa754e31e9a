import type { Statement } from 'better-sqlite3';
import type { FilesStore, StoredFile } from '../../files/files-store';
import type { ProjectionStore } from '../../projections/read-model-projection';
import type { SqliteReadDb } from './sqlite-read-db';
import { sqliteProjectionStore } from './sqlite-read-db';

type FileRow = {
  path: string;
  name: string;
  size: number;
  content_type: string;
  uploaded_by: number;
  uploaded_at: string;
  deleted: number;
};

const toFile = (row: FileRow): StoredFile => ({
  path: row.path,
  name: row.name,
  size: row.size,
  contentType: row.content_type,
  uploadedBy: row.uploaded_by,
  uploadedAt: row.uploaded_at,
  deleted: row.deleted === 1,
});

/** The files read model on the embedded SQLite read database. Positions are stored as integers. */
export class SqliteFilesStore implements FilesStore {
  readonly projectionStore: ProjectionStore;
  private readonly statements: {
    upload: Statement;
    deletion: Statement;
    reference: Statement;
    file: Statement<[string], FileRow>;
    referencing: Statement<[string], { resource_id: number }>;
    unreferenced: Statement<[string, number], { path: string }>;
  };

  constructor(readDb: SqliteReadDb) {
    const { db } = readDb;
    db.exec(`create table if not exists files (
      path text primary key,
      name text not null,
      size integer not null,
      content_type text not null,
      uploaded_by integer not null,
      uploaded_at text not null,
      deleted integer not null default 0,
      position integer not null
    ) strict`);
    db.exec('create index if not exists files_live_by_age on files (deleted, uploaded_at)');
    db.exec(`create table if not exists file_references (
      resource_id integer primary key,
      path text,
      position integer not null
    ) strict`);
    db.exec('create index if not exists file_references_by_path on file_references (path)');
    this.projectionStore = sqliteProjectionStore(readDb, ['files', 'file_references']);
    this.statements = {
      upload:
        db.prepare(`insert into files (path, name, size, content_type, uploaded_by, uploaded_at, deleted, position)
        values (@path, @name, @size, @contentType, @uploadedBy, @uploadedAt, 0, @position)
        on conflict (path) do update set name = excluded.name, size = excluded.size, content_type = excluded.content_type,
          uploaded_by = excluded.uploaded_by, uploaded_at = excluded.uploaded_at, position = excluded.position
        where files.position < excluded.position and files.deleted = 0`),
      deletion: db.prepare(
        'update files set deleted = 1, position = @position where path = @path and position < @position',
      ),
      reference:
        db.prepare(`insert into file_references (resource_id, path, position) values (@resourceId, @path, @position)
        on conflict (resource_id) do update set path = excluded.path, position = excluded.position
        where file_references.position < excluded.position`),
      file: db.prepare<[string], FileRow>('select * from files where path = ?'),
      referencing: db.prepare<[string], { resource_id: number }>(
        'select resource_id from file_references where path = ? order by resource_id',
      ),
      unreferenced: db.prepare<[string, number], { path: string }>(`select f.path from files f
        where f.deleted = 0 and f.uploaded_at < ?
          and not exists (select 1 from file_references r where r.path = f.path)
        order by f.uploaded_at, f.path limit ?`),
    };
  }

  async recordUpload(file: Omit<StoredFile, 'deleted'>, position: bigint): Promise<void> {
    this.statements.upload.run({ ...file, position });
  }

  async recordDeletion(path: string, position: bigint): Promise<void> {
    this.statements.deletion.run({ path, position });
  }

  async setReference(resourceId: number, path: string | null, position: bigint): Promise<void> {
    this.statements.reference.run({ resourceId, path, position });
  }

  async file(path: string): Promise<StoredFile | null> {
    const row = this.statements.file.get(path);
    return row ? toFile(row) : null;
  }

  async referencingResources(path: string): Promise<number[]> {
    return this.statements.referencing.all(path).map((r) => r.resource_id);
  }

  async unreferencedUploads(uploadedBefore: string, limit: number): Promise<string[]> {
    return this.statements.unreferenced.all(uploadedBefore, limit).map((r) => r.path);
  }
}

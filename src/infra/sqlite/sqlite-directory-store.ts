import type Database from 'better-sqlite3';
import type { CircleFacts, CommunityFacts, ProjectFacts } from '../../directory/viewer';
import type { DirectoryChange, DirectoryRecord, DirectoryTable } from '../../directory/directory-records';
import {
  DIRECTORY_TABLES,
  circleFactsOf,
  communityFactsOf,
  membershipsOf,
  projectFactsOf,
} from '../../directory/directory-records';
import type {
  CommunityProjectRecord,
  DirectoryStore,
  ParagraphRecord,
  UserRecord,
} from '../../directory/directory-store';
import type { Memberships } from '../../directory/directory-records';
import type { ProjectionStore } from '../../projections/read-model-projection';
import { readScope } from '../../projections/read-scopes';
import { sqliteProjectionStore, type SqliteReadDb } from './sqlite-read-db';

const snake = (field: string) => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const tableName = (table: DirectoryTable) => `dir_${snake(table)}`;

type Row = { record: string };

/** A table's key columns, in order: its primary key, and the order its records are listed in. */
const keyColumns = (table: DirectoryTable): string => DIRECTORY_TABLES[table].key.map(snake).join(', ');

/**
 * Derived from the membership tables, one row per user: their community, project and circle
 * membership records, as one JSON text (see SqliteDirectoryStore.memberships).
 */
const MEMBERSHIPS_TABLE = 'dir_caller_memberships';
/** The membership tables a caller's document is made of, under the names the document gives them. */
const MEMBERSHIP_PARTS = [
  ['communities', 'communityMembers'],
  ['projects', 'projectMembers'],
  ['circles', 'circleMembers'],
] as const satisfies readonly (readonly [string, DirectoryTable])[];
type MembershipPart = (typeof MEMBERSHIP_PARTS)[number][0];
type MembershipsDocument = {
  readonly communities: Memberships['communities'][number][];
  readonly projects: { projectId: number; role: 'team' | 'mentor' }[];
  readonly circles: { circleId: number }[];
};
const isMembershipTable = (table: DirectoryTable): boolean => MEMBERSHIP_PARTS.some(([, t]) => t === table);

/**
 * One table per record kind: its integer key and lookup columns, the whole record as JSON. The
 * lookup indexes serve the queries only (the projection writes by primary key), so a bulk load
 * builds them at its end.
 */
function createTables(read: SqliteReadDb): void {
  for (const [table, spec] of Object.entries(DIRECTORY_TABLES) as [
    DirectoryTable,
    (typeof DIRECTORY_TABLES)[DirectoryTable],
  ][]) {
    const name = tableName(table);
    const columns = spec.columns.map((c) => `${snake(c)} integer not null`).join(', ');
    read.db.exec(`create table if not exists ${name} (
      ${columns},
      record text not null,
      position integer not null,
      removed integer not null default 0,
      primary key (${keyColumns(table)})
    ) strict`);
    if ('lookup' in spec) {
      read.createIndexes(
        `create index if not exists ${name}_by_${snake(spec.lookup)} on ${name} (${snake(spec.lookup)}) where removed = 0`,
      );
    }
  }
}

type Statements = {
  readonly put: Database.Statement;
  readonly remove: Database.Statement;
  readonly get: Database.Statement;
};

/**
 * The embedded directory read model. Removals keep a tombstone, so an older upsert replayed cannot resurrect
 * a record.
 */
export class SqliteDirectoryStore implements DirectoryStore {
  readonly projectionStore: ProjectionStore;
  private readonly statements: Record<DirectoryTable, Statements>;
  private readonly linksOfProject;
  private readonly linkOf;
  private readonly documents;

  constructor(private readonly read: SqliteReadDb) {
    const db = read.db;
    createTables(read);
    const documentsExisted = db
      .prepare<[string], number>("select count(*) from sqlite_master where type = 'table' and name = ?")
      .pluck()
      .get(MEMBERSHIPS_TABLE);
    db.exec(
      `create table if not exists ${MEMBERSHIPS_TABLE} (user_id integer primary key, record text not null) strict`,
    );
    // The documents are derived: a reset empties them with the tables, the digest leaves them out.
    const projectionStore = sqliteProjectionStore(
      read,
      Object.keys(DIRECTORY_TABLES).map((t) => tableName(t as DirectoryTable)),
    );
    this.projectionStore = {
      ...projectionStore,
      reset: (projection) =>
        projectionStore.reset(projection).then(() => {
          db.exec(`delete from ${MEMBERSHIPS_TABLE}`);
        }),
    };
    this.statements = Object.fromEntries(
      (Object.keys(DIRECTORY_TABLES) as DirectoryTable[]).map((table) => {
        const spec = DIRECTORY_TABLES[table];
        const name = tableName(table);
        const cols = spec.columns.map(snake);
        const keyCols = spec.key.map(snake);
        const keyMatch = keyCols.map((c) => `${c} = ?`).join(' and ');
        // Parameters in the order `write` passes them: the columns, then record, position, removed.
        const guarded = (set: string) =>
          `insert into ${name} (${cols.join(', ')}, record, position, removed) values (${cols.map(() => '?').join(', ')}, ?, ?, ?)
           on conflict (${keyCols.join(', ')}) do update set ${set} where excluded.position > ${name}.position`;
        return [
          table,
          {
            put: db.prepare(
              guarded(
                `${cols.map((c) => `${c} = excluded.${c}`).join(', ')}, record = excluded.record, position = excluded.position, removed = 0`,
              ),
            ),
            remove: db.prepare(guarded('position = excluded.position, removed = 1')),
            get: db.prepare(`select record from ${name} where ${keyMatch} and removed = 0`),
          },
        ];
      }),
    ) as Record<DirectoryTable, Statements>;
    // In key order, as the MongoDB adapter answers: both adapters list memberships alike.
    const lookup = (table: DirectoryTable, column: string) =>
      db.prepare<[number], Row>(
        `select record from ${tableName(table)} where ${snake(column)} = ? and removed = 0 order by ${keyColumns(table)}`,
      );
    this.linksOfProject = lookup('communityProjects', 'projectId');
    this.linkOf = db.prepare<[number, number], Row>(
      `select record from ${tableName('communityProjects')} where project_id = ? and community_id = ? and removed = 0 order by community_project_id limit 1`,
    );
    this.documents = {
      get: db.prepare<[number], string>(`select record from ${MEMBERSHIPS_TABLE} where user_id = ?`).pluck(),
      put: db.prepare<[number, string]>(
        `insert into ${MEMBERSHIPS_TABLE} (user_id, record) values (?, ?) on conflict (user_id) do update set record = excluded.record`,
      ),
      remove: db.prepare<[number]>(`delete from ${MEMBERSHIPS_TABLE} where user_id = ?`),
      partOf: Object.fromEntries(
        MEMBERSHIP_PARTS.map(([part, table]) => [
          part,
          db
            .prepare<[number], string>(
              `select record from ${tableName(table)} where user_id = ? and removed = 0 order by ${keyColumns(table)}`,
            )
            .pluck(),
        ]),
      ) as Record<MembershipPart, Database.Statement<[number], string>>,
    };
    // A generation being loaded gets every document once, when its rows are all in (and before
    // the lookup indexes are built, which the whole-table read does not need); a database made
    // before the documents existed gets them now.
    if (read.bulkLoading) read.whenLoaded(() => this.writeEveryDocument());
    else if (!documentsExisted) db.transaction(() => this.writeEveryDocument())();
  }

  /** The text of a caller's memberships document, from its parts' records in key order. */
  private static documentText(parts: Record<MembershipPart, readonly string[]>): string {
    return `{"communities":[${parts.communities.join(',')}],"projects":[${parts.projects.join(',')}],"circles":[${parts.circles.join(',')}]}`;
  }

  /** After a change to one of `userId`'s memberships, in its transaction: their document as the tables now say. */
  private writeDocument(userId: number): void {
    const parts = {
      communities: this.documents.partOf.communities.all(userId),
      projects: this.documents.partOf.projects.all(userId),
      circles: this.documents.partOf.circles.all(userId),
    };
    if (parts.communities.length + parts.projects.length + parts.circles.length === 0)
      this.documents.remove.run(userId);
    else this.documents.put.run(userId, SqliteDirectoryStore.documentText(parts));
  }

  /** Every user's document, from one ordered read of each membership table. */
  private writeEveryDocument(): void {
    const db = this.read.db;
    const documents = new Map<number, Record<MembershipPart, string[]>>();
    for (const [part, table] of MEMBERSHIP_PARTS) {
      const rows = db
        .prepare<[], [number, string]>(
          `select user_id, record from ${tableName(table)} where removed = 0 order by user_id, ${keyColumns(table)}`,
        )
        .raw(true)
        .iterate();
      for (const [userId, record] of rows) {
        let document = documents.get(userId);
        if (!document) documents.set(userId, (document = { communities: [], projects: [], circles: [] }));
        document[part].push(record);
      }
    }
    db.exec(`delete from ${MEMBERSHIPS_TABLE}`);
    for (const [userId, parts] of documents) this.documents.put.run(userId, SqliteDirectoryStore.documentText(parts));
  }

  /** `key`: the record's key values, in the order of its table's key columns. */
  private get<T>(table: DirectoryTable, ...key: number[]): T | null {
    const row = this.statements[table].get.get(...key) as Row | undefined;
    return row ? (JSON.parse(row.record) as T) : null;
  }

  private many<T>(table: DirectoryTable, ids: readonly number[]): T[] {
    return [...new Set(ids)].flatMap((id) => {
      const found = this.get<T>(table, id);
      return found ? [found] : [];
    });
  }

  /** The records of `ids` (in any order, repeats allowed) by id, as facts. */
  private byId<R, F>(
    table: DirectoryTable,
    ids: readonly number[],
    entry: (record: R) => readonly [number, F],
  ): Map<number, F> {
    return new Map(this.many<R>(table, ids).map(entry));
  }

  async user(userId: number): Promise<UserRecord | null> {
    return this.get<UserRecord>('users', userId);
  }

  async community(communityId: number): Promise<CommunityFacts | null> {
    const record = this.get<CommunityFacts>('communities', communityId);
    return record && communityFactsOf(record);
  }

  async communities(communityIds: readonly number[]): Promise<Map<number, CommunityFacts>> {
    return this.byId('communities', communityIds, (c: CommunityFacts) => [c.communityId, communityFactsOf(c)]);
  }

  async project(projectId: number): Promise<ProjectFacts | null> {
    const record = this.get<Omit<ProjectFacts, 'communityIds'>>('projects', projectId);
    if (!record) return null;
    const links = this.linksOfProject.all(projectId).map((r) => JSON.parse(r.record) as CommunityProjectRecord);
    return projectFactsOf(record, links);
  }

  async communityProject(communityProjectId: number): Promise<CommunityProjectRecord | null> {
    return this.get<CommunityProjectRecord>('communityProjects', communityProjectId);
  }

  async communityProjectOf(projectId: number, communityId: number): Promise<CommunityProjectRecord | null> {
    const row = this.linkOf.get(projectId, communityId);
    return row ? (JSON.parse(row.record) as CommunityProjectRecord) : null;
  }

  async paragraph(paragraphId: number): Promise<ParagraphRecord | null> {
    return this.get<ParagraphRecord>('paragraphs', paragraphId);
  }

  async circles(circleIds: readonly number[]): Promise<Map<number, CircleFacts>> {
    return this.byId('circles', circleIds, (c: CircleFacts) => [c.circleId, circleFactsOf(c)]);
  }

  async memberships(userId: number): Promise<Memberships> {
    return this.readMemberships(userId);
  }

  /**
   * One primary-key read of the caller's document (kept by `write` in the transaction of every
   * membership change) instead of a lookup in each of the three membership tables: a list request
   * reads its caller's memberships whenever DirectoryReader has not kept their viewer. No
   * document: no memberships.
   */
  private readMemberships(userId: number): Memberships {
    const text = this.documents.get.get(userId);
    const document: MembershipsDocument = text
      ? (JSON.parse(text) as MembershipsDocument)
      : { communities: [], projects: [], circles: [] };
    return membershipsOf(document.communities, document.projects, document.circles, (projectId) =>
      this.get<{ teamCircleId: number; mentorsCircleId: number }>('projects', projectId),
    );
  }

  version(): string | null {
    return this.read.feed.version(readScope.directory);
  }

  async write(change: DirectoryChange, position: bigint): Promise<void> {
    const columns = DIRECTORY_TABLES[change.table].columns.map((column) => columnValue(change.record, column));
    const record = JSON.stringify(change.op === 'put' ? change.record : {});
    const { changes } = this.statements[change.table][change.op].run(
      ...columns,
      record,
      position,
      change.op === 'remove' ? 1 : 0,
    );
    if (changes === 0) return;
    if (isMembershipTable(change.table) && !this.read.bulkLoading)
      this.writeDocument(columnValue(change.record, 'userId'));
    this.read.feed.touch(readScope.directory);
  }
}

/** A removal names only the key: the other integer columns of its tombstone are 0. */
function columnValue(record: DirectoryRecord, column: string): number {
  const value = record[column];
  return typeof value === 'number' ? value : 0;
}

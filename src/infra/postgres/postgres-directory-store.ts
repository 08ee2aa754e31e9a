import type { CircleFacts, CommunityFacts, ProjectFacts } from '../../directory/viewer';
import type { DirectoryChange, DirectoryRecord, DirectoryTable, Memberships } from '../../directory/directory-records';
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
import type { ProjectionStore } from '../../projections/read-model-projection';
import { readScope } from '../../projections/read-scopes';
import { postgresProjectionStore, type PostgresReadDb } from './postgres-read-db';

/** Every name below is derived from DIRECTORY_TABLES; checked anyway, since it is spliced into SQL. */
function identifier(name: string): string {
  if (!/^[a-z_]+$/.test(name)) throw new Error(`not a directory identifier: ${name}`);
  return name;
}

const snake = (field: string) => identifier(field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`));
const tableName = (table: DirectoryTable) => identifier(`dir_${snake(table)}`);
const TABLES = Object.keys(DIRECTORY_TABLES) as DirectoryTable[];

/** A table's key columns, in order: its primary key, and the order its records are listed in. */
const keyColumns = (table: DirectoryTable): string[] => DIRECTORY_TABLES[table].key.map(snake);

/**
 * One table per record kind: its integer key and lookup columns, then the position, the
 * tombstone flag and the whole record. The record is `json`, not `jsonb`, so it reads back with
 * its fields in the order the event gave them, as on the other adapters; it comes last because
 * `json` has no ordering and the digest's scan orders by the first two columns. Lookups are
 * partial on live records, so tombstones cost nothing; the communityProjects one also carries
 * community_id for `communityProjectOf`, as on MongoDB.
 */
function tableDdl(table: DirectoryTable): string[] {
  const spec = DIRECTORY_TABLES[table];
  const name = tableName(table);
  const ddl = [
    `create table if not exists ${name} (
      ${spec.columns.map((c) => `${snake(c)} bigint not null`).join(', ')},
      position bigint not null,
      removed boolean not null default false,
      record json not null,
      primary key (${keyColumns(table).join(', ')})
    )`,
  ];
  if ('lookup' in spec) {
    const lookup = snake(spec.lookup);
    const rest = keyColumns(table).filter((c) => c !== lookup);
    const columns = table === 'communityProjects' ? [lookup, snake('communityId'), ...rest] : [lookup, ...rest];
    ddl.push(`create index if not exists ${name}_by_${lookup} on ${name} (${columns.join(', ')}) where not removed`);
  }
  return ddl;
}

type Statements = { readonly put: string; readonly remove: string; readonly get: string; readonly many: string };

/** Parameters in the order `write` passes them: the columns, then record, position. */
function statementsOf(table: DirectoryTable): Statements {
  const name = tableName(table);
  const cols = DIRECTORY_TABLES[table].columns.map(snake);
  const keys = keyColumns(table);
  const guarded = (removed: boolean, set: string) =>
    `insert into ${name} as t (${cols.join(', ')}, record, position, removed)
     values (${cols.map((_, i) => `$${i + 1}`).join(', ')}, $${cols.length + 1}::json, $${cols.length + 2}, ${removed})
     on conflict (${keys.join(', ')}) do update set ${set} where excluded.position > t.position`;
  const [first] = keys;
  return {
    put: guarded(
      false,
      `${cols.map((c) => `${c} = excluded.${c}`).join(', ')}, record = excluded.record, position = excluded.position, removed = false`,
    ),
    remove: guarded(true, 'position = excluded.position, removed = true'),
    get: `select record from ${name} where ${keys.map((c, i) => `${c} = $${i + 1}`).join(' and ')} and not removed`,
    // Only single-key tables are asked for several records at once.
    many: `select record from ${name} where ${first} = any($1::bigint[]) and not removed`,
  };
}

const STATEMENTS = Object.fromEntries(TABLES.map((table) => [table, statementsOf(table)])) as Record<
  DirectoryTable,
  Statements
>;

/** A project with its live community links in key order, in one round trip. */
const PROJECT = `select p.record,
    (select coalesce(json_agg(l.record order by l.community_project_id), '[]'::json)
     from ${tableName('communityProjects')} l where l.project_id = p.project_id and not l.removed) as links
  from ${tableName('projects')} p where p.project_id = $1 and not p.removed`;

const COMMUNITY_PROJECT_OF = `select record from ${tableName('communityProjects')}
  where project_id = $1 and community_id = $2 and not removed order by community_project_id limit 1`;

/**
 * A user's membership records, each kind in its key order (as the other adapters list them), and
 * the built-in circles of their projects, in one round trip.
 */
const MEMBERSHIPS = `select
    (select coalesce(json_agg(record order by community_id), '[]'::json)
     from ${tableName('communityMembers')} where user_id = $1 and not removed) as communities,
    (select coalesce(json_agg(json_build_object('member', m.record, 'project', p.record) order by m.project_id), '[]'::json)
     from ${tableName('projectMembers')} m
       left join ${tableName('projects')} p on p.project_id = m.project_id and not p.removed
     where m.user_id = $1 and not m.removed) as projects,
    (select coalesce(json_agg(record order by circle_id), '[]'::json)
     from ${tableName('circleMembers')} where user_id = $1 and not removed) as circles`;

type ProjectMember = { projectId: number; role: 'team' | 'mentor' };
type BuiltInCircles = { teamCircleId: number; mentorsCircleId: number };
type MembershipsRow = {
  communities: Memberships['communities'][number][];
  projects: { member: ProjectMember; project: BuiltInCircles | null }[];
  circles: { circleId: number }[];
};

/**
 * The directory read model on PostgreSQL: the same tables and answers as SqliteDirectoryStore,
 * each from a primary-key or partial-index lookup. Removals keep a tombstone, so an older upsert
 * replayed cannot resurrect a record. Every write that changes a record says so in the change feed
 * (PostgresChangeFeed), which moves `version()` in every process serving these read models.
 */
export class PostgresDirectoryStore implements DirectoryStore {
  readonly projectionStore: ProjectionStore;

  private constructor(private readonly read: PostgresReadDb) {
    this.projectionStore = postgresProjectionStore(read, TABLES.map(tableName));
  }

  static async open(read: PostgresReadDb): Promise<PostgresDirectoryStore> {
    await read.ensure(TABLES.flatMap(tableDdl).join(';\n'));
    return new PostgresDirectoryStore(read);
  }

  /** `key`: the record's key values, in the order of its table's key columns. */
  private async get<T>(table: DirectoryTable, ...key: number[]): Promise<T | null> {
    const { rows } = await this.read.query<{ record: T }>(STATEMENTS[table].get, key);
    return rows[0]?.record ?? null;
  }

  /** In the order of `ids`, as the other adapters answer, each id once. */
  private async many<T>(table: DirectoryTable, field: string, ids: readonly number[]): Promise<T[]> {
    if (ids.length === 0) return [];
    const unique = [...new Set(ids)];
    const { rows } = await this.read.query<{ record: T }>(STATEMENTS[table].many, [unique]);
    const byId = new Map(rows.map((row) => [(row.record as Record<string, unknown>)[field] as number, row.record]));
    return unique.flatMap((id) => {
      const found = byId.get(id);
      return found === undefined ? [] : [found];
    });
  }

  async user(userId: number): Promise<UserRecord | null> {
    return this.get<UserRecord>('users', userId);
  }

  async community(communityId: number): Promise<CommunityFacts | null> {
    const record = await this.get<CommunityFacts>('communities', communityId);
    return record && communityFactsOf(record);
  }

  async communities(communityIds: readonly number[]): Promise<Map<number, CommunityFacts>> {
    const found = await this.many<CommunityFacts>('communities', 'communityId', communityIds);
    return new Map(found.map((c) => [c.communityId, communityFactsOf(c)]));
  }

  async project(projectId: number): Promise<ProjectFacts | null> {
    const { rows } = await this.read.query<{
      record: Omit<ProjectFacts, 'communityIds'>;
      links: CommunityProjectRecord[];
    }>(PROJECT, [projectId]);
    const row = rows[0];
    return row ? projectFactsOf(row.record, row.links) : null;
  }

  async communityProject(communityProjectId: number): Promise<CommunityProjectRecord | null> {
    return this.get<CommunityProjectRecord>('communityProjects', communityProjectId);
  }

  async communityProjectOf(projectId: number, communityId: number): Promise<CommunityProjectRecord | null> {
    const { rows } = await this.read.query<{ record: CommunityProjectRecord }>(COMMUNITY_PROJECT_OF, [
      projectId,
      communityId,
    ]);
    return rows[0]?.record ?? null;
  }

  async paragraph(paragraphId: number): Promise<ParagraphRecord | null> {
    return this.get<ParagraphRecord>('paragraphs', paragraphId);
  }

  async circles(circleIds: readonly number[]): Promise<Map<number, CircleFacts>> {
    const found = await this.many<CircleFacts>('circles', 'circleId', circleIds);
    return new Map(found.map((c) => [c.circleId, circleFactsOf(c)]));
  }

  async memberships(userId: number): Promise<Memberships> {
    const { rows } = await this.read.query<MembershipsRow>(MEMBERSHIPS, [userId]);
    const { communities, projects, circles } = rows[0] ?? { communities: [], projects: [], circles: [] };
    const projectById = new Map(projects.map((p) => [p.member.projectId, p.project]));
    return membershipsOf(
      communities,
      projects.map((p) => p.member),
      circles,
      (projectId) => projectById.get(projectId),
    );
  }

  version(): string | null {
    return this.read.version(readScope.directory);
  }

  async write(change: DirectoryChange, position: bigint): Promise<void> {
    const columns = DIRECTORY_TABLES[change.table].columns.map((column) => columnValue(change.record, column));
    const record = JSON.stringify(change.op === 'put' ? change.record : {});
    // The batch's transaction, or one of its own: the change and its feed row commit together.
    await this.read.transaction(async () => {
      const { rowCount } = await this.read.query(STATEMENTS[change.table][change.op], [
        ...columns,
        record,
        position.toString(),
      ]);
      if ((rowCount ?? 0) > 0) this.read.touch(readScope.directory);
    });
  }
}

/** A removal names only the key: the other integer columns of its tombstone are 0. */
function columnValue(record: DirectoryRecord, column: string): number {
  const value = record[column];
  return typeof value === 'number' ? value : 0;
}

import type { Collection, Document } from 'mongodb';
import type { CircleFacts, CommunityFacts, ProjectFacts } from '../../directory/viewer';
import type { DirectoryChange, DirectoryTable, Memberships } from '../../directory/directory-records';
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
import {
  COMMUNITY_PROJECT_OF_SORT,
  DIRECTORY_COLLECTIONS,
  RECORD_PROJECTION,
  communityProjectOfFilter,
  directoryCollection,
  directoryIndexes,
  directoryWrite,
  liveById,
  liveByIds,
  lookupFilter,
  lookupSort,
} from './mongo-directory-queries';
import { applyGuardedUpsert } from './mongo-guarded-write';
import { mongoProjectionStore, type MongoReadDb } from './mongo-read-db';

/**
 * The production directory read model: the same answers as SqliteDirectoryStore, each from one
 * _id or indexed lookup. Writes are guarded by event position, and join the batch's transaction
 * where the deployment has them.
 */
export class MongoDirectoryStore implements DirectoryStore {
  readonly projectionStore: ProjectionStore;

  private constructor(private readonly read: MongoReadDb) {
    this.projectionStore = mongoProjectionStore(read, DIRECTORY_COLLECTIONS);
  }

  static async open(read: MongoReadDb): Promise<MongoDirectoryStore> {
    for (const table of Object.keys(DIRECTORY_TABLES) as DirectoryTable[]) {
      const indexes = directoryIndexes(table);
      if (indexes.length > 0) await read.db.collection(directoryCollection(table)).createIndexes(indexes);
    }
    return new MongoDirectoryStore(read);
  }

  private collection(table: DirectoryTable): Collection<Document> {
    return this.read.db.collection(directoryCollection(table));
  }

  private async get<T>(table: DirectoryTable, id: number | string): Promise<T | null> {
    return (await this.collection(table).findOne(liveById(id), {
      projection: RECORD_PROJECTION,
      ...this.read.readOptions(),
    })) as T | null;
  }

  /** In the order of `ids`, as the SQLite adapter answers, each id once. */
  private async many<T>(table: DirectoryTable, field: string, ids: readonly number[]): Promise<T[]> {
    if (ids.length === 0) return [];
    const found = await this.collection(table)
      .find(liveByIds(ids), { projection: RECORD_PROJECTION, ...this.read.readOptions() })
      .toArray();
    const byId = new Map(found.map((doc) => [doc[field] as number, doc as T]));
    return [...new Set(ids)].flatMap((id) => (byId.has(id) ? [byId.get(id) as T] : []));
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
    const record = await this.get<Omit<ProjectFacts, 'communityIds'>>('projects', projectId);
    if (!record) return null;
    const links = (await this.collection('communityProjects')
      .find(lookupFilter('communityProjects', projectId), { projection: RECORD_PROJECTION, ...this.read.readOptions() })
      .toArray()) as unknown as CommunityProjectRecord[];
    return projectFactsOf(record, links);
  }

  async communityProject(communityProjectId: number): Promise<CommunityProjectRecord | null> {
    return this.get<CommunityProjectRecord>('communityProjects', communityProjectId);
  }

  async communityProjectOf(projectId: number, communityId: number): Promise<CommunityProjectRecord | null> {
    const [found] = await this.collection('communityProjects')
      .find(communityProjectOfFilter(projectId, communityId), {
        projection: RECORD_PROJECTION,
        ...this.read.readOptions(),
      })
      .sort(COMMUNITY_PROJECT_OF_SORT)
      .limit(1)
      .toArray();
    return (found as CommunityProjectRecord | undefined) ?? null;
  }

  async paragraph(paragraphId: number): Promise<ParagraphRecord | null> {
    return this.get<ParagraphRecord>('paragraphs', paragraphId);
  }

  async circles(circleIds: readonly number[]): Promise<Map<number, CircleFacts>> {
    const found = await this.many<CircleFacts>('circles', 'circleId', circleIds);
    return new Map(found.map((c) => [c.circleId, circleFactsOf(c)]));
  }

  async memberships(userId: number): Promise<Memberships> {
    const lookup = <T>(table: 'communityMembers' | 'projectMembers' | 'circleMembers') =>
      this.collection(table)
        .find(lookupFilter(table, userId), { projection: RECORD_PROJECTION, ...this.read.readOptions() })
        .sort(lookupSort(table))
        .toArray() as Promise<unknown[]> as Promise<T[]>;
    const [communities, projectRows, circles] = await Promise.all([
      lookup<Memberships['communities'][number]>('communityMembers'),
      lookup<{ projectId: number; role: 'team' | 'mentor' }>('projectMembers'),
      lookup<{ circleId: number }>('circleMembers'),
    ]);
    const projects = await this.many<{ projectId: number; teamCircleId: number; mentorsCircleId: number }>(
      'projects',
      'projectId',
      projectRows.map((p) => p.projectId),
    );
    const projectById = new Map(projects.map((p) => [p.projectId, p]));
    return membershipsOf(communities, projectRows, circles, (projectId) => projectById.get(projectId));
  }

  async write(change: DirectoryChange, position: bigint): Promise<void> {
    await applyGuardedUpsert(
      this.collection(change.table),
      directoryWrite(change, position),
      this.read.sessionOption().session,
    );
  }
}

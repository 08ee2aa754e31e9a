import type { Collection, Document } from 'mongodb';
import type { Resource } from '../../resources/resource';
import type { ProjectionStore } from '../../projections/read-model-projection';
import type {
  ProjectLink,
  ResourceViewRecord,
  ResourceViewStore,
  StoredResource,
  ViewPage,
  ViewPageQuery,
} from '../../resources/resource-view-store';
import { applyGuardedUpsert, positionOf } from './mongo-guarded-write';
import { mongoProjectionStore, type MongoReadDb } from './mongo-read-db';
import {
  PROJECT_COMMUNITIES_SORT,
  PROJECT_LINKS,
  RESOURCES,
  RESOURCES_OF_PROJECT_SORT,
  RESOURCE_COLLECTIONS,
  RESOURCE_INDEXES,
  RESOURCE_VIEWS,
  VIEWS_OF_RESOURCE_SORT,
  VIEW_PROJECTION,
  admittedKeys,
  liveResourcesOfProjectFilter,
  pageFilter,
  pageSort,
  projectCommunitiesFilter,
  projectLinkWrite,
  resourceWrite,
  staleViewsFilter,
  viewFilter,
  viewUpsert,
  viewsOfResourceFilter,
} from './mongo-resource-view-queries';

type ResourceDoc = { _id: number; projectId: number; position: unknown; resource: Resource | null };
type LinkDoc = { _id: number; communityId: number; projectId: number; position: unknown; removed: boolean };

/**
 * The production resources read model: the same answers as SqliteResourceViewStore. A list is
 * one indexed page query plus an indexed count; the caller's admitted audience keys come from a
 * distinct scan of the view's audience index, which stays small however large the view.
 */
export class MongoResourceViewStore implements ResourceViewStore {
  readonly projectionStore: ProjectionStore;
  private readonly resources: Collection<ResourceDoc>;
  private readonly links: Collection<LinkDoc>;
  private readonly views: Collection<Document>;

  private constructor(private readonly read: MongoReadDb) {
    this.projectionStore = mongoProjectionStore(read, RESOURCE_COLLECTIONS);
    this.resources = read.db.collection<ResourceDoc>(RESOURCES);
    this.links = read.db.collection<LinkDoc>(PROJECT_LINKS);
    this.views = read.db.collection(RESOURCE_VIEWS);
  }

  static async open(read: MongoReadDb): Promise<MongoResourceViewStore> {
    for (const [name, indexes] of Object.entries(RESOURCE_INDEXES))
      await read.db.collection(name).createIndexes(indexes);
    return new MongoResourceViewStore(read);
  }

  async resource(resourceId: number): Promise<Resource | null> {
    return (await this.resources.findOne({ _id: resourceId }, this.read.readOptions()))?.resource ?? null;
  }

  async viewsOfResource(resourceId: number): Promise<ResourceViewRecord[]> {
    const docs = await this.views
      .find(viewsOfResourceFilter(resourceId), { projection: VIEW_PROJECTION, ...this.read.readOptions() })
      .sort(VIEWS_OF_RESOURCE_SORT)
      .toArray();
    return docs as unknown as ResourceViewRecord[];
  }

  async page(q: ViewPageQuery): Promise<ViewPage> {
    let keys: string[] = [];
    if (q.audience.kind !== 'everything') {
      keys = admittedKeys(q, await this.views.distinct('audienceKey', viewFilter(q), this.read.readOptions()));
      if (keys.length === 0) return { count: 0, list: [] };
    }
    const filter = pageFilter(q, keys);
    const count = await this.views.countDocuments(filter, this.read.readOptions());
    // take 0 must not reach the server: limit(0) there means "no limit".
    if (q.take === 0 || count === 0) return { count, list: [] };
    const docs = await this.views
      .find(filter, { projection: VIEW_PROJECTION, ...this.read.readOptions() })
      .sort(pageSort(q.orderBy))
      .skip(q.skip)
      .limit(q.take)
      .toArray();
    return { count, list: docs as unknown as ResourceViewRecord[] };
  }

  async stored(resourceId: number): Promise<StoredResource | null> {
    const doc = await this.resources.findOne({ _id: resourceId }, this.read.readOptions());
    return doc ? { resource: doc.resource ?? null, position: positionOf(doc.position) } : null;
  }

  /**
   * Without a transaction the order of the writes is what makes a crash harmless: the views are
   * written first (a deletion removes them first) and the resource document, which carries the
   * position, last. The projection decides whether to apply an event by that position, so after
   * a crash between the two the event is applied again and rewrites the views. Written the other
   * way round, the replay would find the position already stored and skip the lost views.
   * An event older than the stored resource changes nothing: its views would disagree with it.
   */
  async putResource(
    resourceId: number,
    resource: Resource | null,
    position: bigint,
    views: readonly ResourceViewRecord[],
  ): Promise<void> {
    const current = await this.resources.findOne(
      { _id: resourceId },
      { projection: { position: 1 }, ...this.read.readOptions() },
    );
    if (current && positionOf(current.position) > position) return;
    await this.replaceViews(resourceId, views);
    await applyGuardedUpsert(
      this.resources as unknown as Collection<Document>,
      resourceWrite(resourceId, resource, position),
      this.read.sessionOption().session,
    );
  }

  /**
   * Upserts the new views before deleting the ones that are gone, so that a reader never finds a
   * resource missing from a view it stays in. Idempotent: replaying it writes the same documents.
   */
  async replaceViews(resourceId: number, views: readonly ResourceViewRecord[]): Promise<void> {
    const keep: string[] = [];
    for (const view of views) {
      const { filter, replacement } = viewUpsert(view);
      await this.views.replaceOne(filter, replacement, { upsert: true, ...this.read.sessionOption() });
      keep.push(filter._id as string);
    }
    await this.views.deleteMany(staleViewsFilter(resourceId, keep), this.read.sessionOption());
  }

  async resourcesOfProject(projectId: number): Promise<Resource[]> {
    const docs = await this.resources
      .find(liveResourcesOfProjectFilter(projectId), this.read.readOptions())
      .sort(RESOURCES_OF_PROJECT_SORT)
      .toArray();
    return docs.flatMap((doc) => (doc.resource ? [doc.resource] : []));
  }

  async projectLink(
    communityProjectId: number,
  ): Promise<(ProjectLink & { position: bigint; removed: boolean }) | null> {
    const doc = await this.links.findOne({ _id: communityProjectId }, this.read.readOptions());
    if (!doc) return null;
    return {
      communityProjectId: doc._id,
      communityId: doc.communityId,
      projectId: doc.projectId,
      position: positionOf(doc.position),
      removed: doc.removed,
    };
  }

  async writeProjectLink(link: ProjectLink, removed: boolean, position: bigint): Promise<void> {
    await applyGuardedUpsert(
      this.links as unknown as Collection<Document>,
      projectLinkWrite(link, removed, position),
      this.read.sessionOption().session,
    );
  }

  async projectCommunities(projectId: number): Promise<number[]> {
    const docs = await this.links
      .find(projectCommunitiesFilter(projectId), { projection: { _id: 0, communityId: 1 }, ...this.read.readOptions() })
      .sort(PROJECT_COMMUNITIES_SORT)
      .toArray();
    return [...new Set(docs.map((d) => d.communityId))];
  }
}

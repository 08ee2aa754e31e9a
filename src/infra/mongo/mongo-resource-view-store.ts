import type { Collection, Document } from 'mongodb';
import type { Resource } from '../../resources/resource';
import type { ProjectionStore } from '../../projections/read-model-projection';
import {
  readSideBySide,
  resourceWriteAt,
  type ProjectLink,
  type ResourceViewRecord,
  type ResourceViewStore,
  type ResourceWithViews,
  type StoredResource,
  type ViewPage,
  type ViewPageQuery,
} from '../../resources/resource-view-store';
import { applyGuardedUpsert, positionOf } from './mongo-guarded-write';
import { mongoProjectionStore, type MongoReadDb } from './mongo-read-db';
import {
  COUNTED_VIEW_PROJECTION,
  COUNTS_BUILT,
  READ_MODEL_UPGRADES,
  RESOURCE_VIEW_COUNTS,
  type ViewCountDocument,
  countWrite,
  countsOf,
  emptyCountFilter,
} from './mongo-resource-view-counts';
import { countChanges, countOf, type CountedView } from '../resource-view-counts';
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
 * The production resources read model: the same answers as SqliteResourceViewStore. A list reads
 * its view's counters (one small indexed query: which audience sets the view holds, and how many
 * views each) and then one indexed page; only a free-text or tag search counts its matches, as
 * on SQLite.
 */
export class MongoResourceViewStore implements ResourceViewStore {
  readonly projectionStore: ProjectionStore;
  private readonly resources: Collection<ResourceDoc>;
  private readonly links: Collection<LinkDoc>;
  private readonly views: Collection<Document>;
  private readonly counts: Collection<ViewCountDocument>;

  private constructor(private readonly read: MongoReadDb) {
    this.projectionStore = mongoProjectionStore(read, RESOURCE_COLLECTIONS);
    this.resources = read.db.collection<ResourceDoc>(RESOURCES);
    this.links = read.db.collection<LinkDoc>(PROJECT_LINKS);
    this.views = read.db.collection(RESOURCE_VIEWS);
    this.counts = read.db.collection<ViewCountDocument>(RESOURCE_VIEW_COUNTS);
  }

  static async open(read: MongoReadDb): Promise<MongoResourceViewStore> {
    for (const [name, indexes] of Object.entries(RESOURCE_INDEXES))
      await read.db.collection(name).createIndexes(indexes);
    const store = new MongoResourceViewStore(read);
    await store.countOnce();
    return store;
  }

  /**
   * A read model written before it kept counters gets them once, from its views, in one
   * transaction with the mark that says so: a projector committing meanwhile conflicts with it
   * and is retried, so no view is counted twice or missed.
   */
  private async countOnce(): Promise<void> {
    const upgrades = this.read.db.collection<{ _id: string }>(READ_MODEL_UPGRADES);
    const build = async () => {
      if (await upgrades.findOne(COUNTS_BUILT, this.read.readOptions())) return;
      const views = (await this.views
        .find({}, { projection: COUNTED_VIEW_PROJECTION, ...this.read.readOptions() })
        .toArray()) as unknown as CountedView[];
      await this.counts.deleteMany({}, this.read.sessionOption());
      for (const { _id, ...count } of countsOf(views))
        await this.counts.replaceOne({ _id }, count, { upsert: true, ...this.read.sessionOption() });
      await upgrades.replaceOne(COUNTS_BUILT, COUNTS_BUILT, { upsert: true, ...this.read.sessionOption() });
    };
    await (this.read.transactions ? this.read.transaction(build) : build());
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

  resourceWithViews(resourceId: number): Promise<ResourceWithViews | null> {
    return readSideBySide(this, resourceId);
  }

  async page(q: ViewPageQuery): Promise<ViewPage> {
    const counts = await this.counts.find(viewFilter(q), this.read.readOptions()).toArray();
    const keys = admittedKeys(
      q,
      counts.map((c) => c.audienceKey),
    );
    if (q.audience.kind !== 'everything' && keys.length === 0) return { count: 0, list: [] };
    const searching = q.concept !== null || q.tags.length > 0;
    // The count is the whole list's, wherever a keyset page starts.
    const count = searching
      ? await this.views.countDocuments(pageFilter({ ...q, after: null }, keys), this.read.readOptions())
      : countOf(q, counts, keys);
    // take 0 must not reach the server: limit(0) there means "no limit".
    if (q.take === 0 || count === 0) return { count, list: [] };
    const docs = await this.views
      .find(pageFilter(q, keys), { projection: VIEW_PROJECTION, ...this.read.readOptions() })
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
    if (resourceWriteAt(current ? positionOf(current.position) : null, position) === 'nothing') return;
    await this.replaceViews(resourceId, views);
    await applyGuardedUpsert(
      this.resources as unknown as Collection<Document>,
      resourceWrite(resourceId, resource, position),
      this.read.sessionOption().session,
    );
  }

  /**
   * Upserts the new views before deleting the ones that are gone, so that a reader never finds a
   * resource missing from a view it stays in, and moves the counters by the difference between
   * the views found and the views written. Idempotent: replaying it writes the same documents and
   * moves no counter.
   */
  async replaceViews(resourceId: number, views: readonly ResourceViewRecord[]): Promise<void> {
    const before = (await this.views
      .find(viewsOfResourceFilter(resourceId), { projection: COUNTED_VIEW_PROJECTION, ...this.read.readOptions() })
      .toArray()) as unknown as CountedView[];
    const keep: string[] = [];
    for (const view of views) {
      const { filter, replacement } = viewUpsert(view);
      await this.views.replaceOne(filter, replacement, { upsert: true, ...this.read.sessionOption() });
      keep.push(filter._id as string);
    }
    await this.views.deleteMany(staleViewsFilter(resourceId, keep), this.read.sessionOption());
    const after = views.map((v) => ({ ...v, paragraph: v.paragraphId ?? 0 }));
    for (const [id, change] of countChanges(before, after)) {
      const { filter, update } = countWrite(id, change);
      await this.counts.updateOne(filter, update, { upsert: true, ...this.read.sessionOption() });
      if (change.by < 0) await this.counts.deleteOne(emptyCountFilter(id), this.read.sessionOption());
    }
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

import DataLoader from 'dataloader';
import type { Resource } from '../../resources/resource';
import { searchTermsOf } from '../../resources/resource-fields';
import type { ProjectionStore } from '../../projections/read-model-projection';
import {
  admittedKeys,
  type ProjectLink,
  type ResourceViewRecord,
  type ResourceViewStore,
  type ResourceWithViews,
  type StoredResource,
  type ViewPage,
  type ViewPageQuery,
} from '../../resources/resource-view-store';
import { readScope } from '../../projections/read-scopes';
import { postgresProjectionStore, type HeldWrites, type PostgresReadDb, type Statement } from './postgres-read-db';
import { ResourceBatch } from './postgres-resource-batch';
import { ResourceMirror } from './postgres-resource-mirror';
import { storedResourceOf, type ResourceTables } from './postgres-resource-rows';
import { PostgresViewIndex } from './postgres-view-index';
import type { IndexedView } from '../../resources/view-index';

const RESOURCES = 'res_resources';
const PROJECT_LINKS = 'res_project_links';
const VIEWS = 'res_views';

/** The read model's tables: a reset empties them all and the digest hashes them all. */
const TABLES: readonly string[] = [RESOURCES, PROJECT_LINKS, VIEWS];

/**
 * Documents are JSON texts, not jsonb nor json: jsonb refuses a \u0000 in a string and json a
 * lone surrogate's escape, both of which an event may carry and the other adapters store. The
 * search terms and tags are bytea (their UTF-8) for the same reason: a text value cannot hold
 * U+0000. Text keys are collated "C" so that strings compare by code point, as on MongoDB and
 * SQLite. Each table's first two columns are unique together: the digest scans in that order.
 */
const SCHEMA = `
  create table if not exists ${RESOURCES} (
    resource_id bigint primary key,
    project_id bigint not null,
    position bigint not null,
    resource text
  );
  create index if not exists ${RESOURCES}_by_project on ${RESOURCES} (project_id, resource_id)
    where resource is not null;

  create table if not exists ${PROJECT_LINKS} (
    community_project_id bigint primary key,
    community_id bigint not null,
    project_id bigint not null,
    position bigint not null,
    removed boolean not null
  );
  create index if not exists ${PROJECT_LINKS}_by_project on ${PROJECT_LINKS} (project_id, community_id)
    where not removed;

  create table if not exists ${VIEWS} (
    resource_id bigint not null,
    view_key text collate "C" not null,
    project_id bigint not null,
    paragraph bigint not null,
    post_date text collate "C" not null,
    audience_key text collate "C" not null,
    search bytea[] not null,
    tags bytea[] not null,
    doc text not null,
    primary key (resource_id, view_key)
  );
  create index if not exists ${VIEWS}_by_id on ${VIEWS} (view_key, project_id, resource_id);
  create index if not exists ${VIEWS}_by_recent on ${VIEWS} (view_key, project_id, post_date desc, resource_id desc);
  create index if not exists ${VIEWS}_by_audience_id on ${VIEWS} (view_key, project_id, audience_key, resource_id);
  create index if not exists ${VIEWS}_by_audience_recent
    on ${VIEWS} (view_key, project_id, audience_key, post_date desc, resource_id desc);
  create index if not exists ${VIEWS}_by_paragraph_audience
    on ${VIEWS} (view_key, project_id, paragraph, audience_key, resource_id);

  -- Per-audience counts of earlier releases: the view index counts now.
  drop table if exists res_view_counts;
`;

/** A free-text or tag search: filtered and counted in SQL; other lists are answered by the view index. */
const searching = (q: ViewPageQuery): boolean => q.concept !== null || q.tags.length > 0;

/**
 * The two list orders, each the order of an index. post_date is never null on any adapter (the
 * others declare it so too): no nulls clause is needed for the pages to agree.
 */
const PAGE_ORDER = {
  0: 'resource_id',
  1: 'post_date desc, resource_id desc',
} as const;

const VIEW_COLUMNS = 9;

const utf8 = (text: string): Buffer => Buffer.from(text, 'utf8');

/** The row of one view: what a list filters and sorts by, and the record itself. */
function viewRow(resourceId: number, view: ResourceViewRecord): unknown[] {
  return [
    resourceId,
    view.viewKey,
    view.projectId,
    view.paragraphId ?? 0,
    view.postDate,
    view.audienceKey,
    searchTermsOf(view).map(utf8),
    view.tagsLower.map(utf8),
    JSON.stringify(view),
  ];
}

const TABLE_NAMES: ResourceTables = {
  resources: RESOURCES,
  projectLinks: PROJECT_LINKS,
  views: VIEWS,
  viewColumns: VIEW_COLUMNS,
  viewRow,
};

/** How a page is answered: see `PostgresResourceViewStore.planOf`. */
type PagePlan =
  | { readonly by: 'view index'; readonly view: IndexedView }
  | { readonly by: 'query'; readonly admitsNone: boolean; readonly statements: { page: Statement; count: Statement } };

/**
 * A page's statement and its count's, given the admitted audience sets (ignored for 'everything'):
 * how a search is answered, and any list inside a transaction or a bulk load. The concept is matched against the
 * lower-cased terms' bytes: their UTF-8 holds a substring exactly where the text does.
 */
function pageStatements(q: ViewPageQuery, keys: readonly string[]): { page: Statement; count: Statement } {
  const where = ['view_key = $1', 'project_id = $2'];
  const values: unknown[] = [q.viewKey, q.projectId];
  const bind = (value: unknown): string => {
    values.push(value);
    return `$${values.length}`;
  };
  if (q.audience.kind !== 'everything') where.push(`audience_key = any(${bind([...keys])}::text[])`);
  if (q.paragraphId !== null) where.push(`paragraph = ${bind(q.paragraphId)}`);
  if (q.concept !== null)
    where.push(`exists (select from unnest(search) as term where position(${bind(utf8(q.concept))} in term) > 0)`);
  if (q.tags.length > 0) where.push(`tags && ${bind(q.tags.map(utf8))}::bytea[]`);
  const filter = where.join(' and ');
  const count = { text: `select count(*) as n from ${VIEWS} where ${filter}`, values: [...values] };
  // The count is the whole list's; only the page starts after the key (isAfter in resource-view-store.ts).
  if (q.after)
    where.push(
      q.orderBy === 0
        ? `resource_id > ${bind(q.after.resourceId)}`
        : `(post_date, resource_id) < (${bind(q.after.postDate)}, ${bind(q.after.resourceId)})`,
    );
  const page = `select doc from ${VIEWS} where ${where.join(' and ')} order by ${PAGE_ORDER[q.orderBy]}
    limit ${bind(q.take)} offset ${bind(q.skip)}`;
  return { page: { text: page, values }, count };
}

/**
 * The resources read model on PostgreSQL. Several processes on several machines share the
 * database: every write names the views (with the resources it moved in them) and the resource it
 * changed in the change feed, which keeps each process's view index in step and on which whole
 * answers are remembered. A list that is not a search is answered from the view index (its count
 * and its page's ids) and its page's documents read by key; a free-text or tag search is filtered
 * and counted in SQL, along an index of the view. Writes are held for the transaction they run in
 * (ResourceBatch; the batch's, or one of their own outside a batch) and sent as it commits.
 */
export class PostgresResourceViewStore implements ResourceViewStore {
  readonly projectionStore: ProjectionStore;
  /** While a new generation is bulk-loaded: the read model held in the process (see ResourceMirror). */
  private mirror: ResourceMirror | undefined;
  /** The views this process lists, in list order (see PostgresViewIndex). */
  private readonly index: PostgresViewIndex;
  private readonly held: HeldWrites = {
    flush: async () => {
      const mirror = this.mirror;
      if (!mirror) return;
      await mirror.flush(this.read);
      if (mirror.full) this.mirror = undefined;
    },
    // The mirror holds what the transaction rolled back: the database is read again from here.
    discard: () => (this.mirror = undefined),
  };

  private constructor(private readonly read: PostgresReadDb) {
    this.index = new PostgresViewIndex((text, values) => read.query(text, values), VIEWS);
    read.feed.onChange((change) => this.index.changed(change));
    const store = postgresProjectionStore(read, TABLES);
    this.projectionStore = {
      ...store,
      reset: async (projection) => {
        this.mirror = undefined;
        await store.reset(projection);
        // Emptied, in a generation only its builder writes: the mirror starts from nothing.
        if (read.bulkLoading) this.mirror = new ResourceMirror(TABLE_NAMES);
      },
    };
  }

  /**
   * The mirror, inside a batch of a bulk load, its writes then held for the batch's commit;
   * undefined otherwise: a read outside a batch, or after the load, reads the committed rows.
   */
  private mirrored(): ResourceMirror | undefined {
    if (this.mirror && !this.read.bulkLoading) this.mirror = undefined;
    return this.mirror && this.read.holdWrites(this.held) ? this.mirror : undefined;
  }

  /**
   * Inside a transaction: the writes it holds for the transaction's commit (ResourceBatch), where
   * the mirror does not hold them. Undefined outside one: a read then reads the committed rows.
   */
  private batch(): ResourceBatch | undefined {
    return this.read.batchWrites(this, () => new ResourceBatch(this.read, TABLE_NAMES));
  }

  /** The batch of the transaction this runs in (`read.transaction` makes one when there is none). */
  private inTransaction(): ResourceBatch {
    const batch = this.batch();
    if (!batch) throw new Error('resource writes run inside a transaction');
    return batch;
  }

  static async open(read: PostgresReadDb): Promise<PostgresResourceViewStore> {
    await read.ensure(SCHEMA);
    return new PostgresResourceViewStore(read);
  }

  async resource(resourceId: number): Promise<Resource | null> {
    return this.read.memo.getAsync(
      readScope.resource(resourceId),
      `res:resource:${resourceId}`,
      async () => (await this.stored(resourceId))?.resource ?? null,
    );
  }

  async viewsOfResource(resourceId: number): Promise<ResourceViewRecord[]> {
    const views = await this.read.memo.getAsync(readScope.resource(resourceId), `res:views:${resourceId}`, async () => {
      await this.batch()?.settle();
      const { rows } = await this.read.query<{ doc: string }>(
        `select doc from ${VIEWS} where resource_id = $1 order by view_key`,
        [resourceId],
      );
      return rows.map((row) => JSON.parse(row.doc) as ResourceViewRecord);
    });
    return [...views];
  }

  /** One statement: the resource's row and its views' documents, from one snapshot. */
  async resourceWithViews(resourceId: number): Promise<ResourceWithViews | null> {
    return this.read.memo.getAsync(readScope.resource(resourceId), `res:with-views:${resourceId}`, async () => {
      const batch = this.batch();
      if (!batch) return this.withViews.load(resourceId);
      await batch.settle();
      return (await this.readWithViews([resourceId]))[0] ?? null;
    });
  }

  /**
   * The reads of one resource with its views made outside a transaction in one turn of the event
   * loop, sent as one statement. Under load each request's read otherwise costs a round trip of
   * its own (a socket write, a server process woken, a bind and an execute): half the service's
   * CPU a GetResourcePrivacy cost with the memos off (docs/benchmarks.md "What the figures
   * decided"). Nothing is kept between turns: every read still goes to the database.
   */
  private readonly withViews = new DataLoader<number, ResourceWithViews | null>((ids) => this.readWithViews(ids), {
    cache: false,
    maxBatchSize: 256,
  });

  /** The resources of `ids` with their views, in the order of `ids`; null for one absent or deleted. */
  private async readWithViews(ids: readonly number[]): Promise<(ResourceWithViews | null)[]> {
    // The views as one JSON array, joined by the server from the stored texts: parsed at once
    // here, where an array of texts would be unescaped character by character first.
    const { rows } = await this.read.query<{ resource_id: string; resource: string | null; views: string }>(
      `select resource_id, resource,
         coalesce((select '[' || string_agg(doc, ',' order by view_key) || ']' from ${VIEWS} v
           where v.resource_id = r.resource_id), '[]') as views
       from ${RESOURCES} r where resource_id = any($1::bigint[])`,
      [[...new Set(ids)]],
    );
    const found = new Map<number, ResourceWithViews>();
    for (const row of rows)
      if (row.resource)
        found.set(Number(row.resource_id), {
          resource: JSON.parse(row.resource) as Resource,
          views: JSON.parse(row.views) as ResourceViewRecord[],
        });
    return ids.map((id) => found.get(id) ?? null);
  }

  async page(q: ViewPageQuery): Promise<ViewPage> {
    const plan = await this.planOf(q);
    if (plan.by === 'view index') {
      const { count, ids } = plan.view.page(q);
      return { count, list: await this.index.docs(plan.view, ids) };
    }
    if (plan.admitsNone) return { count: 0, list: [] };
    const { statements } = plan;
    const count = Number(
      (await this.read.query<{ n: string }>(statements.count.text, statements.count.values)).rows[0]?.n ?? 0,
    );
    if (q.take === 0 || count === 0) return { count, list: [] };
    const { rows } = await this.read.query<{ doc: string }>(statements.page.text, statements.page.values);
    return { count, list: rows.map((row) => JSON.parse(row.doc) as ResourceViewRecord) };
  }

  /**
   * How a page query is answered: from the view index where it may be used and the query is no
   * search; otherwise by a page statement and a count statement over the audience sets that admit
   * the caller (the view index's, or read from the view's rows).
   */
  private async planOf(q: ViewPageQuery): Promise<PagePlan> {
    const batch = this.batch();
    const view = this.usesIndex(batch) ? await this.index.view(q.viewKey, q.projectId) : null;
    if (view && !searching(q)) return { by: 'view index', view };
    await batch?.settle();
    const keys = view ? view.admittedAudiences(q.audience).sort() : await this.admittedAudiences(q);
    return {
      by: 'query',
      admitsNone: q.audience.kind !== 'everything' && keys.length === 0,
      statements: pageStatements(q, keys),
    };
  }

  /**
   * Whether lists may use the view index: not inside a transaction (whose own writes it does not
   * hold), not while a generation is bulk-loaded (its commits write no change feed to keep the
   * index in step).
   */
  private usesIndex(batch: ResourceBatch | undefined): boolean {
    return !batch && !this.read.bulkLoading;
  }

  /** The audience sets of the view, read from its rows, that admit the caller (without the view index). */
  private async admittedAudiences(q: ViewPageQuery): Promise<string[]> {
    const { rows } = await this.read.query<{ audience_key: string }>(
      `select distinct audience_key from ${VIEWS} where view_key = $1 and project_id = $2`,
      [q.viewKey, q.projectId],
    );
    return admittedKeys(
      q.audience,
      rows.map((row) => row.audience_key),
    ).sort();
  }

  /**
   * How a page query is answered: from the view index, then the page's documents by key; or, for
   * a search, PostgreSQL's plans for its page and count statements. For operators and for the
   * test that keeps lists off full scans.
   */
  async explainPage(q: ViewPageQuery): Promise<{ counted: 'view index' | 'query'; plans: string[] }> {
    const explain = async ({ text, values }: Statement) =>
      (await this.read.query<{ 'QUERY PLAN': string }>(`explain ${text}`, values)).rows
        .map((row) => row['QUERY PLAN'])
        .join('\n');
    const plan = await this.planOf(q);
    if (plan.by === 'view index') {
      const { ids } = plan.view.page(q);
      return {
        counted: 'view index',
        plans: [await explain({ text: this.index.docsStatement, values: [q.viewKey, q.projectId, ids] })],
      };
    }
    return { counted: 'query', plans: [await explain(plan.statements.page), await explain(plan.statements.count)] };
  }

  async readAhead(resourceIds: readonly number[], projectIds: readonly number[]): Promise<void> {
    // A bulk load's mirror holds every resource already.
    if (this.mirrored()) return;
    await this.batch()?.readAhead(resourceIds, projectIds);
  }

  async stored(resourceId: number): Promise<StoredResource | null> {
    const mirror = this.mirrored();
    if (mirror) return mirror.stored(resourceId);
    const batch = this.batch();
    if (batch) return batch.stored(resourceId);
    const { rows } = await this.read.query<{ resource: string | null; position: string }>(
      `select resource, position from ${RESOURCES} where resource_id = $1`,
      [resourceId],
    );
    const row = rows[0];
    if (!row) return null;
    return storedResourceOf({ text: row.resource, position: BigInt(row.position) });
  }

  /**
   * An event older than the stored resource changes nothing: its views would disagree with it.
   * One at the stored position rewrites the same views. A tombstone keeps the project id the
   * live resource had, as on MongoDB.
   */
  async putResource(
    resourceId: number,
    resource: Resource | null,
    position: bigint,
    views: readonly ResourceViewRecord[],
  ): Promise<void> {
    await this.read.transaction(async () => {
      const mirror = this.mirrored();
      if (mirror) return mirror.putResource(resourceId, resource, position, views);
      return this.inTransaction().putResource(resourceId, resource, position, views);
    });
  }

  /**
   * Upserts the new views and deletes the ones that are gone. Idempotent: replaying it writes the
   * same rows.
   */
  async replaceViews(resourceId: number, views: readonly ResourceViewRecord[]): Promise<void> {
    await this.read.transaction(async () => {
      const mirror = this.mirrored();
      if (mirror) return mirror.replaceViews(resourceId, views);
      return this.inTransaction().replaceViews(resourceId, views);
    });
  }

  async resourcesOfProject(projectId: number): Promise<Resource[]> {
    const mirror = this.mirrored();
    if (mirror) return mirror.resourcesOfProject(projectId);
    await this.batch()?.settle();
    const { rows } = await this.read.query<{ resource: string }>(
      `select resource from ${RESOURCES} where project_id = $1 and resource is not null order by resource_id`,
      [projectId],
    );
    return rows.map((row) => JSON.parse(row.resource) as Resource);
  }

  async projectLink(
    communityProjectId: number,
  ): Promise<(ProjectLink & { position: bigint; removed: boolean }) | null> {
    const mirror = this.mirrored();
    if (mirror) return mirror.projectLink(communityProjectId);
    const { rows } = await this.read.query<{
      community_id: string;
      project_id: string;
      position: string;
      removed: boolean;
    }>(`select community_id, project_id, position, removed from ${PROJECT_LINKS} where community_project_id = $1`, [
      communityProjectId,
    ]);
    const row = rows[0];
    if (!row) return null;
    return {
      communityProjectId,
      communityId: Number(row.community_id),
      projectId: Number(row.project_id),
      position: BigInt(row.position),
      removed: row.removed,
    };
  }

  async writeProjectLink(link: ProjectLink, removed: boolean, position: bigint): Promise<void> {
    this.batch()?.linksChanged();
    if (this.mirror) {
      // In a transaction of its own outside a batch, so that the mirror's write is sent as it commits.
      await this.read.transaction(async () => {
        const mirror = this.mirrored();
        if (mirror) mirror.writeProjectLink(link, removed, position);
        else await this.writeProjectLinkRow(link, removed, position);
      });
      return;
    }
    await this.writeProjectLinkRow(link, removed, position);
  }

  private async writeProjectLinkRow(link: ProjectLink, removed: boolean, position: bigint): Promise<void> {
    await this.read.query(
      `insert into ${PROJECT_LINKS} as l (community_project_id, community_id, project_id, position, removed)
       values ($1, $2, $3, $4, $5)
       on conflict (community_project_id) do update set
         community_id = excluded.community_id, project_id = excluded.project_id,
         position = excluded.position, removed = excluded.removed
       where l.position < excluded.position`,
      [link.communityProjectId, link.communityId, link.projectId, position.toString(), removed],
    );
  }

  async projectCommunities(projectId: number): Promise<number[]> {
    const mirror = this.mirrored();
    if (mirror) return mirror.projectCommunities(projectId);
    const load = async () => {
      const { rows } = await this.read.query<{ community_id: string }>(
        `select distinct community_id from ${PROJECT_LINKS} where project_id = $1 and not removed order by community_id`,
        [projectId],
      );
      return rows.map((row) => Number(row.community_id));
    };
    const batch = this.batch();
    return batch ? batch.projectCommunities(projectId, load) : load();
  }
}

import type Database from 'better-sqlite3';
import type { Resource } from '../../resources/resource';
import { searchTermsOf } from '../../resources/resource-fields';
import type { ProjectionStore } from '../../projections/read-model-projection';
import {
  readSideBySide,
  type ProjectLink,
  type ResourceViewRecord,
  type ResourceViewStore,
  type ResourceWithViews,
  type StoredResource,
  type ViewPage,
  type ViewPageQuery,
} from '../../resources/resource-view-store';
import { readScope } from '../../projections/read-scopes';
import { sqliteProjectionStore, type SqliteReadDb } from './sqlite-read-db';
import { SqliteViewIndex } from './sqlite-view-index';

const schema = `
  create table if not exists res_resources (
    resource_id integer primary key,
    project_id integer not null,
    position integer not null,
    resource text
  ) strict;
  create index if not exists res_resources_by_project on res_resources (project_id) where resource is not null;

  create table if not exists res_project_links (
    community_project_id integer primary key,
    community_id integer not null,
    project_id integer not null,
    position integer not null,
    removed integer not null
  ) strict;
  create index if not exists res_project_links_by_project on res_project_links (project_id) where removed = 0;

  create table if not exists res_views (
    resource_id integer not null,
    view_key text not null,
    project_id integer not null,
    paragraph_id integer not null,
    post_date text not null,
    audience_key text not null,
    search text not null,
    tags text not null,
    doc text not null,
    primary key (resource_id, view_key)
  ) strict;
  -- Per-audience row counts of earlier releases: the view index counts now.
  drop table if exists res_view_counts;
`;

/**
 * The lists' indexes; the projection itself reads views by their primary key only. A view is read
 * into the view index through `res_views_in_view`, which holds all a list needs to place a row
 * (never its document); searches walk it or `res_views_by_recent`. The audience indexes of earlier
 * releases served page plans the view index replaced.
 */
const pageIndexes = `
  create index if not exists res_views_in_view on res_views (view_key, project_id, resource_id, post_date, paragraph_id, audience_key);
  create index if not exists res_views_by_recent on res_views (view_key, project_id, post_date desc, resource_id desc);
  drop index if exists res_views_by_id;
  drop index if exists res_views_by_audience_id;
  drop index if exists res_views_by_audience_recent;
`;

/** Free-text and tag searches count by scanning the view in SQL; other lists count in the view index. */
const searching = (q: ViewPageQuery): boolean => q.concept !== null || q.tags.length > 0;

type ViewKeyRow = { view_key: string; project_id: number };

/**
 * The embedded resources read model. A list takes the ids of its page from the view index (the
 * view's rows in list order, in memory, kept in step through the change feed) and reads only
 * those rows' documents, so its cost grows neither with the size of the view nor with the depth
 * of the page; only free-text and tag searches count by scanning the view.
 */
export class SqliteResourceViewStore implements ResourceViewStore {
  readonly projectionStore: ProjectionStore;
  private readonly db: Database.Database;
  private readonly s;
  private readonly pageStatements = new Map<string, Database.Statement>();
  private readonly index: SqliteViewIndex;
  /**
   * Each project's communities, kept for one batch of the projection: the batch's transaction
   * holds the write lock, so only this store changes the links meanwhile (and forgets them when
   * it does). In a bulk load, kept until the load ends: nobody else writes a generation being
   * loaded, and a rebuild looks up the communities of every resource.
   */
  private readonly communitiesOfProject = new Map<number, readonly number[]>();
  /**
   * Resources this batch found not stored, so without views: writing one needs no look for old
   * views to replace (every resource of a rebuild). Kept for the batch only, like the communities.
   */
  private readonly unstored = new Set<number>();

  constructor(private readonly read: SqliteReadDb) {
    this.db = read.db;
    this.db.exec(schema);
    read.createIndexes(pageIndexes);
    this.index = new SqliteViewIndex(this.db);
    read.feed.onChange((change) => this.index.changed(change));
    this.projectionStore = sqliteProjectionStore(read, ['res_resources', 'res_project_links', 'res_views'], {
      beforeCommit: () => {
        this.unstored.clear();
        if (!read.bulkLoading) this.communitiesOfProject.clear();
      },
      rolledBack: () => {
        this.unstored.clear();
        this.communitiesOfProject.clear();
      },
    });
    if (read.bulkLoading) read.whenLoaded(() => this.communitiesOfProject.clear());
    const db = this.db;
    this.s = {
      stored: db.prepare<[number], { resource: string | null; position: number | bigint }>(
        'select resource, position from res_resources where resource_id = ?',
      ),
      putResource: db.prepare(
        `insert into res_resources (resource_id, project_id, position, resource) values (?, ?, ?, ?)
         on conflict (resource_id) do update set project_id = excluded.project_id, position = excluded.position, resource = excluded.resource`,
      ),
      ofProject: db.prepare<[number], { resource: string }>(
        'select resource from res_resources where project_id = ? and resource is not null order by resource_id',
      ),
      views: db.prepare<[number], { doc: string }>('select doc from res_views where resource_id = ? order by view_key'),
      doc: db
        .prepare<[number, string], string>('select doc from res_views where resource_id = ? and view_key = ?')
        .pluck(),
      viewKeys: db.prepare<[number], ViewKeyRow>('select view_key, project_id from res_views where resource_id = ?'),
      deleteViews: db.prepare('delete from res_views where resource_id = ?'),
      insertView: db.prepare<[number, string, number, number, string, string, string, string, string]>(
        `insert into res_views (resource_id, view_key, project_id, paragraph_id, post_date, audience_key, search, tags, doc)
         values (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      link: db.prepare<
        [number],
        {
          community_project_id: number;
          community_id: number;
          project_id: number;
          position: number | bigint;
          removed: number;
        }
      >('select * from res_project_links where community_project_id = ?'),
      putLink: db.prepare(
        `insert into res_project_links (community_project_id, community_id, project_id, position, removed) values (?, ?, ?, ?, ?)
         on conflict (community_project_id) do update set community_id = excluded.community_id, project_id = excluded.project_id,
           position = excluded.position, removed = excluded.removed
         where excluded.position > res_project_links.position`,
      ),
      communities: db.prepare<[number], { community_id: number }>(
        'select distinct community_id from res_project_links where project_id = ? and ' +
          'removed = 0 order by community_id',
      ),
    };
  }

  async resource(resourceId: number): Promise<Resource | null> {
    return this.read.memo.get(readScope.resource(resourceId), `res:resource:${resourceId}`, () => {
      const row = this.s.stored.get(resourceId);
      return row?.resource ? (JSON.parse(row.resource) as Resource) : null;
    });
  }

  async viewsOfResource(resourceId: number): Promise<ResourceViewRecord[]> {
    const views = this.read.memo.get(readScope.resource(resourceId), `res:views:${resourceId}`, () =>
      this.s.views.all(resourceId).map((r) => this.parse(r.doc)),
    );
    return [...views];
  }

  resourceWithViews(resourceId: number): Promise<ResourceWithViews | null> {
    return readSideBySide(this, resourceId);
  }

  async page(q: ViewPageQuery): Promise<ViewPage> {
    if (searching(q)) return this.searchPage(q);
    const view = this.index.view(q.viewKey, q.projectId);
    const { count, ids } = view.page(q);
    const list = this.index.docs(view, ids, (id) => {
      const doc = this.s.doc.get(id, q.viewKey);
      // Kept on the view index's entry while the row stands.
      return doc === undefined ? null : this.parse(doc);
    });
    return { count, list };
  }

  /** A free-text or tag search: the view's rows that admit the caller, filtered and counted in SQL. */
  private searchPage(q: ViewPageQuery): ViewPage {
    const keys = this.searchKeys(q);
    if (keys !== null && keys.length === 0) return { count: 0, list: [] };
    const params = this.searchParams(q, keys);
    const count = (this.statement('count', q).get(params) as { n: number }).n;
    if (q.take === 0 || count === 0) return { count, list: [] };
    const rows = this.statement('page', q).all(params) as { doc: string }[];
    return { count, list: rows.map((r) => this.parse(r.doc)) };
  }

  private parse(doc: string): ResourceViewRecord {
    return JSON.parse(doc) as ResourceViewRecord;
  }

  /**
   * How a page query is answered: from the view index, then each row of the page by its primary
   * key; or, for a search, SQLite's plans for its page and count statements. For operators and
   * for the test that keeps lists off full scans.
   */
  explainPage(q: ViewPageQuery): { counted: 'view index' | 'query'; plans: string[] } {
    const explain = (statement: Database.Statement, params: unknown[] | Record<string, unknown>) =>
      (this.db.prepare(`explain query plan ${statement.source}`).all(params) as { detail: string }[])
        .map((r) => r.detail)
        .join('; ');
    if (!searching(q)) {
      const { ids } = this.index.view(q.viewKey, q.projectId).page(q);
      return { counted: 'view index', plans: [explain(this.s.doc, [ids[0] ?? 0, q.viewKey])] };
    }
    const params = this.searchParams(q, this.searchKeys(q));
    return {
      counted: 'query',
      plans: [explain(this.statement('page', q), params), explain(this.statement('count', q), params)],
    };
  }

  /** The audience sets a search filters the view's rows by; null: every row (a community's admins). */
  private searchKeys(q: ViewPageQuery): string[] | null {
    return q.audience.kind === 'everything'
      ? null
      : this.index.view(q.viewKey, q.projectId).admittedAudiences(q.audience);
  }

  private searchParams(q: ViewPageQuery, keys: readonly string[] | null): Record<string, string | number> {
    return {
      view_key: q.viewKey,
      project_id: q.projectId,
      paragraph_id: q.paragraphId ?? 0,
      keys: JSON.stringify(keys ?? []),
      concept: q.concept ?? '',
      tags: JSON.stringify(q.tags),
      skip: q.skip,
      take: q.take,
      after_id: q.after?.resourceId ?? 0,
      after_date: q.after?.postDate ?? '',
    };
  }

  /** A search's page and count statements, prepared once per shape of query. */
  private statement(kind: 'page' | 'count', q: ViewPageQuery): Database.Statement {
    const everything = q.audience.kind === 'everything';
    const after = kind === 'page' && q.after != null;
    const signature = [
      kind,
      q.orderBy,
      everything,
      q.paragraphId !== null,
      q.concept !== null,
      q.tags.length > 0,
      after,
    ].join('|');
    let statement = this.pageStatements.get(signature);
    if (!statement) {
      const index = q.orderBy === 0 ? 'res_views_in_view' : 'res_views_by_recent';
      const where = ['view_key = @view_key', 'project_id = @project_id'];
      if (!everything) where.push('audience_key in (select value from json_each(@keys))');
      if (q.paragraphId !== null) where.push('paragraph_id = @paragraph_id');
      // Not `exists (...)`: SQLite 3.53 turns an EXISTS over json_each into a join and then applies
      // OFFSET to the joined rows, so a row matching twice (two terms, two tags) shifts the page.
      if (q.concept !== null)
        where.push('(select 1 from json_each(search) where instr(value, @concept) > 0 limit 1) is not null');
      if (q.tags.length > 0)
        where.push(
          '(select 1 from json_each(tags) where value in (select value from json_each(@tags)) limit 1) is not null',
        );
      if (after)
        where.push(
          q.orderBy === 0
            ? 'resource_id > @after_id'
            : '(post_date < @after_date or (post_date = @after_date and resource_id < @after_id))',
        );
      const order = q.orderBy === 0 ? 'resource_id' : 'post_date desc, resource_id desc';
      const sql =
        kind === 'count'
          ? `select count(*) as n from res_views indexed by ${index} where ${where.join(' and ')}`
          : `select doc from res_views indexed by ${index} where ${where.join(' and ')} order by ${order} limit @take offset @skip`;
      statement = this.db.prepare(sql);
      this.pageStatements.set(signature, statement);
    }
    return statement;
  }

  async stored(resourceId: number): Promise<StoredResource | null> {
    const row = this.s.stored.get(resourceId);
    if (!row) {
      if (this.db.inTransaction) this.unstored.add(resourceId);
      return null;
    }
    return { resource: row.resource ? (JSON.parse(row.resource) as Resource) : null, position: BigInt(row.position) };
  }

  async putResource(
    resourceId: number,
    resource: Resource | null,
    position: bigint,
    views: readonly ResourceViewRecord[],
  ): Promise<void> {
    const projectId = resource?.scope.projectId ?? this.s.viewKeys.get(resourceId)?.project_id ?? 0;
    this.s.putResource.run(resourceId, projectId, position, resource ? JSON.stringify(resource) : null);
    // replaceViews names the resource's scope as changed.
    await this.replaceViews(resourceId, views);
  }

  async replaceViews(resourceId: number, views: readonly ResourceViewRecord[]): Promise<void> {
    const old = this.unstored.delete(resourceId) ? [] : this.s.viewKeys.all(resourceId);
    for (const view of old) this.read.feed.touch(readScope.view(view.view_key, view.project_id), resourceId);
    this.read.feed.touch(readScope.resource(resourceId));
    // A new resource (every one in a rebuild) has nothing to delete.
    if (old.length > 0) this.s.deleteViews.run(resourceId);
    for (const view of views) {
      const paragraph = view.paragraphId ?? 0;
      this.s.insertView.run(
        resourceId,
        view.viewKey,
        view.projectId,
        paragraph,
        view.postDate,
        view.audienceKey,
        JSON.stringify(searchTermsOf(view)),
        JSON.stringify(view.tagsLower),
        JSON.stringify(view),
      );
      this.read.feed.touch(readScope.view(view.viewKey, view.projectId), resourceId);
    }
  }

  async resourcesOfProject(projectId: number): Promise<Resource[]> {
    return this.s.ofProject.all(projectId).map((r) => JSON.parse(r.resource) as Resource);
  }

  async projectLink(
    communityProjectId: number,
  ): Promise<(ProjectLink & { position: bigint; removed: boolean }) | null> {
    const row = this.s.link.get(communityProjectId);
    if (!row) return null;
    return {
      communityProjectId: row.community_project_id,
      communityId: row.community_id,
      projectId: row.project_id,
      position: BigInt(row.position),
      removed: row.removed === 1,
    };
  }

  async writeProjectLink(link: ProjectLink, removed: boolean, position: bigint): Promise<void> {
    this.communitiesOfProject.clear();
    this.s.putLink.run(link.communityProjectId, link.communityId, link.projectId, position, removed ? 1 : 0);
  }

  async projectCommunities(projectId: number): Promise<number[]> {
    const read = () => this.s.communities.all(projectId).map((r) => r.community_id);
    // Outside a batch another process may change the links at any time: read them each time.
    if (!this.db.inTransaction && !this.read.bulkLoading) return read();
    let communities = this.communitiesOfProject.get(projectId);
    if (!communities) {
      communities = read();
      this.communitiesOfProject.set(projectId, communities);
    }
    return [...communities];
  }
}

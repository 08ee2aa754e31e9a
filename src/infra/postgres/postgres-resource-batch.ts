import type { Resource } from '../../resources/resource';
import { resourceWriteAt, type ResourceViewRecord, type StoredResource } from '../../resources/resource-view-store';
import { readScope } from '../../projections/read-scopes';
import type { HeldWrites, PostgresReadDb } from './postgres-read-db';
import {
  replaceViewsIn,
  storedResourceOf,
  writeResourceRows,
  writeViewRows,
  type ResourceRow,
  type ResourceTables,
  type StoredView,
} from './postgres-resource-rows';

/**
 * The resources read model's writes in one transaction of the live projection, held in the
 * process and sent as it commits. Writing through took seven round trips an event, one after the
 * other (the row's position, its views, the views written, the per-view counters kept then, the row), so the
 * projection, which folds the events of a batch in order, fell behind the saves; here a batch
 * costs a read of each resource it touches (none for one it creates) and of each project's
 * communities, then a few multi-row statements however many events it folded.
 *
 * What it holds was read in the same transaction and only the projection's leader writes the
 * read model (its lease is fenced in that transaction), so the rows it holds are the table's.
 * A read of the tables inside the batch that it does not answer (a project's resources, a page)
 * first sends what it holds (`settle`).
 */
export class ResourceBatch implements HeldWrites {
  /** Resource rows read or written in this batch; null: the table has none. */
  private readonly rows = new Map<number, ResourceRow | null>();
  /** Each resource's views as the table holds them after this batch's writes. */
  private readonly views = new Map<number, Map<string, StoredView>>();
  private readonly communities = new Map<number, number[]>();
  private readonly dirtyRows = new Set<number>();
  /** Views written, by resource and view key; null: removed. */
  private readonly dirtyViews = new Map<number, Map<string, unknown[] | null>>();

  constructor(
    private readonly read: PostgresReadDb,
    private readonly tables: ResourceTables,
  ) {}

  async stored(resourceId: number): Promise<StoredResource | null> {
    const row = await this.row(resourceId);
    if (!row) return null;
    return storedResourceOf(row);
  }

  /** As PostgresResourceViewStore.putResource: nothing older than the stored row is applied. */
  async putResource(
    resourceId: number,
    resource: Resource | null,
    position: bigint,
    views: readonly ResourceViewRecord[],
  ): Promise<void> {
    const current = await this.row(resourceId);
    const write = resourceWriteAt(current?.position ?? null, position);
    if (write === 'nothing') return;
    await this.replaceViews(resourceId, views);
    if (write === 'views') return;
    // A tombstone keeps the project id the live resource had.
    const projectId = resource ? resource.scope.projectId : (current?.projectId ?? 0);
    this.rows.set(resourceId, { projectId, position, text: resource ? JSON.stringify(resource) : null });
    this.dirtyRows.add(resourceId);
  }

  /** As PostgresResourceViewStore.replaceViews: the views given, one per key (the last), and no others. */
  async replaceViews(resourceId: number, views: readonly ResourceViewRecord[]): Promise<void> {
    const before = await this.viewsOf(resourceId);
    // The views it leaves and the views it enters: a list of either may change.
    for (const view of [...before.values(), ...views])
      this.read.touch(readScope.view(view.viewKey, view.projectId), resourceId);
    this.read.touch(readScope.resource(resourceId));
    const dirty = this.dirtyViews.get(resourceId) ?? new Map<string, unknown[] | null>();
    this.dirtyViews.set(resourceId, dirty);
    this.views.set(resourceId, replaceViewsIn(this.tables, resourceId, before, views, dirty));
  }

  /** A project's communities, read once a batch: `load` reads them from the table. */
  async projectCommunities(projectId: number, load: () => Promise<number[]>): Promise<number[]> {
    let known = this.communities.get(projectId);
    if (!known) this.communities.set(projectId, (known = await load()));
    return [...known];
  }

  /** A project link was written in this batch: the communities read before it may have changed. */
  linksChanged(): void {
    this.communities.clear();
  }

  /** Sends what it holds into the transaction, before a read it does not answer; it keeps what it knows. */
  async settle(): Promise<void> {
    const rows = [...this.dirtyRows].map((id) => [id, this.rows.get(id) as ResourceRow] as const);
    const upserts: unknown[][] = [];
    const deleted: [number, string][] = [];
    for (const [resourceId, keys] of this.dirtyViews)
      for (const [key, row] of keys) {
        if (row) upserts.push(row);
        else deleted.push([resourceId, key]);
      }
    this.dirtyRows.clear();
    this.dirtyViews.clear();
    await writeViewRows(this.read, this.tables, upserts, deleted);
    await writeResourceRows(this.read, this.tables, rows);
  }

  flush(): Promise<void> {
    return this.settle();
  }

  /** The transaction rolled back: this object goes with it (each batch has its own). */
  discard(): void {}

  /**
   * The rows and the views of these resources, and the communities of these projects and of the
   * stored resources' own, in three queries sent together: one round trip however many events the
   * batch holds. What this batch knows already is not read again.
   */
  async readAhead(resourceIds: readonly number[], projectIds: readonly number[]): Promise<void> {
    const ids = resourceIds.filter((id) => !this.rows.has(id));
    await Promise.all([
      this.readRows(ids),
      // Creations among them have no views: the query finds none.
      this.readViews(ids.filter((id) => !this.views.has(id))),
      this.readCommunities(
        projectIds.filter((id) => !this.communities.has(id)),
        ids,
      ),
    ]);
  }

  /** The communities of `projectIds` and of the projects of the stored `resourceIds`, in one query. */
  private async readCommunities(projectIds: readonly number[], resourceIds: readonly number[]): Promise<void> {
    if (projectIds.length === 0 && resourceIds.length === 0) return;
    const { rows } = await this.read.query<{ project_id: string; communities: string[] }>(
      `select p.project_id,
         coalesce(array_agg(distinct l.community_id order by l.community_id)
           filter (where l.community_id is not null), '{}') as communities
       from (select unnest($1::bigint[]) as project_id
             union select project_id from ${this.tables.resources} where resource_id = any($2::bigint[])) p
       left join ${this.tables.projectLinks} l on l.project_id = p.project_id and not l.removed
       group by p.project_id`,
      [projectIds, resourceIds],
    );
    for (const row of rows)
      if (!this.communities.has(Number(row.project_id)))
        this.communities.set(Number(row.project_id), row.communities.map(Number));
  }

  private async row(resourceId: number): Promise<ResourceRow | null> {
    if (!this.rows.has(resourceId)) await this.readRows([resourceId]);
    return this.rows.get(resourceId) ?? null;
  }

  private async viewsOf(resourceId: number): Promise<Map<string, StoredView>> {
    if (!this.views.has(resourceId)) {
      if ((await this.row(resourceId)) === null) return new Map();
      await this.readViews([resourceId]);
    }
    return this.views.get(resourceId) as Map<string, StoredView>;
  }

  /** The rows of `ids` as the table holds them, null for those it has none of, in one query. */
  private async readRows(ids: readonly number[]): Promise<void> {
    if (ids.length === 0) return;
    const { rows } = await this.read.query<{
      resource_id: string;
      project_id: string;
      position: string;
      resource: string | null;
    }>(
      `select resource_id, project_id, position, resource from ${this.tables.resources}
       where resource_id = any($1::bigint[])`,
      [ids],
    );
    for (const id of ids) this.rows.set(id, null);
    for (const found of rows)
      this.rows.set(Number(found.resource_id), {
        projectId: Number(found.project_id),
        position: BigInt(found.position),
        text: found.resource,
      });
  }

  /** The views of `ids` as the table holds them, in one query. */
  private async readViews(ids: readonly number[]): Promise<void> {
    if (ids.length === 0) return;
    const { rows } = await this.read.query<{ resource_id: string; view_key: string; project_id: string }>(
      `select resource_id, view_key, project_id from ${this.tables.views} where resource_id = any($1::bigint[])`,
      [ids],
    );
    for (const id of ids) this.views.set(id, new Map());
    for (const row of rows)
      this.views
        .get(Number(row.resource_id))
        ?.set(row.view_key, { viewKey: row.view_key, projectId: Number(row.project_id) });
  }
}

import type { Resource } from '../../resources/resource';
import {
  resourceWriteAt,
  type ProjectLink,
  type ResourceViewRecord,
  type StoredResource,
} from '../../resources/resource-view-store';
import type { PostgresReadDb } from './postgres-read-db';
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
 * How many resources and views a mirror holds at most: past it, it is written out and dropped,
 * and the store reads the database again (a few hundred bytes each, the resources' JSON aside).
 */
const MIRROR_MAX_ROWS = 250_000;

type LinkRow = ProjectLink & { readonly position: bigint; readonly removed: boolean };

const add = <K, V>(index: Map<K, Set<V>>, key: K, value: V) => {
  let set = index.get(key);
  if (!set) index.set(key, (set = new Set()));
  set.add(value);
};

/**
 * The resources read model of a generation being bulk-loaded, held in the process: its projection
 * reads what it wrote from here instead of the database, and what a batch changed is written in a
 * few multi-row statements as the batch commits (PostgresReadDb.holdWrites), where writing through
 * took seven round trips an event. It holds every row of the read model, so a key it does not
 * hold is in no table: true from the reset that starts the load, as long as the builder is the
 * only writer of a generation nobody reads. It makes the same rows the statements of
 * PostgresResourceViewStore would have (the digest compares them).
 */
export class ResourceMirror {
  private readonly resources = new Map<number, ResourceRow>();
  private readonly resourcesByProject = new Map<number, Set<number>>();
  private readonly links = new Map<number, LinkRow>();
  private readonly linksByProject = new Map<number, Set<number>>();
  /** Each resource's views. */
  private readonly views = new Map<number, Map<string, StoredView>>();
  private viewCount = 0;

  private readonly dirtyResources = new Set<number>();
  private readonly dirtyLinks = new Set<number>();
  /** Views written since the last flush, by resource and view key; a key absent from `views` is deleted. */
  private readonly dirtyViews = new Map<number, Map<string, unknown[] | null>>();

  constructor(private readonly tables: ResourceTables) {}

  /** Past its size: written out by the flush under way, then dropped by its store. */
  get full(): boolean {
    return this.resources.size + this.viewCount >= MIRROR_MAX_ROWS;
  }

  stored(resourceId: number): StoredResource | null {
    const row = this.resources.get(resourceId);
    if (!row) return null;
    return storedResourceOf(row);
  }

  putResource(resourceId: number, resource: Resource | null, position: bigint, views: readonly ResourceViewRecord[]) {
    const current = this.resources.get(resourceId);
    const write = resourceWriteAt(current?.position ?? null, position);
    if (write === 'nothing') return;
    this.replaceViews(resourceId, views);
    if (write === 'views') return;
    // A tombstone keeps the project id the live resource had.
    const projectId = resource ? resource.scope.projectId : (current?.projectId ?? 0);
    if (current && current.projectId !== projectId) this.resourcesByProject.get(current.projectId)?.delete(resourceId);
    add(this.resourcesByProject, projectId, resourceId);
    this.resources.set(resourceId, { projectId, position, text: resource ? JSON.stringify(resource) : null });
    this.dirtyResources.add(resourceId);
  }

  replaceViews(resourceId: number, views: readonly ResourceViewRecord[]): void {
    const before = this.views.get(resourceId) ?? new Map<string, StoredView>();
    const dirty = this.dirtyViews.get(resourceId) ?? new Map<string, unknown[] | null>();
    this.dirtyViews.set(resourceId, dirty);
    const after = replaceViewsIn(this.tables, resourceId, before, views, dirty);
    this.viewCount += after.size - before.size;
    if (after.size > 0) this.views.set(resourceId, after);
    else this.views.delete(resourceId);
  }

  resourcesOfProject(projectId: number): Resource[] {
    const ids = [...(this.resourcesByProject.get(projectId) ?? [])].sort((a, b) => a - b);
    return ids.flatMap((id) => {
      const text = this.resources.get(id)?.text;
      return text ? [JSON.parse(text) as Resource] : [];
    });
  }

  projectLink(communityProjectId: number): LinkRow | null {
    return this.links.get(communityProjectId) ?? null;
  }

  writeProjectLink(link: ProjectLink, removed: boolean, position: bigint): void {
    const current = this.links.get(link.communityProjectId);
    if (current && current.position >= position) return;
    if (current && current.projectId !== link.projectId)
      this.linksByProject.get(current.projectId)?.delete(link.communityProjectId);
    add(this.linksByProject, link.projectId, link.communityProjectId);
    this.links.set(link.communityProjectId, {
      communityProjectId: link.communityProjectId,
      communityId: link.communityId,
      projectId: link.projectId,
      position,
      removed,
    });
    this.dirtyLinks.add(link.communityProjectId);
  }

  projectCommunities(projectId: number): number[] {
    const communities = new Set<number>();
    for (const id of this.linksByProject.get(projectId) ?? []) {
      const link = this.links.get(id);
      if (link && !link.removed) communities.add(link.communityId);
    }
    return [...communities].sort((a, b) => a - b);
  }

  /** Writes what changed since the last flush, on the batch's connection (`read.query` inside it). */
  async flush(read: PostgresReadDb): Promise<void> {
    const { projectLinks } = this.tables;
    if (this.dirtyResources.size > 0) {
      await writeResourceRows(
        read,
        this.tables,
        [...this.dirtyResources].map((id) => [id, this.resources.get(id) as ResourceRow] as const),
      );
      this.dirtyResources.clear();
    }
    if (this.dirtyLinks.size > 0) {
      const rows = [...this.dirtyLinks].map((id) => this.links.get(id) as LinkRow);
      await read.query(
        `insert into ${projectLinks} (community_project_id, community_id, project_id, position, removed)
         select * from unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::bigint[], $5::boolean[])
         on conflict (community_project_id) do update set
           community_id = excluded.community_id, project_id = excluded.project_id,
           position = excluded.position, removed = excluded.removed`,
        [
          rows.map((l) => l.communityProjectId),
          rows.map((l) => l.communityId),
          rows.map((l) => l.projectId),
          rows.map((l) => l.position.toString()),
          rows.map((l) => l.removed),
        ],
      );
      this.dirtyLinks.clear();
    }
    if (this.dirtyViews.size > 0) {
      const upserts: unknown[][] = [];
      const deleted: [number, string][] = [];
      for (const [resourceId, keys] of this.dirtyViews)
        for (const [key, row] of keys) {
          if (row) upserts.push(row);
          else deleted.push([resourceId, key]);
        }
      await writeViewRows(read, this.tables, upserts, deleted);
      this.dirtyViews.clear();
    }
  }
}

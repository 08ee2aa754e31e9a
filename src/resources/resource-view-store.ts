import type { CircleRef, Resource, ResourceScope } from './resource';
import type { ProjectionStore } from '../projections/read-model-projection';
import type { ApiFields } from './resource-fields';

/**
 * One (resource, view) of the per-community visibility read model (docs/api.md), as stored; the
 * editable fields under the API's names.
 */
export type ResourceViewRecord = {
  readonly resourceId: number;
  readonly viewKey: string;
  readonly viewCommunityId: number | null;
  readonly scope: ResourceScope;
  readonly projectId: number;
  readonly communityProjectId: number | null;
  readonly ownerCommunityId: number | null;
  readonly paragraphId: number | null;
  readonly resourceType: number;
  readonly image: string;
  /** Lower-cased tags: tag filters are case-insensitive. */
  readonly tagsLower: readonly string[];
  readonly postDate: string;
  readonly lastUpdated: string;
  readonly privacyLevel: number;
  readonly effectivePrivacyLevel: number;
  readonly governedBy: 'own' | 'share';
  readonly circles: readonly CircleRef[];
  readonly originCommunityId: number | null;
  readonly createdBy: number;
  readonly createdByMentor: boolean;
  readonly shares: readonly { communityId: number; privacyLevel: number }[];
  /** Principal strings admitted to this view of the resource. */
  readonly audience: readonly string[];
  /** The audience as one sorted key: the read model counts views per audience set. */
  readonly audienceKey: string;
} & ApiFields;

/** Who is asking: their principals in the view, or everything (a community's admins in their own view). */
export type Audience =
  { readonly kind: 'principals'; readonly principals: readonly string[] } | { readonly kind: 'everything' };

/** "A page of the resources this caller sees in this view", with the filters GetResourceList takes. */
export type ViewPageQuery = {
  readonly viewKey: string;
  readonly projectId: number;
  readonly audience: Audience;
  readonly paragraphId: number | null;
  /** Lower-cased free text: a substring of the name, the description or a tag. */
  readonly concept: string | null;
  /** Lower-cased tag names: resources carrying any of them. */
  readonly tags: readonly string[];
  /** 0: id ascending; 1: postDate descending, then id descending. */
  readonly orderBy: 0 | 1;
  readonly skip: number;
  readonly take: number;
  /**
   * Keyset paging: only the rows after this one in `orderBy` (whether or not it is still stored),
   * then `skip` and `take` as usual. orderBy 0 reads only the id.
   */
  readonly after?: ViewPageKey | null;
};

/** A row's place in the list orders: (postDate, id) for orderBy 1, the id alone for orderBy 0. */
export type ViewPageKey = { readonly resourceId: number; readonly postDate: string };

/** Whether a row comes after `key` in `orderBy`: the one rule every adapter's keyset page follows. */
export function isAfter(orderBy: 0 | 1, key: ViewPageKey, row: ViewPageKey): boolean {
  if (orderBy === 0 || row.postDate === key.postDate)
    return orderBy === 0 ? row.resourceId > key.resourceId : row.resourceId < key.resourceId;
  return row.postDate < key.postDate;
}

export type ViewPage = { readonly count: number; readonly list: readonly ResourceViewRecord[] };

/** A resource as the read model last folded it; `resource` null once deleted (a tombstone). */
export type StoredResource = { readonly resource: Resource | null; readonly position: bigint };

export type ProjectLink = {
  readonly communityProjectId: number;
  readonly communityId: number;
  readonly projectId: number;
};

/** What the queries ask of the resources read model (GetResourceList, the privacy and the record). */
export interface ResourceViews {
  /** The live resource, or null when it does not exist or was deleted. */
  resource(resourceId: number): Promise<Resource | null>;
  viewsOfResource(resourceId: number): Promise<ResourceViewRecord[]>;
  /**
   * The live resource and its views, read together (one statement where the database allows it):
   * what a read of one resource needs. Null when it does not exist or was deleted.
   */
  resourceWithViews(resourceId: number): Promise<ResourceWithViews | null>;
  page(query: ViewPageQuery): Promise<ViewPage>;
}

export type ResourceWithViews = { readonly resource: Resource; readonly views: readonly ResourceViewRecord[] };

/**
 * `resourceWithViews` as the two reads made side by side: where a read in the process costs
 * little, or where no one query answers both.
 */
export async function readSideBySide(
  store: Pick<ResourceViews, 'resource' | 'viewsOfResource'>,
  resourceId: number,
): Promise<ResourceWithViews | null> {
  const [resource, views] = await Promise.all([store.resource(resourceId), store.viewsOfResource(resourceId)]);
  return resource && { resource, views };
}

/**
 * What storing a resource at `position` does, given the position it is stored at (null: not
 * stored): an event older than the stored resource changes nothing, its views would disagree with
 * it; one at the stored position (a replay) writes the same views again and leaves the resource;
 * a later one writes both. The projection folds no event at or before the stored position; the
 * PostgreSQL and MongoDB stores' `putResource` follow this rule besides, as the last guard of rows
 * that several processes' transactions may reach.
 */
export function resourceWriteAt(stored: bigint | null, position: bigint): 'nothing' | 'views' | 'both' {
  if (stored === null || stored < position) return 'both';
  return stored === position ? 'views' : 'nothing';
}

/** What the resource projection writes, and reads back to fold the next event. */
export interface ResourceViewWriter {
  readonly projectionStore: ProjectionStore;
  stored(resourceId: number): Promise<StoredResource | null>;
  /**
   * Inside a batch's commit, reads these resources as stored, and the communities of these
   * projects (those the batch's creations name) and of the stored resources' own, at once, so that
   * `stored`, `projectCommunities` and the writes read nothing again in that batch. Where absent,
   * each is read when asked.
   */
  readAhead?(resourceIds: readonly number[], projectIds: readonly number[]): Promise<void>;
  /** Stores the resource at `position` (null: deleted) and replaces its views with `views`. */
  putResource(
    resourceId: number,
    resource: Resource | null,
    position: bigint,
    views: readonly ResourceViewRecord[],
  ): Promise<void>;
  /** Replaces a resource's views, its state unchanged (its project joined or left a community). */
  replaceViews(resourceId: number, views: readonly ResourceViewRecord[]): Promise<void>;
  resourcesOfProject(projectId: number): Promise<Resource[]>;
  projectLink(communityProjectId: number): Promise<(ProjectLink & { position: bigint; removed: boolean }) | null>;
  /** Records a link (or, with `removed`, its removal) unless a later event already did. */
  writeProjectLink(link: ProjectLink, removed: boolean, position: bigint): Promise<void>;
  /** The communities a project belongs to, in id order. */
  projectCommunities(projectId: number): Promise<number[]>;
}

/**
 * The resources read model: the latest state of each resource, its views, and this projection's
 * own copy of which communities each project belongs to. One store, two sides: the queries see
 * `ResourceViews`, the projection `ResourceViewWriter`.
 */
export type ResourceViewStore = ResourceViews & ResourceViewWriter;

/** The audience set's key: principals never contain a space. */
export const audienceKeyOf = (audience: readonly string[]): string => [...new Set(audience)].sort().join(' ');

/**
 * The audience sets among `keys` that admit a caller with these principals (the principals read once for all
 * of them).
 */
export function admittedKeys(audience: Audience, keys: Iterable<string>): string[] {
  if (audience.kind === 'everything') return [...keys];
  const wanted = new Set(audience.principals);
  return [...keys].filter((key) => key.split(' ').some((p) => wanted.has(p)));
}

/** Whether a caller with these principals is in an audience set. */
export function admits(audience: Audience, audienceKey: string): boolean {
  return admittedKeys(audience, [audienceKey]).length > 0;
}

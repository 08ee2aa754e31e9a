import type { Document, IndexDescription } from 'mongodb';
import type { Resource } from '../../resources/resource';
import { searchTermsOf } from '../../resources/resource-fields';
import type { ProjectLink, ResourceViewRecord, ViewPageKey, ViewPageQuery } from '../../resources/resource-view-store';
import { admittedKeys as admittedAmong } from '../../resources/resource-view-store';
import { guardedUpsert, type GuardedUpsert, type SortOrder } from './mongo-guarded-write';
import { RESOURCE_VIEW_COUNTS } from './mongo-resource-view-counts';

/**
 * The documents and queries of the MongoDB resources read model, as pure functions so that tests
 * evaluate them without a server.
 */

export const RESOURCES = 'resources';
export const PROJECT_LINKS = 'resource_project_links';
export const RESOURCE_VIEWS = 'resource_views';

/** The read model's collections, its counters (mongo-resource-view-counts.ts) among them: a reset drops them all. */
export const RESOURCE_COLLECTIONS: readonly string[] = [RESOURCES, PROJECT_LINKS, RESOURCE_VIEWS, RESOURCE_VIEW_COUNTS];

export type ResourceViewDocument = ResourceViewRecord & {
  readonly _id: string;
  /** The view's search terms (`searchTermsOf`): the concept filter matches a substring of one. */
  readonly search: readonly string[];
  /** paragraphId with 0 for none, as the SQLite adapter keys it, so that both filter alike. */
  readonly paragraph: number;
};

export const viewId = (resourceId: number, viewKey: string): string => `${resourceId}|${viewKey}`;

export function viewDocument(view: ResourceViewRecord): ResourceViewDocument {
  return {
    ...view,
    _id: viewId(view.resourceId, view.viewKey),
    search: searchTermsOf(view),
    paragraph: view.paragraphId ?? 0,
  };
}

/** Views are not guarded by position: the resource document is (see putResource). */
export function viewUpsert(view: ResourceViewRecord): { filter: Document; replacement: Document } {
  const { _id, ...replacement } = viewDocument(view);
  return { filter: { _id }, replacement };
}

/** A view document read back as the record the port answers. */
export const VIEW_PROJECTION: Document = { _id: 0, search: 0, paragraph: 0 };

/** The views of a resource that are not among `keep`: what replacing its views deletes. */
export const staleViewsFilter = (resourceId: number, keep: readonly string[]): Document => ({
  resourceId,
  _id: { $nin: [...keep] },
});

export const viewsOfResourceFilter = (resourceId: number): Document => ({ resourceId });

export const VIEWS_OF_RESOURCE_SORT: SortOrder = { viewKey: 1 };

/** The one view a page reads from, and its counters: its audience sets are few, whatever its size. */
export const viewFilter = (q: Pick<ViewPageQuery, 'viewKey' | 'projectId'>): Document => ({
  viewKey: q.viewKey,
  projectId: q.projectId,
});

/** The audience sets of the view that admit the caller; all of them for 'everything'. */
export function admittedKeys(q: Pick<ViewPageQuery, 'audience'>, keysInView: readonly unknown[]): string[] {
  return admittedAmong(
    q.audience,
    keysInView.filter((key): key is string => typeof key === 'string'),
  ).sort();
}

// A NUL byte is spelt out: the server refuses a pattern that holds one (BadValue, "Regular
// expression cannot contain an embedded null byte"), which would make a search a 500.
const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\0/g, '\\x00');

/**
 * The page's filter, given the admitted audience keys (ignored for 'everything'). `$in` over the
 * scalar audienceKey (not the audience array) lets the audience indexes serve a sparse caller
 * with merged, already-sorted index ranges. The concept is matched case-sensitively against the
 * lower-cased search terms, exactly as the SQLite adapter's instr() does: a case-insensitive
 * regex folds some characters differently from toLowerCase.
 */
export function pageFilter(q: ViewPageQuery, keys: readonly string[]): Document {
  const filter: Document = { viewKey: q.viewKey, projectId: q.projectId };
  if (q.audience.kind !== 'everything') filter.audienceKey = { $in: [...keys] };
  if (q.paragraphId !== null) filter.paragraph = q.paragraphId;
  if (q.concept !== null) filter.search = { $regex: escapeRegex(q.concept) };
  if (q.tags.length > 0) filter.tagsLower = { $in: [...q.tags] };
  if (q.after) Object.assign(filter, afterFilter(q.orderBy, q.after));
  return filter;
}

/** The rows after `key` in the page's order (isAfter in resource-view-store.ts). */
export function afterFilter(orderBy: ViewPageQuery['orderBy'], key: ViewPageKey): Document {
  if (orderBy === 0) return { resourceId: { $gt: key.resourceId } };
  return {
    $or: [{ postDate: { $lt: key.postDate } }, { postDate: key.postDate, resourceId: { $lt: key.resourceId } }],
  };
}

export function pageSort(orderBy: ViewPageQuery['orderBy']): SortOrder {
  return orderBy === 0 ? { resourceId: 1 } : { postDate: -1, resourceId: -1 };
}

/**
 * The resource document, written after its views (see MongoResourceViewStore.putResource). A
 * tombstone keeps the project id the live document had.
 */
export function resourceWrite(resourceId: number, resource: Resource | null, position: bigint): GuardedUpsert {
  return resource
    ? guardedUpsert(resourceId, position, { projectId: resource.scope.projectId, resource })
    : guardedUpsert(resourceId, position, { resource: null }, { projectId: 0 });
}

export const liveResourcesOfProjectFilter = (projectId: number): Document => ({ projectId, resource: { $ne: null } });

export const RESOURCES_OF_PROJECT_SORT: SortOrder = { _id: 1 };

export function projectLinkWrite(link: ProjectLink, removed: boolean, position: bigint): GuardedUpsert {
  return guardedUpsert(link.communityProjectId, position, {
    communityId: link.communityId,
    projectId: link.projectId,
    removed,
  });
}

export const projectCommunitiesFilter = (projectId: number): Document => ({ projectId, removed: false });

export const PROJECT_COMMUNITIES_SORT: SortOrder = { communityId: 1 };

/**
 * The page indexes mirror the SQLite adapter's: by id and by recency for callers admitted to much
 * of the view (and 'everything'), the same behind the audience key for the few admitted to
 * little of it, and one with the paragraph for paragraph pages and their counts.
 */
export const RESOURCE_INDEXES: Readonly<Record<string, IndexDescription[]>> = {
  [RESOURCE_VIEWS]: [
    { name: 'by_id', key: { viewKey: 1, projectId: 1, resourceId: 1 } },
    { name: 'by_recent', key: { viewKey: 1, projectId: 1, postDate: -1, resourceId: -1 } },
    { name: 'by_audience_id', key: { viewKey: 1, projectId: 1, audienceKey: 1, resourceId: 1 } },
    { name: 'by_audience_recent', key: { viewKey: 1, projectId: 1, audienceKey: 1, postDate: -1, resourceId: -1 } },
    { name: 'by_paragraph_audience', key: { viewKey: 1, projectId: 1, paragraph: 1, audienceKey: 1, resourceId: 1 } },
    { name: 'by_resource', key: { resourceId: 1 } },
  ],
  [RESOURCES]: [{ name: 'by_project', key: { projectId: 1, _id: 1 } }],
  [RESOURCE_VIEW_COUNTS]: [{ name: 'by_view', key: { viewKey: 1, projectId: 1 } }],
  [PROJECT_LINKS]: [
    { name: 'by_project', key: { projectId: 1, communityId: 1 }, partialFilterExpression: { removed: false } },
  ],
};

import { canEditPrivacyOnProject, canEditResource, canEditResourcesFlag } from './access/permissions';
import type { View } from './access/views';
import { administersView, principalsFor, viewKey } from './access/views';
import type { Viewer } from '../directory/viewer';
import type { ResourceListAnswer, ResourceRecord } from './resource-record';
import { inRecordOrder } from './resource-record';
import { apiFieldsIn } from './resource-fields';
import { notFound } from '../domain/errors';
import type { Resource } from './resource';
import type { PageRequest } from '../projections/paging';
import { JsonText } from '../contract/json-text';
import type { DirectoryReader } from '../directory/directory-reader';
import { viewRecords } from './resource-projection';
import type { ResourceViewRecord, ResourceViews, ViewPageKey } from './resource-view-store';

export type ResourceListQuery = {
  projectId: number;
  communityId: number | null;
  paragraphId: number | null;
  concept: string | null;
  tags: readonly string[];
  orderBy: 0 | 1;
  page: PageRequest;
  /** Keyset paging: the page starts after this resource's place (a cursor's), skip being 0. */
  after: ViewPageKey | null;
};

const COMMA = Buffer.from(',');

/** Maps view documents to records, resolving every community name they mention in one query. */
export async function toRecords(
  directory: DirectoryReader,
  viewer: Viewer,
  docs: readonly ResourceViewRecord[],
): Promise<ResourceRecord[]> {
  const editable = docs.map((d) => canEditResource(viewer, d));
  const ids = docs.flatMap((d, i) => [
    ...(d.originCommunityId === null ? [] : [d.originCommunityId]),
    ...(editable[i] ? d.shares.map((s) => s.communityId) : []),
  ]);
  const communities = await directory.communities(ids);
  const nameOf = (id: number) => communities.get(id)?.name ?? '';
  return docs.map((d, i) =>
    inRecordOrder({
      id: d.resourceId,
      ...apiFieldsIn(d),
      resourceType: d.resourceType,
      image: d.image,
      postDate: d.postDate,
      lastUpdated: d.lastUpdated,
      privacyLevel: d.privacyLevel,
      effectivePrivacyLevel: d.effectivePrivacyLevel,
      originCommunityId: d.originCommunityId,
      originCommunityName: d.originCommunityId === null ? null : nameOf(d.originCommunityId),
      currentlySharedWith: editable[i]
        ? d.shares.map((s) => ({
            communityId: s.communityId,
            communityName: nameOf(s.communityId),
            privacyLevel: s.privacyLevel,
          }))
        : [],
      canEdit: editable[i] ?? false,
      isProjectScoped: d.scope.kind === 'project',
      isCommunityProjectScoped: d.scope.kind === 'communityProject',
      projectId: d.projectId,
      communityProjectId: d.communityProjectId,
      paragraphId: d.paragraphId,
    }),
  );
}

/**
 * A record's JSON (UTF-8 bytes) for a caller who may not edit it and for one who may, as of one
 * state of the directory (its names). Bytes, so that an answer is one copy of them (JsonText).
 */
type RecordTexts = { readonly version: string; plain?: Buffer; editor?: Buffer };

/**
 * Record texts by view document: a store hands out the same document object while it keeps the
 * row (the view index keeps the documents of the pages it served), so a changed resource is a new
 * key, and an unused one is collected. A document read again (a search's) is a new key.
 */
const recordTexts = new WeakMap<ResourceViewRecord, RecordTexts>();

/**
 * The records' JSON texts as this caller gets them. A record depends on the caller only through
 * whether they may edit it (canEdit, currentlySharedWith), so each document's two texts are kept
 * while the directory (the names in them) stays as it was; only the missing ones are built.
 */
export async function recordTextsOf(
  directory: DirectoryReader,
  viewer: Viewer,
  docs: readonly ResourceViewRecord[],
): Promise<Buffer[]> {
  const version = directory.version();
  const texts: (Buffer | undefined)[] = [];
  const missing: ResourceViewRecord[] = [];
  for (const doc of docs) {
    const kept = version === null ? undefined : recordTexts.get(doc);
    const text = kept?.version === version ? (canEditResource(viewer, doc) ? kept.editor : kept.plain) : undefined;
    texts.push(text);
    if (text === undefined) missing.push(doc);
  }
  if (missing.length === 0) return texts as Buffer[];
  const built = await toRecords(directory, viewer, missing);
  // Reading the names awaited: texts built while the directory moved are answered, not kept.
  const keep = version !== null && directory.version() === version;
  let next = 0;
  return texts.map((text, i) => {
    if (text !== undefined) return text;
    const record = built[next++] as ResourceRecord;
    const json = Buffer.from(JSON.stringify(record), 'utf8');
    if (keep) {
      const doc = docs[i] as ResourceViewRecord;
      let kept = recordTexts.get(doc);
      if (kept?.version !== version) {
        kept = { version };
        recordTexts.set(doc, kept);
      }
      if (record.canEdit) kept.editor = json;
      else kept.plain = json;
    }
    return json;
  });
}

/**
 * GetResourceList: the caller's view of a project, from the per-community visibility read model:
 * the ids of the page among the view's rows that admit the caller's principals, then those
 * records, written as the JSON text of the answer.
 */
export async function listResources(
  store: ResourceViews,
  directory: DirectoryReader,
  viewer: Viewer,
  query: ResourceListQuery,
  cursorAfter: (key: ViewPageKey) => string,
): Promise<JsonText<ResourceListAnswer>> {
  const project = await directory.project(query.projectId);
  if (!project) throw notFound(`project ${query.projectId} not found`);
  let view: View = { kind: 'project', project };
  if (query.communityId !== null) {
    const community = await directory.community(query.communityId);
    if (!community) throw notFound(`community ${query.communityId} not found`);
    view = { kind: 'community', project, community };
  }

  const page = await store.page({
    viewKey: viewKey(view),
    projectId: project.projectId,
    audience: administersView(viewer, view)
      ? { kind: 'everything' }
      : { kind: 'principals', principals: principalsFor(viewer, view) },
    paragraphId: query.paragraphId,
    concept: query.concept ? query.concept.toLowerCase() : null,
    tags: query.tags.map((t) => t.toLowerCase()),
    orderBy: query.orderBy,
    skip: query.page.skip,
    // One more than asked: whether another page follows, so the last page says so (nextCursor null).
    take: query.page.take === 0 ? 0 : query.page.take + 1,
    after: query.after,
  });
  const more = page.list.length > query.page.take;
  const list = more ? page.list.slice(0, query.page.take) : page.list;
  const last = list.at(-1);
  const nextCursor = more && last ? cursorAfter({ resourceId: last.resourceId, postDate: last.postDate }) : null;
  // Adding "inside a community" needs the project to be in it (SaveProjectResource answers 400
  // otherwise): from a community the project is not in, only the team may add (project resources).
  const addingCommunityId =
    query.communityId !== null && project.communityIds.includes(query.communityId) ? query.communityId : null;
  const flags = {
    canEditResources: canEditResourcesFlag(viewer, project.projectId, addingCommunityId),
    canEditPrivacy: canEditPrivacyOnProject(viewer, project.projectId, query.communityId),
    paragraphId: query.paragraphId,
  } satisfies Omit<ResourceListAnswer, 'resources'>;
  const records = await recordTextsOf(directory, viewer, list);
  // The answer's text, its fields in the order the answer object would have written them, made
  // as one buffer from the records' bytes.
  const head = Buffer.from(`${JSON.stringify(flags).slice(0, -1)},"resources":{"count":${page.count},"list":[`, 'utf8');
  const parts: Buffer[] = [head];
  for (const record of records) {
    if (parts.length > 1) parts.push(COMMA);
    parts.push(record);
  }
  parts.push(Buffer.from(`],"nextCursor":${JSON.stringify(nextCursor)}}}`, 'utf8'));
  return new JsonText(Buffer.concat(parts));
}

/** The record of a resource just saved, seen from its owning view (own level governs). */
export async function savedResourceRecord(
  directory: DirectoryReader,
  viewer: Viewer,
  resource: Resource,
): Promise<ResourceRecord> {
  const owningKey =
    resource.scope.kind === 'project' ? `p:${resource.scope.projectId}` : `c:${resource.scope.communityId}`;
  const docs = viewRecords(resource, []);
  const own = docs.find((d) => d.viewKey === owningKey) ?? docs[0];
  if (!own) throw new Error(`resource ${resource.resourceId} has no owning view`);
  const [record] = await toRecords(directory, viewer, [own]);
  if (!record) throw new Error('no record');
  return record;
}

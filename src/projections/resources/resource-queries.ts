import { canEditPrivacyOnProject, canEditResource, canEditResourcesFlag } from '../../domain/access/permissions';
import type { View } from '../../domain/access/views';
import { administersView, principalsFor, viewKey } from '../../domain/access/views';
import type { Viewer } from '../../domain/access/viewer';
import type { ResourceListAnswer, ResourceRecord } from '../../contract/resource-record';
import { notFound } from '../../domain/errors';
import type { Resource } from '../../domain/resource/resource';
import type { PageRequest } from '../paging';
import type { DirectoryReader } from '../directory/directory-reader';
import { viewRecords } from './resource-projection';
import type { ResourceViewRecord, ResourceViewStore } from './resource-view-store';

export type ResourceListQuery = {
  projectId: number;
  communityId: number | null;
  paragraphId: number | null;
  concept: string | null;
  tags: readonly string[];
  orderBy: 0 | 1;
  page: PageRequest;
};

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
  return docs.map((d, i) => ({
    id: d.resourceId,
    name: d.name,
    description: d.description,
    resourceUrl: d.resourceUrl,
    resourceType: d.resourceType,
    image: d.image,
    icon: d.icon,
    postDate: d.postDate,
    lastUpdated: d.lastUpdated,
    resourceTags: [...d.resourceTags],
    privacyLevel: d.privacyLevel,
    effectivePrivacyLevel: d.effectivePrivacyLevel,
    originCommunityId: d.originCommunityId,
    originCommunityName: d.originCommunityId === null ? null : nameOf(d.originCommunityId),
    currentlySharedWith: editable[i]
      ? d.shares.map((s) => ({ communityId: s.communityId, communityName: nameOf(s.communityId), privacyLevel: s.privacyLevel }))
      : [],
    canEdit: editable[i] ?? false,
    isProjectScoped: d.scope.kind === 'project',
    isCommunityProjectScoped: d.scope.kind === 'communityProject',
    projectId: d.projectId,
    communityProjectId: d.communityProjectId,
    paragraphId: d.paragraphId,
  }));
}

/**
 * GetResourceList: the caller's view of a project, answered by one indexed query on the
 * per-community visibility read model: the caller's principals against each view's audience set.
 */
export async function listResources(
  store: ResourceViewStore,
  directory: DirectoryReader,
  viewer: Viewer,
  query: ResourceListQuery,
): Promise<ResourceListAnswer> {
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
    audience: administersView(viewer, view) ? { kind: 'everything' } : { kind: 'principals', principals: principalsFor(viewer, view) },
    paragraphId: query.paragraphId,
    concept: query.concept ? query.concept.toLowerCase() : null,
    tags: query.tags.map((t) => t.toLowerCase()),
    orderBy: query.orderBy,
    skip: query.page.skip,
    take: query.page.take,
  });
  // Adding "inside a community" needs the project to be in it (SaveProjectResource answers 400
  // otherwise): from a community the project is not in, only the team may add (project resources).
  const addingCommunityId =
    query.communityId !== null && project.communityIds.includes(query.communityId) ? query.communityId : null;
  return {
    canEditResources: canEditResourcesFlag(viewer, project.projectId, addingCommunityId),
    canEditPrivacy: canEditPrivacyOnProject(viewer, project.projectId, query.communityId),
    paragraphId: query.paragraphId,
    resources: { count: page.count, list: await toRecords(directory, viewer, page.list) },
  };
}

/** The record of a resource just saved, seen from its owning view (own level governs). */
export async function savedResourceRecord(directory: DirectoryReader, viewer: Viewer, resource: Resource): Promise<ResourceRecord> {
  const owningKey = resource.scope.kind === 'project' ? `p:${resource.scope.projectId}` : `c:${resource.scope.communityId}`;
  const docs = viewRecords(resource, []);
  const own = docs.find((d) => d.viewKey === owningKey) ?? docs[0];
  if (!own) throw new Error(`resource ${resource.resourceId} has no owning view`);
  const [record] = await toRecords(directory, viewer, [own]);
  if (!record) throw new Error('no record');
  return record;
}

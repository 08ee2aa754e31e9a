import type { ResourceEvent } from '../../domain/resource/resource-events';
import { RESOURCE_EVENT_TYPES } from '../../domain/resource/resource-events';
import { evolve, initialState } from '../../domain/resource/resource-evolve';
import type { Resource } from '../../domain/resource/resource';
import { viewsOf } from '../../domain/resource/resource-views';
import type { RecordedEvent } from '../../infra/event-store/event-store';
import type { IndexSpec, ReadStore } from '../../infra/read-store/read-store';
import type { Projection } from '../projection';
import type { ProjectLinkDoc, ResourceDoc, ResourceViewDoc } from './resource-collections';
import { RES } from './resource-collections';

const indexes: IndexSpec[] = [
  // The list query: one view, one project, the caller's principals, then the order asked for.
  { collection: RES.views, keys: { viewKey: 1, projectId: 1, audience: 1, resourceId: 1 }, name: 'list_by_id' },
  { collection: RES.views, keys: { viewKey: 1, projectId: 1, audience: 1, postDate: -1, resourceId: -1 }, name: 'list_recent' },
  { collection: RES.views, keys: { resourceId: 1 }, name: 'by_resource' },
  { collection: RES.resources, keys: { projectId: 1 }, name: 'by_project' },
  { collection: RES.projectLinks, keys: { projectId: 1 }, name: 'by_project' },
];

const resourceTypes: ReadonlySet<string> = new Set(RESOURCE_EVENT_TYPES);

async function projectCommunities(store: ReadStore, projectId: number): Promise<number[]> {
  const links = await store.collection<ProjectLinkDoc>(RES.projectLinks).find({ projectId }, { sort: { communityId: 1 } });
  return [...new Set(links.map((l) => l.communityId))];
}

export function viewDocs(resource: Resource, communities: readonly number[]): ResourceViewDoc[] {
  const scope = resource.scope;
  return viewsOf(resource, communities).map((view) => ({
    _id: `${resource.resourceId}|${view.viewKey}`,
    resourceId: resource.resourceId,
    viewKey: view.viewKey,
    viewCommunityId: view.communityId,
    projectId: scope.projectId,
    communityProjectId: scope.kind === 'communityProject' ? scope.communityProjectId : null,
    ownerCommunityId: scope.kind === 'communityProject' ? scope.communityId : null,
    paragraphId: resource.paragraphId,
    name: resource.name,
    description: resource.description,
    resourceUrl: resource.resourceUrl,
    resourceType: resource.resourceType,
    image: resource.image,
    icon: resource.icon,
    scope: resource.scope,
    resourceTags: [...resource.tags],
    tagsLower: resource.tags.map((t) => t.toLowerCase()),
    postDate: resource.postDate,
    lastUpdated: resource.lastUpdated,
    privacyLevel: resource.owner.privacyLevel,
    effectivePrivacyLevel: view.effectivePrivacyLevel,
    governedBy: view.governedBy,
    circles: [...view.circles],
    originCommunityId: view.originCommunityId,
    createdBy: resource.createdBy,
    createdByMentor: resource.createdByMentor,
    shares: resource.shares.map((s) => ({ communityId: s.communityId, privacyLevel: s.privacyLevel })),
    audience: [...view.audience],
  }));
}

async function writeViews(store: ReadStore, resource: Resource): Promise<void> {
  const views = store.collection<ResourceViewDoc>(RES.views);
  const docs = viewDocs(resource, await projectCommunities(store, resource.scope.projectId));
  const keep = new Set(docs.map((d) => d._id));
  const existing = await views.find({ resourceId: resource.resourceId });
  for (const old of existing) if (!keep.has(old._id)) await views.deleteOne({ _id: old._id });
  for (const doc of docs) await views.upsert(doc);
}

async function reprojectProject(store: ReadStore, projectId: number): Promise<void> {
  const docs = await store.collection<ResourceDoc>(RES.resources).find({ projectId });
  for (const doc of docs) await writeViews(store, doc.resource);
}

/**
 * Folds each resource's events with the domain's own `evolve` and materialises one view
 * document per community (or project-wide view) it can be seen from. A project joining or
 * leaving a community re-projects that project's resources.
 */
export const resourceProjection: Projection = {
  name: 'resources',
  collections: Object.values(RES),
  indexes,
  async apply(recorded: RecordedEvent, store: ReadStore): Promise<void> {
    if (recorded.type === 'CommunityProjectUpserted' || recorded.type === 'CommunityProjectRemoved') {
      const data = recorded.data as { communityProjectId: number; communityId?: number; projectId?: number };
      const links = store.collection<ProjectLinkDoc>(RES.projectLinks);
      const id = `cp:${data.communityProjectId}`;
      const previous = await links.findOne({ _id: id });
      if (recorded.type === 'CommunityProjectUpserted' && data.communityId !== undefined && data.projectId !== undefined) {
        await links.upsert({ _id: id, communityProjectId: data.communityProjectId, communityId: data.communityId, projectId: data.projectId });
        await reprojectProject(store, data.projectId);
      } else {
        await links.deleteOne({ _id: id });
      }
      if (previous && previous.projectId !== data.projectId) await reprojectProject(store, previous.projectId);
      return;
    }
    if (!recorded.streamId.startsWith('resource-') || !resourceTypes.has(recorded.type)) return;

    const resources = store.collection<ResourceDoc>(RES.resources);
    const event = { type: recorded.type, data: recorded.data, metadata: recorded.metadata } as ResourceEvent;
    const resourceId = (event.data as { resourceId: number }).resourceId;
    const docId = `r:${resourceId}`;
    const current = await resources.findOne({ _id: docId });
    if (current && BigInt(current.lastPosition) >= recorded.position) return;
    if (!current && event.type !== 'ResourceCreated') {
      // Already deleted (a replay after the delete was applied): nothing left to change.
      return;
    }
    const before = current ? { status: 'active' as const, resource: current.resource } : initialState;
    const after = evolve(before, event);
    if (after.status !== 'active') {
      await resources.deleteOne({ _id: docId });
      await store.collection<ResourceViewDoc>(RES.views).deleteMany({ resourceId });
      return;
    }
    await resources.upsert({
      _id: docId,
      resourceId: after.resource.resourceId,
      projectId: after.resource.scope.projectId,
      resource: after.resource,
      lastPosition: recorded.position.toString(),
    });
    await writeViews(store, after.resource);
  },
};

import type { ResourceEventData } from './resource-events';
import { RESOURCE_EVENT_TYPES, RESOURCE_STREAM_PREFIX } from './resource-events';
import { evolve, initialState } from './resource-evolve';
import type { Resource } from './resource';
import { apiFieldsOf } from './resource-fields';
import { viewsOf } from './access/resource-views';
import { DIRECTORY_STREAM } from '../directory/directory-events';
import type { DirectoryEvent } from '../directory/directory-events';
import type { RecordedEvent } from '../ports/event-store';
import { foldingProjection, type ReadModelProjection } from '../projections/read-model-projection';
import type { ResourceViewRecord, ResourceViewWriter } from './resource-view-store';
import { audienceKeyOf } from './resource-view-store';

/** A resource's own events, and the directory's links of projects to communities (which views a resource has). */
const foldedTypes: ReadonlySet<string> = new Set([
  ...RESOURCE_EVENT_TYPES,
  'CommunityProjectUpserted',
  'CommunityProjectRemoved',
]);

/** Every view of a resource as the read model stores it. Pure: both adapters store the same records. */
export function viewRecords(resource: Resource, communities: readonly number[]): ResourceViewRecord[] {
  const scope = resource.scope;
  return viewsOf(resource, communities).map((view) => {
    // The editable fields named where stored rows have always had them (a read model's digest
    // hashes a row's text, so its key order must not move); one added since goes after the tags.
    const { name, description, resourceUrl, icon, resourceTags, ...added } = apiFieldsOf(resource);
    return {
      resourceId: resource.resourceId,
      viewKey: view.viewKey,
      viewCommunityId: view.communityId,
      scope: resource.scope,
      projectId: scope.projectId,
      communityProjectId: scope.kind === 'communityProject' ? scope.communityProjectId : null,
      ownerCommunityId: scope.kind === 'communityProject' ? scope.communityId : null,
      paragraphId: resource.paragraphId,
      name,
      description,
      resourceUrl,
      resourceType: resource.resourceType,
      image: resource.image,
      icon,
      resourceTags,
      tagsLower: resource.tags.map((t) => t.toLowerCase()),
      ...added,
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
      audienceKey: audienceKeyOf(view.audience),
    };
  });
}

async function reprojectProject(
  store: ResourceViewWriter,
  projectId: number,
  communities: readonly number[],
): Promise<void> {
  for (const resource of await store.resourcesOfProject(projectId)) {
    await store.replaceViews(resource.resourceId, viewRecords(resource, communities));
  }
}

/**
 * Folds each resource's events with the domain's own `evolve` and materialises one view per
 * community (or project-wide view) it can be seen from. A project joining or leaving a community
 * re-projects that project's resources. Every write is guarded by the event's position (a
 * deleted resource keeps a tombstone), so replaying any range of the log changes nothing.
 */
type CommunityProjectEvent = Extract<DirectoryEvent, { type: 'CommunityProjectUpserted' | 'CommunityProjectRemoved' }>;

export function resourceProjection(store: ResourceViewWriter): ReadModelProjection {
  return foldingProjection<ResourceEventData | CommunityProjectEvent>({
    name: 'resources',
    store: store.projectionStore,
    selects: {
      types: foldedTypes,
      streams: (streamId) => streamId === DIRECTORY_STREAM || streamId.startsWith(RESOURCE_STREAM_PREFIX),
    },
    fold: (event, recorded) =>
      isLinkEvent(event) ? relinkProject(store, event, recorded.position) : foldResourceEvent(store, event, recorded),
    ...(store.readAhead && {
      readAhead: (events) => {
        const resources = events.filter((event) => !isLinkEvent(event)) as ResourceEventData[];
        return store.readAhead!(
          [...new Set(resources.map((event) => event.data.resourceId))],
          [
            ...new Set(
              resources.flatMap((event) => (event.type === 'ResourceCreated' ? [event.data.scope.projectId] : [])),
            ),
          ],
        );
      },
    }),
  });
}

const isLinkEvent = (event: ResourceEventData | CommunityProjectEvent): event is CommunityProjectEvent =>
  event.type === 'CommunityProjectUpserted' || event.type === 'CommunityProjectRemoved';

/** A project joined or left a community: its resources' views follow. */
async function relinkProject(store: ResourceViewWriter, event: CommunityProjectEvent, position: bigint): Promise<void> {
  const previous = await store.projectLink(event.data.communityProjectId);
  if (previous && previous.position >= position) return;
  const upserted = event.type === 'CommunityProjectUpserted';
  const link = upserted
    ? {
        communityProjectId: event.data.communityProjectId,
        communityId: event.data.communityId,
        projectId: event.data.projectId,
      }
    : {
        communityProjectId: event.data.communityProjectId,
        communityId: previous?.communityId ?? 0,
        projectId: previous?.projectId ?? 0,
      };
  // The views first, the link (with the event's position) last: a crash in between leaves
  // the link looking unapplied, so a replay re-projects again (MongoDB has no transaction).
  const before = previous && !previous.removed ? previous : undefined;
  const affected = new Set([link.projectId, ...(before ? [before.projectId] : [])]);
  for (const projectId of affected) {
    if (projectId === 0) continue;
    const communities = new Set(await store.projectCommunities(projectId));
    if (before && before.projectId === projectId) communities.delete(before.communityId);
    if (upserted && link.projectId === projectId) communities.add(link.communityId);
    await reprojectProject(
      store,
      projectId,
      [...communities].sort((a, b) => a - b),
    );
  }
  await store.writeProjectLink(link, !upserted, position);
}

/** One event of a resource's stream, folded with the domain's `evolve` onto the stored state. */
async function foldResourceEvent(
  store: ResourceViewWriter,
  event: ResourceEventData,
  recorded: RecordedEvent,
): Promise<void> {
  const resourceId = event.data.resourceId;
  const current = await store.stored(resourceId);
  if (current && current.position >= recorded.position) return;
  if (current && current.resource === null) return;
  const before = current?.resource ? { status: 'active' as const, resource: current.resource } : initialState;
  if (before.status === 'initial' && event.type !== 'ResourceCreated') return;
  const after = evolve(before, event);
  if (after.status !== 'active') {
    await store.putResource(resourceId, null, recorded.position, []);
    return;
  }
  const communities = await store.projectCommunities(after.resource.scope.projectId);
  await store.putResource(resourceId, after.resource, recorded.position, viewRecords(after.resource, communities));
}

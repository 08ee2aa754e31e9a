import {
  canChangeOwnerPrivacy,
  canSeeGrantedCircles,
  canSeeResourcePrivacyShare,
  canSeeShareCandidates,
  canShareCrossCommunity,
} from '../resources/access/permissions';
import type { View } from '../resources/access/views';
import type { ResourceInView } from '../resources/access/resource-read-access';
import { canReadResourceIn } from '../resources/access/resource-read-access';
import type { CircleFacts, CommunityFacts, ProjectFacts, Viewer } from '../directory/viewer';
import { notFound } from '../domain/errors';
import type { PrivacyLevel } from '../resources/access/privacy-policy';
import { takesCircles } from '../resources/access/privacy-policy';
import type { CircleRef, PrivacyBlock } from '../resources/resource';
import { owningCommunityId } from '../resources/resource';
import { shareCandidateIds } from './share-candidates';
import type { CircleGroup, ResourcePrivacyAnswer } from './privacy-answer-schemas';
import type { DirectoryReader } from '../directory/directory-reader';
import type { ResourceViews, ResourceWithViews } from '../resources/resource-view-store';

/**
 * Gathers the facts of GetResourcePrivacy's read rule (src/resources/access/resource-read-access.ts):
 * the resource's views from the visibility read model, with their communities from the directory.
 */
export async function canReadResource(
  directory: DirectoryReader,
  viewer: Viewer,
  { resource, views: docs }: ResourceWithViews,
  project: ProjectFacts,
): Promise<boolean> {
  const communityIds = docs.flatMap((d) => (d.viewCommunityId === null ? [] : [d.viewCommunityId]));
  const communities = await directory.communities(communityIds);
  const views = docs.map((doc): ResourceInView => {
    const community = doc.viewCommunityId === null ? undefined : communities.get(doc.viewCommunityId);
    const view: View | null =
      doc.viewCommunityId === null
        ? { kind: 'project', project }
        : community
          ? { kind: 'community', project, community }
          : null;
    return {
      view,
      visibility: {
        viewKey: doc.viewKey,
        communityId: doc.viewCommunityId,
        governedBy: doc.governedBy,
        effectivePrivacyLevel: doc.effectivePrivacyLevel as PrivacyLevel,
        circles: doc.circles,
        originCommunityId: doc.originCommunityId,
        audience: doc.audience,
      },
    };
  });
  return canReadResourceIn(viewer, resource, views);
}

/** Circles are listed only at a level that takes them: a block off Custom grants none. */
const grantedCircles = (block: PrivacyBlock): readonly CircleRef[] =>
  takesCircles(block.privacyLevel) ? block.circles : [];

/**
 * Groups granted circles by the project or community they belong to, as the grant named it:
 * project groups first, then community groups, each in id order, circles in id order. Names come
 * from the directory; a circle it never described (a project's built-in team or mentors circle can
 * be such) is listed with empty names and as active, as the viewer rules count it.
 */
function circleGroups(
  circles: readonly CircleRef[],
  facts: ReadonlyMap<number, CircleFacts>,
  projectNames: ReadonlyMap<number, string>,
  communities: ReadonlyMap<number, CommunityFacts>,
): CircleGroup[] {
  const groups = new Map<string, { sort: [number, number]; group: CircleGroup }>();
  for (const ref of [...circles].sort((a, b) => a.circleId - b.circleId)) {
    const isProject = ref.projectId !== null;
    const ownerId = (isProject ? ref.projectId : ref.communityId) ?? 0;
    const key = `${isProject ? 'p' : 'c'}:${ownerId}`;
    let entry = groups.get(key);
    if (!entry) {
      const name = isProject ? (projectNames.get(ownerId) ?? '') : (communities.get(ownerId)?.name ?? '');
      entry = {
        sort: [isProject ? 0 : 1, ownerId],
        group: { name, isProject, isCommunity: !isProject, privacyCircles: [] },
      };
      groups.set(key, entry);
    }
    const circle = facts.get(ref.circleId);
    entry.group.privacyCircles.push({
      id: ref.circleId,
      name: circle?.name ?? '',
      longName: circle?.longName ?? '',
      isActive: circle?.isActive ?? true,
      projectId: ref.projectId,
      communityId: ref.communityId,
    });
  }
  return [...groups.values()].sort((a, b) => a.sort[0] - b.sort[0] || a.sort[1] - b.sort[1]).map((e) => e.group);
}

/**
 * GetResourcePrivacy: the own level and its circles, the shares the caller may see, and where the
 * resource could still be shared. 404 for an unknown resource and for one the caller cannot see.
 *
 * Who sees what of the answer: the team and the owning community's admins see
 * every share and every candidate; an admin of a shared-into community sees that community's
 * share; anyone else who can read the resource gets empty `shares` and `shareCandidates`.
 */
export async function getResourcePrivacy(
  store: ResourceViews,
  directory: DirectoryReader,
  viewer: Viewer,
  resourceId: number,
): Promise<ResourcePrivacyAnswer> {
  const read = await store.resourceWithViews(resourceId);
  const missing = () => notFound(`resource ${resourceId} not found`);
  if (!read) throw missing();
  const { resource } = read;
  const project = await directory.project(resource.scope.projectId);
  if (!project) throw missing();
  if (!(await canReadResource(directory, viewer, read, project))) throw missing();

  const owning = owningCommunityId(resource);
  const shares = [...resource.shares]
    .filter((s) => canSeeResourcePrivacyShare(viewer, resource, s.communityId))
    .sort((a, b) => a.communityId - b.communityId);
  const candidates = canSeeShareCandidates(viewer, resource) ? shareCandidateIds(resource, project.communityIds) : [];

  const granted = [grantedCircles(resource.owner), ...shares.map(grantedCircles)].flat();
  const projectIds = [...new Set(granted.flatMap((c) => (c.projectId === null ? [] : [c.projectId])))];
  const communityIds = [
    ...(owning === null ? [] : [owning]),
    ...shares.map((s) => s.communityId),
    ...candidates,
    ...granted.flatMap((c) => (c.communityId === null ? [] : [c.communityId])),
  ];
  const [circleFacts, communities, projectNames] = await Promise.all([
    directory.circles(granted.map((c) => c.circleId)),
    directory.communities(communityIds),
    projectNamesOf(directory, project, projectIds),
  ]);
  const nameOf = (communityId: number) => communities.get(communityId)?.name ?? '';
  const groups = (block: PrivacyBlock) => circleGroups(grantedCircles(block), circleFacts, projectNames, communities);

  return {
    resourceId: resource.resourceId,
    isProjectScoped: resource.scope.kind === 'project',
    owningCommunityId: owning,
    owningCommunityName: owning === null ? null : nameOf(owning),
    owner: {
      privacyLevel: resource.owner.privacyLevel,
      circles: canSeeGrantedCircles(viewer, resource) ? groups(resource.owner) : [],
    },
    shares: shares.map((s) => ({
      communityId: s.communityId,
      communityName: nameOf(s.communityId),
      privacyLevel: s.privacyLevel,
      circles: canSeeGrantedCircles(viewer, resource, s.communityId) ? groups(s) : [],
    })),
    shareCandidates: candidates
      .sort((a, b) => a - b)
      .map((communityId) => ({ communityId, communityName: nameOf(communityId) })),
    canEdit: canChangeOwnerPrivacy(viewer, resource),
    canShareCrossCommunity: canShareCrossCommunity(viewer, resource),
  };
}

/** Names of the projects whose circles are granted: nearly always only the resource's own project. */
async function projectNamesOf(
  directory: DirectoryReader,
  project: ProjectFacts,
  projectIds: readonly number[],
): Promise<Map<number, string>> {
  const names = new Map<number, string>([[project.projectId, project.name]]);
  const others = projectIds.filter((id) => id !== project.projectId);
  const loaded = await Promise.all(others.map((id) => directory.project(id)));
  for (const p of loaded) if (p) names.set(p.projectId, p.name);
  return names;
}

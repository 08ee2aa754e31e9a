import { principal } from './principals';
import type { CommunityFacts, ProjectFacts, Viewer } from '../../directory/viewer';
import { isApprovedMember, isCommunityAdmin, isMentor, isTeam } from '../../directory/viewer';

/**
 * A view is where a caller looks at a project's resources from: project-wide, or from one
 * community. The view decides which resources are in scope and
 * which privacy block governs each of them.
 */
export type View =
  | { readonly kind: 'project'; readonly project: ProjectFacts }
  | { readonly kind: 'community'; readonly project: ProjectFacts; readonly community: CommunityFacts };

/** `p:<projectId>` or `c:<communityId>`: the key of a resource's view document. */
export function viewKey(view: View): string {
  return view.kind === 'project'
    ? projectViewKey(view.project.projectId)
    : communityViewKey(view.community.communityId);
}

export const projectViewKey = (projectId: number): string => `p:${projectId}`;
export const communityViewKey = (communityId: number): string => `c:${communityId}`;

/**
 * "Reach": what level Public (1) asks for. A community view is reached through the community
 * alone; a project view through the project, its people, or any community it belongs to.
 */
export function reachesView(viewer: Viewer, view: View): boolean {
  if (view.kind === 'community') {
    return view.community.visibility === 'public' || isApprovedMember(viewer, view.community.communityId);
  }
  const { project } = view;
  return (
    project.visibility === 'public' ||
    isTeam(viewer, project.projectId) ||
    isMentor(viewer, project.projectId) ||
    project.communityIds.some((communityId) => isApprovedMember(viewer, communityId))
  );
}

/** The caller's principals in this view, to match against a resource view's audience. */
export function principalsFor(viewer: Viewer, view: View): string[] {
  const projectId = view.project.projectId;
  const principals: string[] = [];
  if (reachesView(viewer, view)) principals.push(principal.public);
  if (isTeam(viewer, projectId)) principals.push(principal.team(projectId));
  if (isMentor(viewer, projectId)) {
    principals.push(principal.mentor(projectId));
    // The creator of a resource edits (hence sees) it while on the team or a mentor of its
    // project, whatever role they created it with: the team principal covers the team, and the
    // author principal, granted per view for this project only, covers the mentors.
    principals.push(principal.author(viewer.userId));
  }
  for (const [communityId, membership] of viewer.communities) {
    if (membership.status !== 'approved') continue;
    principals.push(principal.member(communityId));
    if (membership.role === 'admin') principals.push(principal.admin(communityId));
  }
  for (const circleId of viewer.circles) principals.push(principal.circle(circleId));
  return principals;
}

/** A community's administrators see everything inside their own community. */
export function administersView(viewer: Viewer, view: View): boolean {
  return view.kind === 'community' && isCommunityAdmin(viewer, view.community.communityId);
}

/**
 * The caller and the directory records the rules look at, as plain facts. Someone else loads them
 * from the directory read model (live, on every request); the rules only read them, so they stay
 * pure and a directory change takes effect on the caller's next request without re-projection.
 */
export type CommunityMembership = {
  readonly role: 'member' | 'admin';
  readonly status: 'pending' | 'approved';
};

export type Viewer = {
  readonly userId: number;
  readonly communities: ReadonlyMap<number, CommunityMembership>;
  readonly projects: ReadonlyMap<number, 'team' | 'mentor'>;
  /** Active circles the viewer belongs to, including the built-in team/mentors circles of their projects. */
  readonly circles: ReadonlySet<number>;
};

export type ProjectFacts = {
  readonly projectId: number;
  readonly name: string;
  readonly visibility: 'public' | 'private';
  readonly teamCircleId: number;
  readonly mentorsCircleId: number;
  /** The communities the project belongs to. */
  readonly communityIds: readonly number[];
};

export type CommunityFacts = {
  readonly communityId: number;
  readonly name: string;
  readonly visibility: 'public' | 'private';
};

export type CircleFacts = {
  readonly circleId: number;
  readonly name: string;
  readonly longName: string;
  readonly isActive: boolean;
  readonly projectId: number | null;
  readonly communityId: number | null;
};

/** A pending request to join grants nothing: only approved members count. */
export function isApprovedMember(viewer: Viewer, communityId: number): boolean {
  return viewer.communities.get(communityId)?.status === 'approved';
}

/** A community administrator is an approved member whose role is admin; a pending or refused one is not. */
export function isCommunityAdmin(viewer: Viewer, communityId: number): boolean {
  const membership = viewer.communities.get(communityId);
  return membership?.status === 'approved' && membership.role === 'admin';
}

export function isTeam(viewer: Viewer, projectId: number): boolean {
  return viewer.projects.get(projectId) === 'team';
}

export function isMentor(viewer: Viewer, projectId: number): boolean {
  return viewer.projects.get(projectId) === 'mentor';
}

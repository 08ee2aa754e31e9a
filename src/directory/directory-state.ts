import type { CircleFacts, CommunityFacts, CommunityMembership, ProjectFacts, Viewer } from './viewer';
import type { AccountStatus } from '../domain/auth/caller';
import type { DirectoryEvent } from './directory-events';
import { DIRECTORY_EVENT_TYPES } from './directory-events';

/**
 * The directory as it stood after a prefix of the `directory` stream, folded in memory: what an
 * as-of access review (src/audit/access-review.ts) judges with. It answers the same
 * questions as the live directory read model (`viewer`, `project`, `community`) with the same
 * semantics, so that a review of "now" agrees with what the service serves.
 */
export type DirectoryUser = {
  readonly userId: number;
  readonly name: string;
  readonly status: AccountStatus;
  readonly platformRoles: readonly string[];
};

type ProjectRecord = Omit<ProjectFacts, 'communityIds'>;
type CommunityProjectRecord = { readonly communityId: number; readonly projectId: number };

export type DirectoryState = {
  readonly users: ReadonlyMap<number, DirectoryUser>;
  readonly communities: ReadonlyMap<number, CommunityFacts>;
  readonly projects: ReadonlyMap<number, ProjectRecord>;
  readonly communityProjects: ReadonlyMap<number, CommunityProjectRecord>;
  readonly circles: ReadonlyMap<number, CircleFacts>;
  /** Keyed by user, so that one user's viewer is a few lookups. */
  readonly membershipsByUser: ReadonlyMap<number, ReadonlyMap<number, CommunityMembership>>;
  readonly projectRolesByUser: ReadonlyMap<number, ReadonlyMap<number, 'team' | 'mentor'>>;
  readonly circlesByUser: ReadonlyMap<number, ReadonlySet<number>>;
};

type Mutable = {
  users: Map<number, DirectoryUser>;
  communities: Map<number, CommunityFacts>;
  projects: Map<number, ProjectRecord>;
  communityProjects: Map<number, CommunityProjectRecord>;
  circles: Map<number, CircleFacts>;
  membershipsByUser: Map<number, Map<number, CommunityMembership>>;
  projectRolesByUser: Map<number, Map<number, 'team' | 'mentor'>>;
  circlesByUser: Map<number, Set<number>>;
};

const inner = <K, V>(outer: Map<number, Map<K, V>>, userId: number): Map<K, V> => {
  let map = outer.get(userId);
  if (!map) outer.set(userId, (map = new Map()));
  return map;
};

type Folded = Iterable<{ readonly type: string; readonly data: unknown }>;

/**
 * Folds directory events, oldest first, into a fresh state. Events of other types are skipped.
 * The state is built by mutation for speed (the stream can be long) but never escapes before the
 * fold ends, so the function is pure: same events, same state.
 */
export function foldDirectory(events: Folded): DirectoryState {
  const fold = directoryFold();
  fold.add(events);
  return fold.state();
}

/**
 * `foldDirectory` a page at a time, for a stream read in pages: only the state is held, never the
 * events already folded. `state()` ends the fold.
 */
export function directoryFold(): { add(events: Folded): void; state(): DirectoryState } {
  const s: Mutable = {
    users: new Map(),
    communities: new Map(),
    projects: new Map(),
    communityProjects: new Map(),
    circles: new Map(),
    membershipsByUser: new Map(),
    projectRolesByUser: new Map(),
    circlesByUser: new Map(),
  };
  let ended = false;
  return {
    add(events) {
      if (ended) throw new Error('the directory fold has ended');
      for (const event of events) {
        if (DIRECTORY_EVENT_TYPES.has(event.type)) apply(s, event as DirectoryEvent);
      }
    },
    state() {
      ended = true;
      return s;
    },
  };
}

// Upserts replace the whole record and removals delete it, as the directory projection does.
function apply(s: Mutable, event: DirectoryEvent): void {
  switch (event.type) {
    case 'UserUpserted': {
      const { userId, name, status, platformRoles } = event.data;
      s.users.set(userId, { userId, name, status, platformRoles: platformRoles ?? [] });
      return;
    }
    case 'CommunityUpserted':
      s.communities.set(event.data.communityId, { ...event.data });
      return;
    case 'CommunityMemberSet':
      inner(s.membershipsByUser, event.data.userId).set(event.data.communityId, {
        role: event.data.role,
        status: event.data.status,
      });
      return;
    case 'CommunityMemberRemoved':
      s.membershipsByUser.get(event.data.userId)?.delete(event.data.communityId);
      return;
    case 'ProjectUpserted':
      s.projects.set(event.data.projectId, { ...event.data });
      return;
    case 'ProjectMemberSet':
      inner(s.projectRolesByUser, event.data.userId).set(event.data.projectId, event.data.role);
      return;
    case 'ProjectMemberRemoved':
      s.projectRolesByUser.get(event.data.userId)?.delete(event.data.projectId);
      return;
    case 'CommunityProjectUpserted':
      s.communityProjects.set(event.data.communityProjectId, {
        communityId: event.data.communityId,
        projectId: event.data.projectId,
      });
      return;
    case 'CommunityProjectRemoved':
      s.communityProjects.delete(event.data.communityProjectId);
      return;
    case 'CircleUpserted':
      s.circles.set(event.data.circleId, { ...event.data });
      return;
    case 'CircleMemberSet': {
      let set = s.circlesByUser.get(event.data.userId);
      if (!set) s.circlesByUser.set(event.data.userId, (set = new Set()));
      set.add(event.data.circleId);
      return;
    }
    case 'CircleMemberRemoved':
      s.circlesByUser.get(event.data.userId)?.delete(event.data.circleId);
      return;
    case 'ParagraphUpserted':
    case 'ApplicationDefinitionUpserted':
    case 'ApplicationUpserted':
      // Not part of who may see what.
      return;
    default: {
      const _exhaustive: never = event;
      return _exhaustive;
    }
  }
}

export function communityOf(state: DirectoryState, communityId: number): CommunityFacts | null {
  return state.communities.get(communityId) ?? null;
}

/** A project with the communities it belongs to, ascending (as the live directory answers). */
export function projectOf(state: DirectoryState, projectId: number): ProjectFacts | null {
  const project = state.projects.get(projectId);
  if (!project) return null;
  const communityIds = new Set<number>();
  for (const link of state.communityProjects.values())
    if (link.projectId === projectId) communityIds.add(link.communityId);
  return { ...project, communityIds: [...communityIds].sort((a, b) => a - b) };
}

/**
 * The user as the access rules see them. Same semantics as the live directory's viewer: a
 * project's built-in team and mentors circles count as circles of its team and mentors; a circle
 * counts only while active, and a built-in circle the feed never described counts as active.
 */
export function viewerOf(state: DirectoryState, userId: number): Viewer {
  const projects = new Map(state.projectRolesByUser.get(userId) ?? []);
  const builtIn = new Set<number>();
  for (const [projectId, role] of projects) {
    const project = state.projects.get(projectId);
    if (project) builtIn.add(role === 'team' ? project.teamCircleId : project.mentorsCircleId);
  }
  const circles = new Set<number>();
  for (const circleId of new Set([...(state.circlesByUser.get(userId) ?? []), ...builtIn])) {
    const circle = state.circles.get(circleId);
    if (circle ? circle.isActive : builtIn.has(circleId)) circles.add(circleId);
  }
  return { userId, communities: new Map(state.membershipsByUser.get(userId) ?? []), projects, circles };
}

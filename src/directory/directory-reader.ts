import type { Viewer } from './viewer';
import type { DirectoryStore } from './directory-store';

/**
 * The directory as the rules need it: the store's answers, and the caller as a Viewer, read live
 * on every request so that a directory change (someone leaves a team, joins a circle) takes
 * effect on their next call.
 */
export class DirectoryReader {
  readonly user;
  readonly community;
  readonly communities;
  readonly project;
  readonly communityProject;
  readonly communityProjectOf;
  readonly paragraph;
  readonly circles;

  constructor(private readonly store: DirectoryStore) {
    this.user = store.user.bind(store);
    this.community = store.community.bind(store);
    this.communities = store.communities.bind(store);
    this.project = store.project.bind(store);
    this.communityProject = store.communityProject.bind(store);
    this.communityProjectOf = store.communityProjectOf.bind(store);
    this.paragraph = store.paragraph.bind(store);
    this.circles = store.circles.bind(store);
  }

  /** See DirectoryStore.version: null where nothing read from the directory may be remembered. */
  version(): string | null {
    return this.store.version?.() ?? null;
  }

  /**
   * A project's built-in team and mentors circles count as circles of its team and mentors; a
   * circle counts only while active (a built-in circle the feed never described counts as active).
   */
  async viewer(userId: number): Promise<Viewer> {
    const memberships = await this.store.memberships(userId);
    const builtIn = new Set(
      memberships.projects.flatMap((p) => {
        const circle = p.role === 'team' ? p.teamCircleId : p.mentorsCircleId;
        return circle === null ? [] : [circle];
      }),
    );
    const candidates = [...new Set([...memberships.circleIds, ...builtIn])];
    const described = await this.store.circles(candidates);
    const circles = new Set(
      candidates.filter((id) => {
        const circle = described.get(id);
        return circle ? circle.isActive : builtIn.has(id);
      }),
    );
    return {
      userId,
      communities: new Map(
        memberships.communities.map((c) => [c.communityId, { role: c.role, status: c.status }] as const),
      ),
      projects: new Map(memberships.projects.map((p) => [p.projectId, p.role] as const)),
      circles,
    };
  }
}

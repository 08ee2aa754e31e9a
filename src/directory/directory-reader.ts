import { KeptByVersion } from '../projections/kept-by-version';
import type { CircleFacts, CommunityFacts, ProjectFacts, Viewer } from './viewer';
import type { CommunityProjectRecord, DirectoryStore, ParagraphRecord, UserRecord } from './directory-store';

/**
 * How many facts of each kind are kept. Each caller takes a user and a viewer (a few hundred
 * bytes each); 12,000 hold 5,000 active callers with room to spare, and the platform's
 * communities, projects and circles are far fewer than their bounds.
 */
const KEPT = {
  users: 12_000,
  viewers: 12_000,
  communities: 4_000,
  projects: 4_000,
  circles: 8_000,
  links: 8_000,
  paragraphs: 8_000,
} as const;

/**
 * The directory as the rules need it: the store's answers, and the caller as a Viewer.
 *
 * What it reads is kept while the directory stays as it was (the store's version, which moves
 * with every directory change, this process's or another's): a caller's viewer, their user
 * record, the communities, projects, circles, links and paragraphs asked about. A list request
 * asked all of them again on every call, and with remembered answers off (READ_MEMO=off) those
 * reads were a quarter of its time (docs/benchmarks.md "What the figures decided"). These are facts of the
 * directory, not answers, so READ_MEMO does not govern them, as it does not govern the view
 * index: a directory change (someone leaves a team, joins a circle) still takes effect on the
 * next request, because any change moves the version and nothing older is served. Where the
 * store gives no version (null: inside a write transaction, or an adapter that cannot tell),
 * everything is read live.
 */
export class DirectoryReader {
  private readonly users = new KeptByVersion<number, UserRecord | null>(KEPT.users);
  private readonly viewers = new KeptByVersion<number, Viewer>(KEPT.viewers);
  private readonly communityFacts = new KeptByVersion<number, CommunityFacts | null>(KEPT.communities);
  private readonly projects = new KeptByVersion<number, ProjectFacts | null>(KEPT.projects);
  private readonly circleFacts = new KeptByVersion<number, CircleFacts | null>(KEPT.circles);
  private readonly links = new KeptByVersion<number, CommunityProjectRecord | null>(KEPT.links);
  /** By "project id:community id". */
  private readonly linksOf = new KeptByVersion<string, CommunityProjectRecord | null>(KEPT.links);
  private readonly paragraphs = new KeptByVersion<number, ParagraphRecord | null>(KEPT.paragraphs);

  constructor(private readonly store: DirectoryStore) {}

  /** See DirectoryStore.version: null where nothing read from the directory may be remembered. */
  version(): string | null {
    return this.store.version?.() ?? null;
  }

  user(userId: number): Promise<UserRecord | null> {
    return this.one(this.users, userId, () => this.store.user(userId));
  }

  community(communityId: number): Promise<CommunityFacts | null> {
    return this.one(this.communityFacts, communityId, () => this.store.community(communityId));
  }

  /** The project with the communities it belongs to, in id order. */
  project(projectId: number): Promise<ProjectFacts | null> {
    return this.one(this.projects, projectId, () => this.store.project(projectId));
  }

  communityProject(communityProjectId: number): Promise<CommunityProjectRecord | null> {
    return this.one(this.links, communityProjectId, () => this.store.communityProject(communityProjectId));
  }

  /** The link that puts `projectId` in `communityId` (the lowest id when there are several). */
  communityProjectOf(projectId: number, communityId: number): Promise<CommunityProjectRecord | null> {
    return this.one(this.linksOf, `${projectId}:${communityId}`, () =>
      this.store.communityProjectOf(projectId, communityId),
    );
  }

  paragraph(paragraphId: number): Promise<ParagraphRecord | null> {
    return this.one(this.paragraphs, paragraphId, () => this.store.paragraph(paragraphId));
  }

  communities(communityIds: readonly number[]): Promise<Map<number, CommunityFacts>> {
    return this.many(this.communityFacts, communityIds, (ids) => this.store.communities(ids));
  }

  circles(circleIds: readonly number[]): Promise<Map<number, CircleFacts>> {
    return this.many(this.circleFacts, circleIds, (ids) => this.store.circles(ids));
  }

  /**
   * A project's built-in team and mentors circles count as circles of its team and mentors; a
   * circle counts only while active (a built-in circle the feed never described counts as active).
   */
  viewer(userId: number): Promise<Viewer> {
    return this.one(this.viewers, userId, () => this.readViewer(userId));
  }

  private async readViewer(userId: number): Promise<Viewer> {
    const memberships = await this.store.memberships(userId);
    const builtIn = new Set(
      memberships.projects.flatMap((p) => {
        const circle = p.role === 'team' ? p.teamCircleId : p.mentorsCircleId;
        return circle === null ? [] : [circle];
      }),
    );
    const candidates = [...new Set([...memberships.circleIds, ...builtIn])];
    const described = await this.circles(candidates);
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

  /** A fact as kept at the directory's version, or read (and kept only if the directory did not move meanwhile). */
  private async one<T, K extends number | string>(
    kept: KeptByVersion<K, T>,
    id: K,
    read: () => Promise<T>,
  ): Promise<T> {
    const version = this.version();
    if (version === null) return read();
    const hit = kept.get(id, version);
    if (hit !== undefined) return hit;
    const value = await read();
    if (this.version() === version) kept.set(id, version, value);
    return value;
  }

  /** Facts by id: the kept ones, and the rest read in one call of the store (absent ids are kept as absent). */
  private async many<T>(
    kept: KeptByVersion<number, T | null>,
    ids: readonly number[],
    read: (ids: readonly number[]) => Promise<Map<number, T>>,
  ): Promise<Map<number, T>> {
    const version = this.version();
    if (version === null) return read(ids);
    const found = new Map<number, T>();
    const missing: number[] = [];
    for (const id of new Set(ids)) {
      const hit = kept.get(id, version);
      if (hit === undefined) missing.push(id);
      else if (hit !== null) found.set(id, hit);
    }
    if (missing.length === 0) return found;
    const fresh = await read(missing);
    const keep = this.version() === version;
    for (const id of missing) {
      const value = fresh.get(id) ?? null;
      if (keep) kept.set(id, version, value);
      if (value !== null) found.set(id, value);
    }
    return found;
  }
}

import type { CircleFacts, CommunityFacts, ProjectFacts } from './viewer';
import type { ProjectionStore } from '../projections/read-model-projection';
import type { DirectoryChange, Memberships } from './directory-records';

export type UserRecord = {
  readonly userId: number;
  readonly name: string;
  readonly status: 'active' | 'inactive' | 'banned';
  readonly platformRoles: readonly string[];
};

export type CommunityProjectRecord = {
  readonly communityProjectId: number;
  readonly communityId: number;
  readonly projectId: number;
};

export type ParagraphRecord = {
  readonly paragraphId: number;
  readonly projectId: number;
  readonly communityId: number | null;
};

/**
 * The directory read model (people, communities, projects, circles, paragraphs), asked the
 * questions the service asks. Every answer is a primary-key or indexed-key lookup.
 */
export interface DirectoryStore {
  readonly projectionStore: ProjectionStore;
  user(userId: number): Promise<UserRecord | null>;
  community(communityId: number): Promise<CommunityFacts | null>;
  communities(communityIds: readonly number[]): Promise<Map<number, CommunityFacts>>;
  /** The project with the communities it belongs to, in id order. */
  project(projectId: number): Promise<ProjectFacts | null>;
  communityProject(communityProjectId: number): Promise<CommunityProjectRecord | null>;
  communityProjectOf(projectId: number, communityId: number): Promise<CommunityProjectRecord | null>;
  paragraph(paragraphId: number): Promise<ParagraphRecord | null>;
  circles(circleIds: readonly number[]): Promise<Map<number, CircleFacts>>;
  memberships(userId: number): Promise<Memberships>;
  /** Applies one event's change unless the stored record is already at a later position. */
  write(change: DirectoryChange, position: bigint): Promise<void>;
  /**
   * Moves whenever the directory changes, for what is kept derived from it (the names in a list
   * record's text); absent, or null, where nothing may be kept.
   */
  version?(): string | null;
}

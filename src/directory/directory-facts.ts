import type { CircleFacts, CommunityFacts, ProjectFacts, Viewer } from './viewer';

/**
 * What the commands ask of the directory, owned here so that they depend on a port rather than
 * on a read model: the composition root hands in the directory reader, which fits it as it is.
 */
export interface DirectoryFacts {
  /** The caller as the rules see them, read live. */
  viewer(userId: number): Promise<Viewer>;
  project(projectId: number): Promise<ProjectFacts | null>;
  /** Only the circles that exist: a missing id is unknown to the directory. */
  circles(circleIds: readonly number[]): Promise<ReadonlyMap<number, CircleFacts>>;
  /** Only the communities that exist. */
  communities(communityIds: readonly number[]): Promise<ReadonlyMap<number, CommunityFacts>>;
}

type CommunityProjectLink = {
  readonly projectId: number;
  readonly communityId: number;
  readonly communityProjectId: number;
};

/** What resolving a new resource's scope shape asks of the directory besides the facts above. */
export interface ScopeDirectory extends DirectoryFacts {
  community(communityId: number): Promise<CommunityFacts | null>;
  communityProject(communityProjectId: number): Promise<CommunityProjectLink | null>;
  communityProjectOf(projectId: number, communityId: number): Promise<CommunityProjectLink | null>;
  paragraph(paragraphId: number): Promise<{ readonly projectId: number; readonly communityId: number | null } | null>;
}

import type { CircleFacts, CommunityFacts, ProjectFacts } from './viewer';
import { getMany, type DocumentStore } from '../projections/document-store';
import type { ProjectionStore } from '../projections/read-model-projection';
import {
  CIRCLES,
  COMMUNITIES,
  COMMUNITY_PROJECTS,
  LINKS_OF_PROJECT,
  MEMBERSHIPS,
  PARAGRAPHS,
  PROJECTS,
  USERS,
  type MembershipsDocument,
} from './directory-projection';

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

/** A project the caller belongs to, with its built-in circles: being on it puts them in one. */
export type ProjectMembership = {
  readonly projectId: number;
  readonly role: 'team' | 'mentor';
  readonly teamCircleId: number | null;
  readonly mentorsCircleId: number | null;
};

/** Everything the directory says one user belongs to, each list in id order. */
export type Memberships = {
  readonly communities: MembershipsDocument['communities'];
  readonly projects: readonly ProjectMembership[];
  readonly circleIds: readonly number[];
};

/**
 * The directory read model (people, communities, projects, circles, paragraphs), asked the
 * questions the service asks. Every answer is a read by id or along a declared index.
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
  /**
   * Moves whenever the directory changes, for what is kept derived from it (the names in a list
   * record's text); absent, or null, where nothing may be kept.
   */
  version?(): string | null;
}

/** The stored community record, as the rules see it. */
const communityFactsOf = (c: CommunityFacts): CommunityFacts => ({
  communityId: c.communityId,
  name: c.name,
  visibility: c.visibility,
});

/** The stored circle record, as the rules see it. */
const circleFactsOf = (c: CircleFacts): CircleFacts => ({
  circleId: c.circleId,
  name: c.name,
  longName: c.longName,
  isActive: c.isActive,
  projectId: c.projectId,
  communityId: c.communityId,
});

/** A project's community links read by one query: a project has a handful; more are read by a second. */
const LINKS_PAGE = 100;

/** The directory read model's queries, read through the document store. */
export function directoryStore(documents: DocumentStore): DirectoryStore {
  const byId = async <R, F>(collection: string, ids: readonly number[], entry: (record: R) => readonly [number, F]) =>
    new Map(((await getMany(documents, collection, ids)) as R[]).map(entry));
  const links = (projectId: number, skip: number, take: number) =>
    documents.page(COMMUNITY_PROJECTS, { index: LINKS_OF_PROJECT, equal: [projectId], page: { skip, take } });
  /** A project's live links, in id order. */
  const linksOf = async (projectId: number) => {
    const first = await links(projectId, 0, LINKS_PAGE);
    const rest = first.count > first.list.length ? await links(projectId, first.list.length, first.count) : null;
    return [...first.list, ...(rest?.list ?? [])] as CommunityProjectRecord[];
  };
  const store: DirectoryStore = {
    projectionStore: documents.projectionStore,
    user: async (userId) => (await documents.get(USERS, userId)) as UserRecord | null,
    community: async (communityId) => {
      const record = (await documents.get(COMMUNITIES, communityId)) as CommunityFacts | null;
      return record && communityFactsOf(record);
    },
    communities: (ids) => byId(COMMUNITIES, ids, (c: CommunityFacts) => [c.communityId, communityFactsOf(c)]),
    project: async (projectId) => {
      // Both by the project's id: asked at once.
      const [record, links] = await Promise.all([documents.get(PROJECTS, projectId), linksOf(projectId)]);
      if (!record) return null;
      const { name, visibility, teamCircleId, mentorsCircleId } = record as Omit<ProjectFacts, 'communityIds'>;
      const communityIds = [...new Set(links.map((l) => l.communityId))].sort((a, b) => a - b);
      return { projectId, name, visibility, teamCircleId, mentorsCircleId, communityIds };
    },
    communityProject: async (id) => (await documents.get(COMMUNITY_PROJECTS, id)) as CommunityProjectRecord | null,
    communityProjectOf: async (projectId, communityId) =>
      (await linksOf(projectId)).find((link) => link.communityId === communityId) ?? null,
    paragraph: async (paragraphId) => (await documents.get(PARAGRAPHS, paragraphId)) as ParagraphRecord | null,
    circles: (ids) => byId(CIRCLES, ids, (c: CircleFacts) => [c.circleId, circleFactsOf(c)]),
    /*
     * The caller's document, then the built-in circles of their projects in one read: a project
     * upserted after its members cannot write into each member's document.
     */
    memberships: async (userId) => {
      const document = (await documents.get(MEMBERSHIPS, userId)) as MembershipsDocument | null;
      if (!document) return { communities: [], projects: [], circleIds: [] };
      const projects = (await getMany(
        documents,
        PROJECTS,
        document.projects.map((p) => p.projectId),
      )) as ProjectFacts[];
      const builtIn = new Map(projects.map((p) => [p.projectId, p]));
      return {
        communities: document.communities,
        projects: document.projects.map(({ projectId, role }) => ({
          projectId,
          role,
          teamCircleId: builtIn.get(projectId)?.teamCircleId ?? null,
          mentorsCircleId: builtIn.get(projectId)?.mentorsCircleId ?? null,
        })),
        circleIds: document.circleIds,
      };
    },
  };
  const { version } = documents;
  return version ? { ...store, version: () => version.call(documents) } : store;
}

import type { DirectoryEvent } from './directory-events';
import { DIRECTORY_STREAM } from './directory-events';
import type { CollectionDeclaration, Document, DocumentId, DocumentReadModel } from '../projections/document-store';
import { readScope } from '../projections/read-scopes';

/** The directory events this read model folds: all but the applications', which their own read model folds. */
type Folded = Exclude<DirectoryEvent, { type: 'ApplicationDefinitionUpserted' | 'ApplicationUpserted' }>;

export const USERS = 'dir_users';
export const COMMUNITIES = 'dir_communities';
export const PROJECTS = 'dir_projects';
export const COMMUNITY_PROJECTS = 'dir_community_projects';
export const CIRCLES = 'dir_circles';
export const PARAGRAPHS = 'dir_paragraphs';
/** One document per user: every community, project and circle they belong to. */
export const MEMBERSHIPS = 'dir_memberships';
/** A project's links to its communities, in id order. */
export const LINKS_OF_PROJECT = 'by_project';

const COLLECTIONS: readonly CollectionDeclaration[] = [
  { name: USERS, indexes: {} },
  { name: COMMUNITIES, indexes: {} },
  { name: PROJECTS, indexes: {} },
  {
    name: COMMUNITY_PROJECTS,
    indexes: { [LINKS_OF_PROJECT]: { equal: ['projectId'], order: [['communityProjectId', 1]] } },
  },
  { name: CIRCLES, indexes: {} },
  { name: PARAGRAPHS, indexes: {} },
  { name: MEMBERSHIPS, indexes: {} },
];

/**
 * A user's memberships document, each list in id order. A list request reads its caller's
 * memberships whenever DirectoryReader has not kept their viewer: one document by its id answers
 * what three lookups by user would.
 */
export type MembershipsDocument = {
  readonly userId: number;
  readonly communities: readonly { communityId: number; role: 'member' | 'admin'; status: 'pending' | 'approved' }[];
  readonly projects: readonly { projectId: number; role: 'team' | 'mentor' }[];
  readonly circleIds: readonly number[];
};

type MembershipEvent = Extract<Folded, { type: `${'Community' | 'Project' | 'Circle'}Member${string}` }>;

const isMembership = (event: Folded): event is MembershipEvent => /^(Community|Project|Circle)Member/.test(event.type);

/** The collection and id of the record an event upserts or removes (a membership's: see MEMBERSHIPS). */
function recordOf(event: Exclude<Folded, MembershipEvent>): { collection: string; id: DocumentId } {
  switch (event.type) {
    case 'UserUpserted':
      return { collection: USERS, id: event.data.userId };
    case 'CommunityUpserted':
      return { collection: COMMUNITIES, id: event.data.communityId };
    case 'ProjectUpserted':
      return { collection: PROJECTS, id: event.data.projectId };
    case 'CommunityProjectUpserted':
    case 'CommunityProjectRemoved':
      return { collection: COMMUNITY_PROJECTS, id: event.data.communityProjectId };
    case 'CircleUpserted':
      return { collection: CIRCLES, id: event.data.circleId };
    case 'ParagraphUpserted':
      return { collection: PARAGRAPHS, id: event.data.paragraphId };
    default: {
      const unexpected: never = event;
      throw new Error(`unknown directory event ${(unexpected as { type: string }).type}`);
    }
  }
}

/** `list` with the entry of `id` replaced by `entry` (null: left out), in id order. */
function setEntry<T>(list: readonly T[], idOf: (entry: T) => number, id: number, entry: T | null): T[] {
  const rest = list.filter((e) => idOf(e) !== id);
  return (entry === null ? rest : [...rest, entry]).sort((a, b) => idOf(a) - idOf(b));
}

function evolveMemberships(document: MembershipsDocument | null, event: MembershipEvent): MembershipsDocument | null {
  const { userId } = event.data;
  const current = document ?? { userId, communities: [], projects: [], circleIds: [] };
  const next: MembershipsDocument = (() => {
    switch (event.type) {
      case 'CommunityMemberSet':
      case 'CommunityMemberRemoved': {
        const { communityId } = event.data;
        const entry =
          event.type === 'CommunityMemberSet'
            ? { communityId, role: event.data.role, status: event.data.status }
            : null;
        return { ...current, communities: setEntry(current.communities, (c) => c.communityId, communityId, entry) };
      }
      case 'ProjectMemberSet':
      case 'ProjectMemberRemoved': {
        const { projectId } = event.data;
        const entry = event.type === 'ProjectMemberSet' ? { projectId, role: event.data.role } : null;
        return { ...current, projects: setEntry(current.projects, (p) => p.projectId, projectId, entry) };
      }
      case 'CircleMemberSet':
      case 'CircleMemberRemoved': {
        const { circleId } = event.data;
        const entry = event.type === 'CircleMemberSet' ? circleId : null;
        return { ...current, circleIds: setEntry(current.circleIds, (c) => c, circleId, entry) };
      }
      default: {
        const unexpected: never = event;
        throw new Error(`unknown membership event ${(unexpected as { type: string }).type}`);
      }
    }
  })();
  return next.communities.length + next.projects.length + next.circleIds.length === 0 ? null : next;
}

/**
 * The directory read model: each user, community, project, community-project link, circle and
 * paragraph stored whole as its last upsert gave it, by its id, and each user's memberships as
 * one document. A removal leaves no document: where there was one, the runner keeps a tombstone
 * at the event's position, so replaying an older event cannot bring it back.
 */
export const DIRECTORY_READ_MODEL: DocumentReadModel<Folded> = {
  /**
   * Not 'directory': that checkpoint counted the tables of the hand-written adapters before these
   * documents, which its collections do not hold. Under a name of its own the projection finds no
   * checkpoint in a read database written before them and folds the log from its start into them;
   * the old tables are no longer read.
   */
  name: 'directory-documents',
  canHandle: {
    types: new Set<Folded['type']>([
      'UserUpserted',
      'CommunityUpserted',
      'CommunityMemberSet',
      'CommunityMemberRemoved',
      'ProjectUpserted',
      'ProjectMemberSet',
      'ProjectMemberRemoved',
      'CommunityProjectUpserted',
      'CommunityProjectRemoved',
      'CircleUpserted',
      'CircleMemberSet',
      'CircleMemberRemoved',
      'ParagraphUpserted',
    ]),
    streams: (streamId) => streamId === DIRECTORY_STREAM,
  },
  collections: COLLECTIONS,
  // Every caller's principals and every name in a list are read from it.
  scope: readScope.directory,
  documentsOf: (event) => [isMembership(event) ? { collection: MEMBERSHIPS, id: event.data.userId } : recordOf(event)],
  evolve: (_collection, document, event): Document | null => {
    if (isMembership(event)) return evolveMemberships(document as MembershipsDocument | null, event);
    switch (event.type) {
      case 'UserUpserted':
        return { ...event.data, platformRoles: event.data.platformRoles ?? [] };
      case 'CommunityProjectRemoved':
        return null;
      default:
        return event.data;
    }
  },
};

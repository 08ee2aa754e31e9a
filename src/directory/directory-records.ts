import type { CircleFacts, CommunityFacts, ProjectFacts } from './viewer';
import type { DirectoryEvent } from './directory-events';

/**
 * The directory read model's record kinds: each is stored whole (an upsert replaces the record),
 * keyed by its ids, with the integer fields the queries look records up by.
 */
export const DIRECTORY_TABLES = {
  users: { key: ['userId'], columns: ['userId'] },
  communities: { key: ['communityId'], columns: ['communityId'] },
  communityMembers: { key: ['communityId', 'userId'], columns: ['communityId', 'userId'], lookup: 'userId' },
  projects: { key: ['projectId'], columns: ['projectId'] },
  projectMembers: { key: ['projectId', 'userId'], columns: ['projectId', 'userId'], lookup: 'userId' },
  communityProjects: {
    key: ['communityProjectId'],
    columns: ['communityProjectId', 'projectId', 'communityId'],
    lookup: 'projectId',
  },
  circles: { key: ['circleId'], columns: ['circleId'] },
  circleMembers: { key: ['circleId', 'userId'], columns: ['circleId', 'userId'], lookup: 'userId' },
  paragraphs: { key: ['paragraphId'], columns: ['paragraphId'] },
} as const satisfies Record<string, { key: readonly string[]; columns: readonly string[]; lookup?: string }>;

/** A project the caller belongs to, with its built-in circles: being on it puts them in one. */
export type ProjectMembership = {
  readonly projectId: number;
  readonly role: 'team' | 'mentor';
  readonly teamCircleId: number | null;
  readonly mentorsCircleId: number | null;
};

/** Everything the directory says one user belongs to, each list answered by a key lookup. */
export type Memberships = {
  readonly communities: readonly { communityId: number; role: 'member' | 'admin'; status: 'pending' | 'approved' }[];
  readonly projects: readonly ProjectMembership[];
  readonly circleIds: readonly number[];
};

export type DirectoryTable = keyof typeof DIRECTORY_TABLES;

export type DirectoryRecord = Readonly<Record<string, unknown>>;

/** What one directory event does to the read model: put a whole record, or remove one by its key. */
export type DirectoryChange = {
  readonly table: DirectoryTable;
  readonly op: 'put' | 'remove';
  readonly record: DirectoryRecord;
};

/**
 * The change a directory event makes; undefined for the events another read model folds
 * (applications). Pure, so every adapter applies the same change.
 */
export function directoryChange(event: DirectoryEvent): DirectoryChange | undefined {
  const put = (table: DirectoryTable, record: DirectoryRecord): DirectoryChange => ({ table, op: 'put', record });
  const remove = (table: DirectoryTable, record: DirectoryRecord): DirectoryChange => ({ table, op: 'remove', record });
  switch (event.type) {
    case 'UserUpserted':
      return put('users', { ...event.data, platformRoles: event.data.platformRoles ?? [] });
    case 'CommunityUpserted':
      return put('communities', event.data);
    case 'CommunityMemberSet':
      return put('communityMembers', event.data);
    case 'CommunityMemberRemoved':
      return remove('communityMembers', event.data);
    case 'ProjectUpserted':
      return put('projects', event.data);
    case 'ProjectMemberSet':
      return put('projectMembers', event.data);
    case 'ProjectMemberRemoved':
      return remove('projectMembers', event.data);
    case 'CommunityProjectUpserted':
      return put('communityProjects', event.data);
    case 'CommunityProjectRemoved':
      return remove('communityProjects', event.data);
    case 'CircleUpserted':
      return put('circles', event.data);
    case 'CircleMemberSet':
      return put('circleMembers', event.data);
    case 'CircleMemberRemoved':
      return remove('circleMembers', event.data);
    case 'ParagraphUpserted':
      return put('paragraphs', event.data);
    case 'ApplicationDefinitionUpserted':
    case 'ApplicationUpserted':
      return undefined;
    default: {
      const unexpected: never = event;
      throw new Error(`unknown directory event ${(unexpected as { type: string }).type}`);
    }
  }
}

/** A project record and its community links as the rules see it: the communities in id order. */
export function projectFactsOf(
  record: Omit<ProjectFacts, 'communityIds'>,
  links: readonly { readonly communityId: number }[],
): ProjectFacts {
  return {
    projectId: record.projectId,
    name: record.name,
    visibility: record.visibility,
    teamCircleId: record.teamCircleId,
    mentorsCircleId: record.mentorsCircleId,
    communityIds: [...new Set(links.map((l) => l.communityId))].sort((a, b) => a - b),
  };
}

/** The stored community record, as the rules see it. */
export function communityFactsOf(c: CommunityFacts): CommunityFacts {
  return { communityId: c.communityId, name: c.name, visibility: c.visibility };
}

/** The stored circle record, as the rules see it. */
export function circleFactsOf(c: CircleFacts): CircleFacts {
  return {
    circleId: c.circleId,
    name: c.name,
    longName: c.longName,
    isActive: c.isActive,
    projectId: c.projectId,
    communityId: c.communityId,
  };
}

type BuiltInCircles = { readonly teamCircleId: number; readonly mentorsCircleId: number };

/** One user's membership records, with the built-in circles of the projects they belong to. */
export function membershipsOf(
  communities: readonly Memberships['communities'][number][],
  projectRows: readonly { readonly projectId: number; readonly role: 'team' | 'mentor' }[],
  circleRows: readonly { readonly circleId: number }[],
  projectById: (projectId: number) => BuiltInCircles | null | undefined,
): Memberships {
  return {
    communities: communities.map((c) => ({ communityId: c.communityId, role: c.role, status: c.status })),
    projects: projectRows.map((p) => {
      const project = projectById(p.projectId);
      return {
        projectId: p.projectId,
        role: p.role,
        teamCircleId: project?.teamCircleId ?? null,
        mentorsCircleId: project?.mentorsCircleId ?? null,
      };
    }),
    circleIds: circleRows.map((c) => c.circleId),
  };
}

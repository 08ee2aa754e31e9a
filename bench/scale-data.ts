/**
 * The benchmark's data set, created through the service's own commands (directory feed, then
 * SaveProjectResource as the project's team) into a DATA_DIR (or a PostgreSQL schema), before the service
 * is started.
 *
 * Shape (scale 1): 100 communities, 500 projects, 5,000 users, 20,000 resources; project 1 holds a
 * fifth of them (4,000; 40,000 at 200k) in community 1's view, as one busy project on a platform
 * does; project 2 holds 32 resources. Users 10-284 are approved members of community 1 besides
 * their own community, users 285-559 are not: the many callers of the varied scenarios.
 */
import { ingestDirectoryEvents } from '../src/directory/ingest-directory-events';
import { saveProjectResource } from '../src/resources/project-resource-commands';
import { loadConfig } from '../src/config/config';
import { directoryBatchSchema } from '../src/directory/directory-events';
import { systemActor } from '../src/domain/event';
import { createLogger } from '../src/observability/logger';
import { createServices } from '../src/app/services';

export type Scale = {
  readonly communities: number;
  readonly projects: number;
  readonly users: number;
  readonly resources: number;
};

export const SCALES: Record<string, Scale> = {
  '5k': { communities: 20, projects: 50, users: 500, resources: 5_000 },
  '20k': { communities: 100, projects: 500, users: 5_000, resources: 20_000 },
  '200k': { communities: 200, projects: 5_000, users: 50_000, resources: 200_000 },
};

/** Who the benchmark asks as: each a different kind of caller of the big view. */
export const CALLERS = {
  team: 1, // team of projects 1 and 2
  member: 2, // approved member of community 1
  admin: 3, // admin of community 1
  outsider: 4, // no membership
  circleMember: 5, // member of community 1 and of circle 1 (granted on some resources)
} as const;

/**
 * The many callers of the varied list scenarios: 275 approved members of community 1 (made so by
 * the seed, besides their own community) and 275 users outside it, each with their own principals.
 */
export const MANY_CALLERS = {
  members: Array.from({ length: 275 }, (_, i) => 10 + i),
  outsiders: Array.from({ length: 275 }, (_, i) => 285 + i),
} as const;

const HOT_PROJECT = 1;
const SMALL_PROJECT = 2;
const HOT_COMMUNITY = 1;
/** One project holds a fifth of the platform's resources in one community view. */
const hotViewSize = (scale: Scale): number => scale.resources / 5;
const SMALL_VIEW_SIZE = 32;

type DirectoryEvent = { type: string; data: Record<string, unknown> };

function directory(scale: Scale): DirectoryEvent[] {
  const events: DirectoryEvent[] = [];
  for (let u = 1; u <= scale.users; u++)
    events.push({ type: 'UserUpserted', data: { userId: u, name: `User ${u}`, status: 'active' } });
  for (let c = 1; c <= scale.communities; c++) {
    events.push({
      type: 'CommunityUpserted',
      data: { communityId: c, name: `Community ${c}`, visibility: c % 2 === 0 ? 'private' : 'public' },
    });
  }
  for (let p = 1; p <= scale.projects; p++) {
    const community = communityOf(scale, p);
    events.push({
      type: 'ProjectUpserted',
      data: {
        projectId: p,
        name: `Project ${p}`,
        visibility: 'private',
        teamCircleId: 1_000_000 + p,
        mentorsCircleId: 2_000_000 + p,
      },
    });
    events.push({
      type: 'CommunityProjectUpserted',
      data: { communityProjectId: p, communityId: community, projectId: p },
    });
    // Every project's team: the first listed caller leads the hot projects; the others have a user of their own.
    events.push({ type: 'ProjectMemberSet', data: { projectId: p, userId: teamOf(scale, p), role: 'team' } });
  }
  events.push({
    type: 'CircleUpserted',
    data: {
      circleId: 1,
      name: 'Reviewers',
      longName: 'Reviewers of community 1',
      isActive: true,
      projectId: null,
      communityId: HOT_COMMUNITY,
    },
  });
  events.push({
    type: 'CommunityMemberSet',
    data: { communityId: HOT_COMMUNITY, userId: CALLERS.member, role: 'member', status: 'approved' },
  });
  events.push({
    type: 'CommunityMemberSet',
    data: { communityId: HOT_COMMUNITY, userId: CALLERS.admin, role: 'admin', status: 'approved' },
  });
  events.push({
    type: 'CommunityMemberSet',
    data: { communityId: HOT_COMMUNITY, userId: CALLERS.circleMember, role: 'member', status: 'approved' },
  });
  events.push({ type: 'CircleMemberSet', data: { circleId: 1, userId: CALLERS.circleMember } });
  for (const userId of MANY_CALLERS.members.filter((u) => u <= scale.users)) {
    events.push({
      type: 'CommunityMemberSet',
      data: { communityId: HOT_COMMUNITY, userId, role: 'member', status: 'approved' },
    });
  }
  // Everyone else belongs to one or two communities, so the directory has the size of a real one.
  for (let u = 10; u <= scale.users; u++) {
    events.push({
      type: 'CommunityMemberSet',
      data: { communityId: 1 + (u % scale.communities), userId: u, role: 'member', status: 'approved' },
    });
    if (u % 3 === 0)
      events.push({
        type: 'CommunityMemberSet',
        data: { communityId: 1 + ((u * 7) % scale.communities), userId: u, role: 'member', status: 'approved' },
      });
  }
  return events;
}

/** Levels of the hot view: mostly community (2), some public (1), team (3), and circle-only (4). */
function levelOf(i: number): { privacyLevel: number } {
  const r = i % 20;
  if (r < 12) return { privacyLevel: 2 };
  if (r < 16) return { privacyLevel: 1 };
  if (r < 19) return { privacyLevel: 3 };
  return { privacyLevel: 5 };
}

export async function seed(
  dataDir: string,
  scale: Scale,
  jwtSecret: string,
  directoryToken: string,
  log: (line: string) => void,
  /** POSTGRES_URL and POSTGRES_SCHEMA, when the data set goes to PostgreSQL. */
  backend: Record<string, string> = {},
): Promise<number> {
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    AUTH_JWT_SECRET: jwtSecret,
    DIRECTORY_SYNC_TOKEN: directoryToken,
    ...backend,
  });
  const services = await createServices(config, createLogger('silent'));
  try {
    const metadata = { actor: systemActor, correlationId: 'bench-seed', at: new Date().toISOString() };
    const events = directory(scale);
    let fed = 0n;
    for (let i = 0; i < events.length; i += 1000) {
      fed = await ingestDirectoryEvents(
        services.eventStore,
        directoryBatchSchema.parse({ events: events.slice(i, i + 1000) }),
        metadata,
      );
    }
    // The commands decide on the directory read model: it must hold the whole feed first.
    await services.readModels.waitFor(fed, 600_000);
    const plan: { projectId: number; teamUserId: number }[] = [];
    for (let i = 0; i < hotViewSize(scale); i++) plan.push({ projectId: HOT_PROJECT, teamUserId: CALLERS.team });
    for (let i = 0; i < SMALL_VIEW_SIZE; i++) plan.push({ projectId: SMALL_PROJECT, teamUserId: CALLERS.team });
    for (let i = plan.length; i < scale.resources; i++) {
      const projectId = 3 + (i % (scale.projects - 2));
      plan.push({ projectId, teamUserId: teamOf(scale, projectId) });
    }
    let next = 0;
    let last: bigint | undefined;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        for (let i = next++; i < plan.length; i = next++) {
          const { projectId, teamUserId } = plan[i] ?? { projectId: HOT_PROJECT, teamUserId: CALLERS.team };
          const caller = {
            userId: teamUserId,
            name: '',
            status: 'active' as const,
            platformRoles: [],
            actor: { userId: teamUserId, credential: 'session' as const },
          };
          const result = await saveProjectResource(services, { caller, correlationId: `seed-${i}` }, {
            id: 0,
            name: `Resource ${i}`,
            description: `Seeded resource number ${i}`,
            resourceUrl: `https://example.org/files/${i}.pdf`,
            icon: '',
            resourceTags: [`tag${i % 50}`],
            projectId,
            communityId: communityOf(scale, projectId),
            ...levelOf(i),
          } as never);
          const position = result.write?.position;
          if (position !== undefined && (last === undefined || position > last)) last = position;
          if (i % 10_000 === 0 && i > 0)
            log(`  seeded ${i} resources (${Math.round(i / ((performance.now() - started) / 1000))}/s)`);
        }
      }),
    );
    if (last !== undefined) await services.readModels.waitFor(last, 600_000);
    return plan.length;
  } finally {
    await services.close();
  }
}

export const VIEWS = { hotProject: HOT_PROJECT, smallProject: SMALL_PROJECT, hotCommunity: HOT_COMMUNITY, hotViewSize };

/** The project's team member who saves into it in the write-load scenarios (as the seed did). */
export const teamOf = (scale: Scale, projectId: number): number =>
  projectId <= SMALL_PROJECT ? CALLERS.team : 10 + (projectId % (scale.users - 10));

/** The community a seeded project belongs to. */
export const communityOf = (scale: Scale, projectId: number): number =>
  projectId <= SMALL_PROJECT ? HOT_COMMUNITY : 1 + (projectId % scale.communities);

/**
 * A small world for the resource rules: project P in communities O (owning), D (shared into) and
 * E (another community of P); N is a community P is not in. Circles: P's built-in team and
 * mentors circles, two more project circles (one inactive), one community circle per community,
 * and a circle of another project.
 */
import type { CircleFacts, CommunityFacts, ProjectFacts, Viewer } from '../../src/directory/viewer';
import type { DomainError, DomainErrorKind } from '../../src/domain/errors';
import type { PrivacyLevel } from '../../src/resources/access/privacy-policy';
import type { CircleRef, ResourceScope } from '../../src/resources/resource';
import type {
  ChangeResourcePrivacy,
  CreateResource,
  DeleteResource,
  OwnerPrivacyChange,
  ResourceCommand,
  ResourceDecisionContext,
  ShareUpsert,
  UpdateResource,
} from '../../src/resources/resource-commands';
import { resourceDecider } from '../../src/resources/resource-decide';
import type { BlockRef, ResourceEventData } from '../../src/resources/resource-events';
import { DeciderSpecification } from '../support/decider-specification';

export const P = 7;
export const OTHER_PROJECT = 8;
export const O = 10;
export const D = 20;
export const E = 30;
export const N = 40;
export const CP_ID = 100; // the community-project of P in O
export const RID = 1;
export const NOW = '2025-03-01T12:00:00.000Z';
export const EARLIER = '2025-01-01T00:00:00.000Z';

export const TEAM_CIRCLE = 71;
export const MENTORS_CIRCLE = 72;
export const P_CIRCLE = 501;
export const P_INACTIVE_CIRCLE = 502;
export const O_CIRCLE = 601;
export const D_CIRCLE = 602;
export const E_CIRCLE = 603;
export const N_CIRCLE = 604;
export const FOREIGN_PROJECT_CIRCLE = 801;

export const project: ProjectFacts = {
  projectId: P,
  name: 'Water for all',
  visibility: 'private',
  teamCircleId: TEAM_CIRCLE,
  mentorsCircleId: MENTORS_CIRCLE,
  communityIds: [O, D, E],
};

export const community = (communityId: number, visibility: 'public' | 'private' = 'private'): CommunityFacts => ({
  communityId,
  name: `community ${communityId}`,
  visibility,
});

const circleFacts = (
  circleId: number,
  projectId: number | null,
  communityId: number | null,
  isActive = true,
): CircleFacts => ({
  circleId,
  name: `circle ${circleId}`,
  longName: `circle ${circleId} (long)`,
  isActive,
  projectId,
  communityId,
});

export const circles: ReadonlyMap<number, CircleFacts> = new Map(
  [
    circleFacts(TEAM_CIRCLE, P, null),
    circleFacts(MENTORS_CIRCLE, P, null),
    circleFacts(P_CIRCLE, P, null),
    circleFacts(P_INACTIVE_CIRCLE, P, null, false),
    circleFacts(O_CIRCLE, null, O),
    circleFacts(D_CIRCLE, null, D),
    circleFacts(E_CIRCLE, null, E),
    circleFacts(N_CIRCLE, null, N),
    circleFacts(FOREIGN_PROJECT_CIRCLE, OTHER_PROJECT, null),
  ].map((c) => [c.circleId, c]),
);

/** The ref a client sends for a known circle. */
export const ref = (circleId: number): CircleRef => {
  const facts = circles.get(circleId);
  if (!facts) throw new Error(`no fixture circle ${circleId}`);
  return { circleId, projectId: facts.projectId, communityId: facts.communityId };
};

export type ViewerSpec = {
  team?: boolean;
  mentor?: boolean;
  approved?: readonly number[];
  pending?: readonly number[];
  admins?: readonly number[];
  circles?: readonly number[];
};

/** A viewer of project P; `circles` must already exclude inactive circles, as the directory reader does. */
export function viewer(userId: number, spec: ViewerSpec = {}): Viewer {
  const communities = new Map<number, { role: 'member' | 'admin'; status: 'pending' | 'approved' }>();
  for (const c of spec.approved ?? []) communities.set(c, { role: 'member', status: 'approved' });
  for (const c of spec.pending ?? []) communities.set(c, { role: 'member', status: 'pending' });
  for (const c of spec.admins ?? []) communities.set(c, { role: 'admin', status: 'approved' });
  const projects = new Map<number, 'team' | 'mentor'>();
  const own = new Set(spec.circles ?? []);
  if (spec.team) {
    projects.set(P, 'team');
    own.add(TEAM_CIRCLE);
  }
  if (spec.mentor) {
    projects.set(P, 'mentor');
    own.add(MENTORS_CIRCLE);
  }
  return { userId, communities, projects, circles: own };
}

export const team = viewer(1, { team: true });
export const mentor = viewer(2, { mentor: true });
export const owningAdmin = viewer(3, { admins: [O] });
export const sharedIntoAdmin = viewer(4, { admins: [D] });
export const otherCommunityAdmin = viewer(5, { admins: [E] });
export const approvedMember = viewer(6, { approved: [O, D, E] });
export const outsider = viewer(9);

/** The communities the directory knows: the project's, and N which the project is not in. */
export const UNKNOWN_COMMUNITY = 999;
export const knownCommunities: ReadonlySet<number> = new Set([...project.communityIds, N]);
export const context = (who: Viewer, now = NOW): ResourceDecisionContext => ({
  now,
  viewer: who,
  project,
  circles,
  knownCommunities,
});

/** A command as a test writes it, before `withContext` adds the facts it is decided with. */
export type Request<C> = C extends unknown ? Omit<C, 'facts'> : never;
export const withContext = (request: Request<ResourceCommand>, facts: ResourceDecisionContext): ResourceCommand =>
  ({ ...request, facts }) as ResourceCommand;

export const projectScope: ResourceScope = { kind: 'project', projectId: P };
export const communityScope: ResourceScope = {
  kind: 'communityProject',
  projectId: P,
  communityId: O,
  communityProjectId: CP_ID,
};

/** The resource every given starts from: community-project resource RID of O, the pump manual, Public. */
const pumpManual = {
  resourceId: RID,
  scope: communityScope,
  paragraphId: null,
  name: 'Pump manual',
  description: 'How to fix the pump',
  resourceUrl: 'resource_files/abc/manual.pdf',
  icon: 'book',
  tags: ['water'],
  privacyLevel: 1,
} as const;

export const createResource = (data: Partial<CreateResource['data']> = {}): Request<CreateResource> => ({
  type: 'CreateResource',
  data: { ...pumpManual, ...data },
});

/** What `updateResource()` sends: the pump manual's second version, at the same URL. */
const pumpManualV2 = {
  name: 'Pump manual v2',
  description: 'Now with pictures',
  resourceUrl: 'resource_files/abc/manual.pdf',
  icon: 'book',
  tags: ['water'],
} as const;

export const updateResource = (data: Partial<UpdateResource['data']> = {}): Request<UpdateResource> => ({
  type: 'UpdateResource',
  data: { resourceId: RID, ...pumpManualV2, privacyLevel: 1, ...data },
});

export const deleteResource = (resourceId = RID): Request<DeleteResource> => ({
  type: 'DeleteResource',
  data: { resourceId },
});

export const changePrivacy = (
  data: { owner?: OwnerPrivacyChange; sharesToUpsert?: ShareUpsert[]; sharesToRemove?: { communityId: number }[] } = {},
): Request<ChangeResourcePrivacy> => ({
  type: 'ChangeResourcePrivacy',
  data: { resourceId: RID, sharesToUpsert: [], sharesToRemove: [], ...data },
});

export const ownerBlock = (
  privacyLevel: number,
  circlesToAdd: CircleRef[] = [],
  circlesToRemove: CircleRef[] = [],
): OwnerPrivacyChange => ({
  privacyLevel,
  circlesToAdd,
  circlesToRemove,
});

export const shareBlock = (
  communityId: number,
  privacyLevel: number,
  circlesToAdd: CircleRef[] = [],
  circlesToRemove: CircleRef[] = [],
): ShareUpsert => ({ communityId, privacyLevel, circlesToAdd, circlesToRemove });

// --- events, given and expected ---------------------------------------------------------------

type DataOf<T extends ResourceEventData['type']> = Extract<ResourceEventData, { type: T }>['data'];

/** The pump manual created EARLIER by user 1: a PDF, so type 3 and no image. */
export const created = (data: Partial<DataOf<'ResourceCreated'>> = {}): ResourceEventData => ({
  type: 'ResourceCreated',
  data: {
    ...pumpManual,
    resourceType: 3,
    image: '',
    createdBy: 1,
    createdByMentor: false,
    postDate: EARLIER,
    ...data,
  },
});

const circleChanged =
  (type: 'CircleGranted' | 'CircleRevoked') =>
  (block: BlockRef, circleId: number): ResourceEventData => ({
    type,
    data: { resourceId: RID, block, circle: ref(circleId) },
  });

export const granted = circleChanged('CircleGranted');
export const revoked = circleChanged('CircleRevoked');

export const shared = (communityId: number, privacyLevel: PrivacyLevel): ResourceEventData => ({
  type: 'ResourceShared',
  data: { resourceId: RID, communityId, privacyLevel },
});

/** What `updateResource()` records at NOW: its content as sent (a PDF, so type 3 and no image). */
export const updated = (data: Partial<DataOf<'ResourceUpdated'>> = {}): ResourceEventData => ({
  type: 'ResourceUpdated',
  data: { resourceId: RID, ...pumpManualV2, resourceType: 3, image: '', lastUpdated: NOW, ...data },
});

export const ownerPrivacyChanged = (privacyLevel: PrivacyLevel, lastUpdated = NOW): ResourceEventData => ({
  type: 'OwnerPrivacyChanged',
  data: { resourceId: RID, privacyLevel, lastUpdated },
});

export const sharePrivacyChanged = (communityId: number, privacyLevel: PrivacyLevel): ResourceEventData => ({
  type: 'SharePrivacyChanged',
  data: { resourceId: RID, communityId, privacyLevel },
});

export const unshared = (communityId: number): ResourceEventData => ({
  type: 'ResourceUnshared',
  data: { resourceId: RID, communityId },
});

export const deleted = (resourceUrl: string = pumpManual.resourceUrl): ResourceEventData => ({
  type: 'ResourceDeleted',
  data: { resourceId: RID, resourceUrl },
});

export const OWNER: BlockRef = { kind: 'owner' };
export const share = (communityId: number): BlockRef => ({ kind: 'share', communityId });

// --- given / when / then --------------------------------------------------------------------

/** given(past events).when(command).then(events) | .thenThrows(DomainError, check) */
export const given = DeciderSpecification.for(resourceDecider);

export const fields = (error: DomainError): string[] => error.errors.map((e) => e.field);

/** The check of a refusal: its kind, and the request fields it names when given. */
export const refusal =
  (kind: DomainErrorKind, named?: readonly string[]) =>
  (error: DomainError): void => {
    expect(error.kind).toBe(kind);
    if (named) expect(fields(error)).toEqual(named);
  };

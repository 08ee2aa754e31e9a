import type { NewEvent } from '../../src/ports/event-store';
import type { Answer, ResourceList, ResourceRecord } from '../support/resource-api';
import { idsOf, newResource, resourceApi, scope } from '../support/resource-api';
import { serverForSuite } from '../support/suite-server';
import type { HttpResult } from '../support/test-server';

/**
 * THE visibility table, over HTTP: for every privacy level x caller kind x view, whether the
 * caller finds the resource in POST /api/Project/GetResourceList. Every expected cell is worked
 * out by hand from docs/api.md "Rules docs/api.md leaves open, settled":
 *
 *   A caller sees a resource in a view when they may edit it, or administer the view's community,
 *   or the governing level admits them: 1 reach; 2 approved member of the view's community;
 *   3 team; 4 member of a granted active circle; 5 team or mentor.
 *   Reach: a community view is reached when the community is public or the caller is an
 *   approved member; the project-wide view when the project is public or the caller is on its
 *   team, a mentor, or an approved member of a community the project belongs to.
 *   May edit: the team (everything of the project); the owning community's admins (its
 *   community-project resources).
 *
 * A dedicated directory (no demo data):
 *
 *   project P (90), PRIVATE, built-in circles 502 (team) / 503 (mentors), in communities:
 *     O (51, public)  owns the community-project resources (community project 9051)
 *     X (52, private) another community of the project (9052)
 *     S (53, public)  a community of the project every resource is shared into (9053)
 *   and not in:
 *     T (54, public)  the community-project resources are shared into it (levels 1 and 4 only:
 *                     the contract forbids 2, 3, 5 there, and project resources are never shared there)
 *     N (55, private) nothing is shared into it
 *     Z (59, public)  unrelated; the "anonymous" caller is a member of it
 *   circles of P: 500 (active) and 501 (INACTIVE), both granted wherever a block is Custom (4).
 *
 * Resources, all created by the team:
 *   cp1..cp5  community-project resources of O at own level 1..5,
 *             shared into S at   3, 5, 1, 4, 2   (so the share visibly governs in S)
 *             and into T at      1, 1, 4, 4, 1
 *   pr1, pr3, pr4, pr5  project resources at own level 1, 3, 4, 5 (2 is invalid for them),
 *             shared into S at   3, 1, 4, 2
 *
 * The shares and circle grants are made through POST /api/Privacy/SaveResourcePrivacy when that
 * endpoint answers; while it does not exist yet (404 route-not-found), the same facts are appended
 * as domain events through the event store port — the only look below HTTP in this suite.
 */

const P = 90;
const BARRIER_PROJECT = 91;
const C = { O: 51, X: 52, S: 53, T: 54, N: 55, Z: 59 } as const;
const CP = { O: 9051, X: 9052, S: 9053 } as const;
const CIRCLE = { active: 500, inactive: 501, team: 502, mentors: 503 } as const;

type CommunityKey = 'O' | 'X' | 'S' | 'T' | 'N';
/** Members, pending members and admins of each community: "the view's community" columns. */
const PEOPLE: Record<CommunityKey, { member: number; pending: number; admin: number }> = {
  O: { member: 211, pending: 212, admin: 213 },
  X: { member: 221, pending: 222, admin: 223 },
  S: { member: 231, pending: 232, admin: 233 },
  T: { member: 241, pending: 242, admin: 243 },
  N: { member: 251, pending: 252, admin: 253 },
};
const ANON = 201;
const TEAM = 261;
const MENTOR = 262;
const CIRCLE_MEMBER = 263;
const OLD_CIRCLE_MEMBER = 264;
const OUTSIDER = 265;
const BANNED = 266;

const directory = [
  ...[
    ANON,
    TEAM,
    MENTOR,
    CIRCLE_MEMBER,
    OLD_CIRCLE_MEMBER,
    OUTSIDER,
    ...Object.values(PEOPLE).flatMap((p) => [p.member, p.pending, p.admin]),
  ].map((userId) => ({ type: 'UserUpserted', data: { userId, name: `User ${userId}`, status: 'active' } })),
  { type: 'UserUpserted', data: { userId: BANNED, name: 'Banned', status: 'banned' } },
  { type: 'CommunityUpserted', data: { communityId: C.O, name: 'Owning', visibility: 'public' } },
  { type: 'CommunityUpserted', data: { communityId: C.X, name: 'Other', visibility: 'private' } },
  { type: 'CommunityUpserted', data: { communityId: C.S, name: 'Shared Into', visibility: 'public' } },
  { type: 'CommunityUpserted', data: { communityId: C.T, name: 'Shared Outside', visibility: 'public' } },
  { type: 'CommunityUpserted', data: { communityId: C.N, name: 'Unrelated', visibility: 'private' } },
  { type: 'CommunityUpserted', data: { communityId: C.Z, name: 'Elsewhere', visibility: 'public' } },
  ...(Object.keys(PEOPLE) as CommunityKey[]).flatMap((key) => [
    {
      type: 'CommunityMemberSet',
      data: { communityId: C[key], userId: PEOPLE[key].member, role: 'member', status: 'approved' },
    },
    {
      type: 'CommunityMemberSet',
      data: { communityId: C[key], userId: PEOPLE[key].pending, role: 'member', status: 'pending' },
    },
    {
      type: 'CommunityMemberSet',
      data: { communityId: C[key], userId: PEOPLE[key].admin, role: 'admin', status: 'approved' },
    },
  ]),
  { type: 'CommunityMemberSet', data: { communityId: C.Z, userId: ANON, role: 'member', status: 'approved' } },
  {
    type: 'ProjectUpserted',
    data: {
      projectId: P,
      name: 'Private Project',
      visibility: 'private',
      teamCircleId: CIRCLE.team,
      mentorsCircleId: CIRCLE.mentors,
    },
  },
  {
    type: 'ProjectUpserted',
    data: {
      projectId: BARRIER_PROJECT,
      name: 'Barrier',
      visibility: 'public',
      teamCircleId: 504,
      mentorsCircleId: 505,
    },
  },
  { type: 'CommunityProjectUpserted', data: { communityProjectId: CP.O, communityId: C.O, projectId: P } },
  { type: 'CommunityProjectUpserted', data: { communityProjectId: CP.X, communityId: C.X, projectId: P } },
  { type: 'CommunityProjectUpserted', data: { communityProjectId: CP.S, communityId: C.S, projectId: P } },
  { type: 'ProjectMemberSet', data: { projectId: P, userId: TEAM, role: 'team' } },
  { type: 'ProjectMemberSet', data: { projectId: P, userId: MENTOR, role: 'mentor' } },
  { type: 'ProjectMemberSet', data: { projectId: BARRIER_PROJECT, userId: TEAM, role: 'team' } },
  {
    type: 'CircleUpserted',
    data: {
      circleId: CIRCLE.active,
      name: 'Partners',
      longName: 'Partners',
      isActive: true,
      projectId: P,
      communityId: null,
    },
  },
  {
    type: 'CircleUpserted',
    data: {
      circleId: CIRCLE.inactive,
      name: 'Old partners',
      longName: 'Old partners',
      isActive: false,
      projectId: P,
      communityId: null,
    },
  },
  {
    type: 'CircleUpserted',
    data: { circleId: CIRCLE.team, name: 'Team', longName: 'Team', isActive: true, projectId: P, communityId: null },
  },
  {
    type: 'CircleUpserted',
    data: {
      circleId: CIRCLE.mentors,
      name: 'Mentors',
      longName: 'Mentors',
      isActive: true,
      projectId: P,
      communityId: null,
    },
  },
  { type: 'CircleMemberSet', data: { circleId: CIRCLE.active, userId: CIRCLE_MEMBER } },
  { type: 'CircleMemberSet', data: { circleId: CIRCLE.inactive, userId: OLD_CIRCLE_MEMBER } },
];

// ---------------------------------------------------------------------------------------------
// The resources: own level, and the level of each share.

type ResourceKey = 'cp1' | 'cp2' | 'cp3' | 'cp4' | 'cp5' | 'pr1' | 'pr3' | 'pr4' | 'pr5';
type Setup = { scope: 'cp' | 'pr'; own: number; shareS: number; shareT: number | null };
const RESOURCES: Record<ResourceKey, Setup> = {
  cp1: { scope: 'cp', own: 1, shareS: 3, shareT: 1 },
  cp2: { scope: 'cp', own: 2, shareS: 5, shareT: 1 },
  cp3: { scope: 'cp', own: 3, shareS: 1, shareT: 4 },
  cp4: { scope: 'cp', own: 4, shareS: 4, shareT: 4 },
  cp5: { scope: 'cp', own: 5, shareS: 2, shareT: 1 },
  pr1: { scope: 'pr', own: 1, shareS: 3, shareT: null },
  pr3: { scope: 'pr', own: 3, shareS: 1, shareT: null },
  pr4: { scope: 'pr', own: 4, shareS: 4, shareT: null },
  pr5: { scope: 'pr', own: 5, shareS: 2, shareT: null },
};

// ---------------------------------------------------------------------------------------------
// THE TABLE.
//
// Views:  PW project-wide · O owning community · X other community of the project ·
//         S community shared into · T community shared into that the project is not in ·
//         N community the project is not in (nothing shared into it)
// Callers, one column each, left to right:
//   an  a signed-in user with no tie to the view's community nor to P (member of unrelated Z)
//   me  approved member of the view's community          (project-wide view: of O)
//   pe  pending member of the view's community           (project-wide view: of O)
//   ad  admin of the view's community                    (project-wide view: of O)
//   oa  admin of the owning community O (in views O and PW the same person as `ad`)
//   te  P's team · mn P's mentor
//   ci  member of circle 500 (active, granted at Custom) and of nothing else
//   ic  member of circle 501 (inactive, granted at Custom) and of nothing else
//   ou  outsider: no membership at all · ba banned user
// Cells: Y finds it in the list · . does not · ! the list answers 403
// gov: the level governing that view (own level, or the share's); '-' the resource is not in it.

const CALLERS = ['an', 'me', 'pe', 'ad', 'oa', 'te', 'mn', 'ci', 'ic', 'ou', 'ba'] as const;
type CallerKind = (typeof CALLERS)[number];
type ViewKey = 'PW' | CommunityKey;

const NONE = '.  .  .  .  .  .  .  .  .  .  !';
const TABLE: [ResourceKey, ViewKey, number | '-', string][] = [
  //                  gov  an me pe ad oa te mn ci ic ou ba
  ['cp1', 'PW', '-', NONE],
  ['cp1', 'O', 1, '   Y  Y  Y  Y  Y  Y  Y  Y  Y  Y  !'],
  ['cp1', 'X', '-', NONE],
  ['cp1', 'S', 3, '   .  .  .  Y  Y  Y  .  .  .  .  !'],
  ['cp1', 'T', 1, '   Y  Y  Y  Y  Y  Y  Y  Y  Y  Y  !'],
  ['cp1', 'N', '-', NONE],

  ['cp2', 'PW', '-', NONE],
  ['cp2', 'O', 2, '   .  Y  .  Y  Y  Y  .  .  .  .  !'],
  ['cp2', 'X', '-', NONE],
  ['cp2', 'S', 5, '   .  .  .  Y  Y  Y  Y  .  .  .  !'],
  ['cp2', 'T', 1, '   Y  Y  Y  Y  Y  Y  Y  Y  Y  Y  !'],
  ['cp2', 'N', '-', NONE],

  ['cp3', 'PW', '-', NONE],
  ['cp3', 'O', 3, '   .  .  .  Y  Y  Y  .  .  .  .  !'],
  ['cp3', 'X', '-', NONE],
  ['cp3', 'S', 1, '   Y  Y  Y  Y  Y  Y  Y  Y  Y  Y  !'],
  ['cp3', 'T', 4, '   .  .  .  Y  Y  Y  .  Y  .  .  !'],
  ['cp3', 'N', '-', NONE],

  ['cp4', 'PW', '-', NONE],
  ['cp4', 'O', 4, '   .  .  .  Y  Y  Y  .  Y  .  .  !'],
  ['cp4', 'X', '-', NONE],
  ['cp4', 'S', 4, '   .  .  .  Y  Y  Y  .  Y  .  .  !'],
  ['cp4', 'T', 4, '   .  .  .  Y  Y  Y  .  Y  .  .  !'],
  ['cp4', 'N', '-', NONE],

  ['cp5', 'PW', '-', NONE],
  ['cp5', 'O', 5, '   .  .  .  Y  Y  Y  Y  .  .  .  !'],
  ['cp5', 'X', '-', NONE],
  ['cp5', 'S', 2, '   .  Y  .  Y  Y  Y  .  .  .  .  !'],
  ['cp5', 'T', 1, '   Y  Y  Y  Y  Y  Y  Y  Y  Y  Y  !'],
  ['cp5', 'N', '-', NONE],

  //                  gov  an me pe ad oa te mn ci ic ou ba
  ['pr1', 'PW', 1, '   .  Y  .  Y  Y  Y  Y  .  .  .  !'],
  ['pr1', 'O', 1, '   Y  Y  Y  Y  Y  Y  Y  Y  Y  Y  !'],
  ['pr1', 'X', 1, '   .  Y  .  Y  .  Y  .  .  .  .  !'],
  ['pr1', 'S', 3, '   .  .  .  Y  .  Y  .  .  .  .  !'],
  ['pr1', 'T', '-', NONE],
  ['pr1', 'N', '-', NONE],

  ['pr3', 'PW', 3, '   .  .  .  .  .  Y  .  .  .  .  !'],
  ['pr3', 'O', 3, '   .  .  .  Y  Y  Y  .  .  .  .  !'],
  ['pr3', 'X', 3, '   .  .  .  Y  .  Y  .  .  .  .  !'],
  ['pr3', 'S', 1, '   Y  Y  Y  Y  Y  Y  Y  Y  Y  Y  !'],
  ['pr3', 'T', '-', NONE],
  ['pr3', 'N', '-', NONE],

  ['pr4', 'PW', 4, '   .  .  .  .  .  Y  .  Y  .  .  !'],
  ['pr4', 'O', 4, '   .  .  .  Y  Y  Y  .  Y  .  .  !'],
  ['pr4', 'X', 4, '   .  .  .  Y  .  Y  .  Y  .  .  !'],
  ['pr4', 'S', 4, '   .  .  .  Y  .  Y  .  Y  .  .  !'],
  ['pr4', 'T', '-', NONE],
  ['pr4', 'N', '-', NONE],

  ['pr5', 'PW', 5, '   .  .  .  .  .  Y  Y  .  .  .  !'],
  ['pr5', 'O', 5, '   .  .  .  Y  Y  Y  Y  .  .  .  !'],
  ['pr5', 'X', 5, '   .  .  .  Y  .  Y  Y  .  .  .  !'],
  ['pr5', 'S', 2, '   .  Y  .  Y  .  Y  .  .  .  .  !'],
  ['pr5', 'T', '-', NONE],
  ['pr5', 'N', '-', NONE],
];

/** Who plays a caller kind in a view. */
function callerFor(kind: CallerKind, view: ViewKey): number {
  const community: CommunityKey = view === 'PW' ? 'O' : view;
  switch (kind) {
    case 'an':
      return ANON;
    case 'me':
      return PEOPLE[community].member;
    case 'pe':
      return PEOPLE[community].pending;
    case 'ad':
      return PEOPLE[community].admin;
    case 'oa':
      return PEOPLE.O.admin;
    case 'te':
      return TEAM;
    case 'mn':
      return MENTOR;
    case 'ci':
      return CIRCLE_MEMBER;
    case 'ic':
      return OLD_CIRCLE_MEMBER;
    case 'ou':
      return OUTSIDER;
    case 'ba':
      return BANNED;
    default: {
      const unexpected: never = kind;
      throw new Error(`unknown caller kind ${String(unexpected)}`);
    }
  }
}

const communityIdOf = (view: ViewKey): number | null => (view === 'PW' ? null : C[view]);

type Cell = { resource: ResourceKey; view: ViewKey; gov: number | '-'; caller: CallerKind; expected: 'Y' | '.' | '!' };
const CELLS: Cell[] = TABLE.flatMap(([resource, view, gov, row]) => {
  const marks = row.trim().split(/\s+/);
  if (marks.length !== CALLERS.length) throw new Error(`table row ${resource}/${view} has ${marks.length} cells`);
  return CALLERS.map((caller, i) => ({ resource, view, gov, caller, expected: marks[i] as Cell['expected'] }));
});

describe('visibility table: GetResourceList per level x caller kind x view', () => {
  const server = serverForSuite([directory]);
  const api = resourceApi(server);
  const ids = {} as Record<ResourceKey, number>;
  let setupPath: 'SaveResourcePrivacy' | 'event store';

  /** One list request per (caller, view), shared by the cells that need it. */
  const lists = new Map<string, Promise<HttpResult<Answer<ResourceList>>>>();
  const listFor = (userId: number, view: ViewKey) => {
    const key = `${userId}|${view}`;
    let answer = lists.get(key);
    if (!answer) {
      answer = api.list<ResourceList>(userId, { projectId: P, communityId: communityIdOf(view), take: 1000 });
      lists.set(key, answer);
    }
    return answer;
  };

  const grants = () => [
    { circleId: CIRCLE.active, projectId: P, communityId: null },
    { circleId: CIRCLE.inactive, projectId: P, communityId: null },
  ];
  const block = (privacyLevel: number) => ({
    privacyLevel,
    circlesToAdd: privacyLevel === 4 ? grants() : [],
    circlesToRemove: [],
  });

  async function setPrivacyThroughEndpoint(key: ResourceKey, resourceId: number): Promise<void> {
    const setup = RESOURCES[key];
    const sharesToUpsert: { communityId: number }[] = [{ communityId: C.S, ...block(setup.shareS) }];
    if (setup.shareT !== null) sharesToUpsert.push({ communityId: C.T, ...block(setup.shareT) });
    const body = {
      resourceId,
      ...(setup.own === 4 ? { owner: block(4) } : {}),
      sharesToUpsert,
      sharesToRemove: [],
    };
    // Shares of a community-project resource are its owning community's admins' to make; those of
    // a project resource the team's.
    const actor = setup.scope === 'cp' ? PEOPLE.O.admin : TEAM;
    const res = await server.post('/api/Privacy/SaveResourcePrivacy', body, { token: await api.tokenOf(actor) });
    if (res.status !== 200) throw new Error(`given: SaveResourcePrivacy for ${key} answered ${res.status} ${res.text}`);
  }

  /** The same facts as domain events, for as long as the privacy endpoint does not exist. */
  async function setPrivacyThroughEvents(key: ResourceKey, resourceId: number): Promise<void> {
    const setup = RESOURCES[key];
    const metadata = {
      actor: { userId: TEAM, credential: 'session' as const },
      correlationId: `visibility-table-${key}`,
      at: new Date().toISOString(),
    };
    const events: NewEvent[] = [];
    const grantAll = (blockRef: { kind: 'owner' } | { kind: 'share'; communityId: number }) =>
      grants().forEach((circle) =>
        events.push({ type: 'CircleGranted', data: { resourceId, block: blockRef, circle }, metadata }),
      );
    if (setup.own === 4) grantAll({ kind: 'owner' });
    const shares: [number, number | null][] = [
      [C.S, setup.shareS],
      [C.T, setup.shareT],
    ];
    for (const [communityId, privacyLevel] of shares) {
      if (privacyLevel === null) continue;
      events.push({ type: 'ResourceShared', data: { resourceId, communityId, privacyLevel }, metadata });
      if (privacyLevel === 4) grantAll({ kind: 'share', communityId });
    }
    const stream = `resource-${resourceId}`;
    const last = (await server.services.eventStore.readStream(stream)).at(-1);
    if (!last) throw new Error(`given: ${stream} is empty`);
    await server.services.eventStore.appendToStream(stream, events, last.revision);
  }

  /**
   * A resource set up as `key` is (level, shares, grants), of the caller's own: tests that change one use
   * this, never the table's.
   */
  async function createLike(key: ResourceKey, name: string = key): Promise<number> {
    const setup = RESOURCES[key];
    const shape = setup.scope === 'cp' ? scope.communityProject(CP.O) : scope.project(P);
    const resourceId = (await api.create(TEAM, newResource(shape, { name, privacyLevel: setup.own }))).id;
    if (setupPath === 'event store') await setPrivacyThroughEvents(key, resourceId);
    else await setPrivacyThroughEndpoint(key, resourceId);
    return resourceId;
  }

  beforeAll(async () => {
    for (const [key, setup] of Object.entries(RESOURCES) as [ResourceKey, Setup][]) {
      const shape = setup.scope === 'cp' ? scope.communityProject(CP.O) : scope.project(P);
      ids[key] = (await api.create(TEAM, newResource(shape, { name: key, privacyLevel: setup.own }))).id;
    }

    const probe = await server.post('/api/Privacy/SaveResourcePrivacy', {}, { token: await api.tokenOf(TEAM) });
    const endpointMissing =
      probe.status === 404 && (probe.body as { type?: string }).type === '/problems/route-not-found';
    setupPath = endpointMissing ? 'event store' : 'SaveResourcePrivacy';
    for (const key of Object.keys(RESOURCES) as ResourceKey[]) {
      if (endpointMissing) await setPrivacyThroughEvents(key, ids[key]);
      else await setPrivacyThroughEndpoint(key, ids[key]);
    }
    // A write over HTTP returns once the read models hold its events, and the projector applies
    // events in order: after it, everything appended above is projected too.
    const barrier = await api.create(TEAM, newResource(scope.project(BARRIER_PROJECT), { name: 'barrier' }));
    expect(barrier.id).toBeGreaterThan(0);
  });

  it('the givens hold: the team sees every resource with its governing level in every view it is in', async () => {
    console.log(`visibility table: shares and circles set up through ${setupPath}`);
    for (const [resource, view, gov] of TABLE) {
      const answer = await listFor(TEAM, view);
      expect(answer.status).toBe(200);
      const record = answer.body.resources.list.find((r) => r.id === ids[resource]);
      expect({ resource, view, effectivePrivacyLevel: record?.effectivePrivacyLevel ?? '-' }).toEqual({
        resource,
        view,
        effectivePrivacyLevel: gov,
      });
    }
  });

  it.each(CELLS.map((c) => [c.resource, c.view, c.gov, c.caller, c.expected, c] as const))(
    '%s in view %s (governing %s), caller %s: %s',
    async (_resource, _view, _gov, _caller, _expected, cell) => {
      const userId = callerFor(cell.caller, cell.view);
      const res = await listFor(userId, cell.view);
      if (cell.expected === '!') {
        expect(res.status).toBe(403);
        expect(res.body.type).toBe('/problems/forbidden');
        return;
      }
      expect(res.status).toBe(200);
      const record: ResourceRecord | undefined = res.body.resources.list.find((r) => r.id === ids[cell.resource]);
      expect(record !== undefined).toBe(cell.expected === 'Y');
      if (record) {
        // Whoever sees it sees the level that governs this view, and where it came from.
        expect(record.effectivePrivacyLevel).toBe(cell.gov);
        expect(record.privacyLevel).toBe(RESOURCES[cell.resource].own);
        const throughShare = RESOURCES[cell.resource].scope === 'cp' && (cell.view === 'S' || cell.view === 'T');
        expect({
          originCommunityId: record.originCommunityId,
          originCommunityName: record.originCommunityName,
        }).toEqual(
          throughShare
            ? { originCommunityId: C.O, originCommunityName: 'Owning' }
            : { originCommunityId: null, originCommunityName: null },
        );
      }
    },
  );

  it('every list count equals the number of resources listed (no hidden extras)', async () => {
    // given: every (caller, view) of the table that is not refused, asked here whatever ran before
    const pairs = new Map<string, [number, ViewKey]>();
    for (const cell of CELLS) {
      if (cell.expected === '!') continue;
      const userId = callerFor(cell.caller, cell.view);
      pairs.set(`${userId}|${cell.view}`, [userId, cell.view]);
    }
    expect(pairs.size).toBeGreaterThanOrEqual(40);
    // when
    const answers = await Promise.all(
      [...pairs].map(async ([key, [userId, view]]) => ({ key, res: await listFor(userId, view) })),
    );
    // then
    expect(answers.filter(({ res }) => res.status === 200)).toHaveLength(pairs.size);
    expect(answers.filter(({ res }) => idsOf(res.body).length > 0).length).toBeGreaterThan(0);
    for (const { key, res } of answers)
      expect({ key, count: res.body.resources.count }).toEqual({ key, count: idsOf(res.body).length });
  });

  describe('currentlySharedWith and canEdit', () => {
    const recordOf = async (userId: number, view: ViewKey, key: ResourceKey) =>
      (await listFor(userId, view)).body.resources.list.find((r) => r.id === ids[key]);

    it.each<[ResourceKey, number, string, { communityId: number; communityName: string; privacyLevel: number }[]]>([
      [
        'cp2',
        TEAM,
        'the team',
        [
          { communityId: C.S, communityName: 'Shared Into', privacyLevel: 5 },
          { communityId: C.T, communityName: 'Shared Outside', privacyLevel: 1 },
        ],
      ],
      [
        'cp2',
        PEOPLE.O.admin,
        'the owning admin',
        [
          { communityId: C.S, communityName: 'Shared Into', privacyLevel: 5 },
          { communityId: C.T, communityName: 'Shared Outside', privacyLevel: 1 },
        ],
      ],
      ['pr5', TEAM, 'the team', [{ communityId: C.S, communityName: 'Shared Into', privacyLevel: 2 }]],
    ])('given %s, %s (an editor) sees its shares and may edit it', async (key, userId, _who, shares) => {
      const record = await recordOf(userId, 'O', key);
      expect(record?.canEdit).toBe(true);
      const byCommunity = (a: { communityId: number }, b: { communityId: number }) => a.communityId - b.communityId;
      expect([...(record?.currentlySharedWith ?? [])].sort(byCommunity)).toEqual([...shares].sort(byCommunity));
    });

    it.each<[ResourceKey, ViewKey, number, string]>([
      ['cp1', 'T', PEOPLE.T.admin, "the shared-into community's admin"],
      ['cp3', 'S', PEOPLE.S.member, 'a member of the shared-into community'],
      ['pr1', 'O', PEOPLE.O.admin, 'an admin of a community of the project, on a project resource'],
      ['pr1', 'O', MENTOR, 'the mentor'],
      ['cp4', 'O', CIRCLE_MEMBER, 'a member of a granted circle'],
    ])(
      'given %s seen in view %s by %s (not an editor), then canEdit false and currentlySharedWith []',
      async (key, view, userId) => {
        const record = await recordOf(userId, view, key);
        expect(record).toBeDefined();
        expect(record?.canEdit).toBe(false);
        expect(record?.currentlySharedWith).toEqual([]);
      },
    );

    it("given a shared resource, when the team updates it, then SaveProjectResource's answer lists its shares", async () => {
      const id = await createLike('pr5', 'pr5, updated');
      const res = await api.save(TEAM, { ...newResource({}), id, name: 'pr5, updated', privacyLevel: 5 });
      expect(res.status).toBe(200);
      expect(res.body.currentlySharedWith).toEqual([
        { communityId: C.S, communityName: 'Shared Into', privacyLevel: 2 },
      ]);
      expect(res.body.effectivePrivacyLevel).toBe(5);
    });
  });

  describe('removal of a shared resource', () => {
    it('when a resource set up as cp1 is removed, then it is gone at once from its owning community and from both communities it was shared into', async () => {
      // given: its own resource, so that the table's givens stay
      const removed = await createLike('cp1', 'cp1, to remove');
      const visibleTo = async (userId: number, view: ViewKey) =>
        idsOf(await api.listOk(userId, { projectId: P, communityId: communityIdOf(view), take: 1000 })).includes(
          removed,
        );
      expect(await visibleTo(PEOPLE.S.admin, 'S')).toBe(true);
      expect(await visibleTo(OUTSIDER, 'T')).toBe(true);

      const res = await api.remove(PEOPLE.O.admin, removed);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ statusCode: 200 });

      for (const view of ['O', 'S', 'T'] as const) {
        for (const userId of [TEAM, PEOPLE.O.admin, PEOPLE[view].admin, PEOPLE[view].member, OUTSIDER]) {
          expect({ view, userId, visible: await visibleTo(userId, view) }).toEqual({ view, userId, visible: false });
        }
      }
    });
  });
});

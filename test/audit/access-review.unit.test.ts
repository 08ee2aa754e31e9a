import type { AccessReason, ViewAccess } from '../../src/audit/access-review';
import { describeReason, reviewAccess } from '../../src/audit/access-review';
import { foldDirectory } from '../../src/directory/directory-state';
import { foldResource } from '../../src/resources/resource-evolve';
import {
  D,
  E,
  N,
  O,
  O_CIRCLE,
  P,
  created,
  deleted,
  granted,
  OWNER,
  projectScope,
  shared,
} from '../resources/resource-fixtures';

/**
 * "Who could read this resource then?" on a small directory: project P (private, team circle 71,
 * mentors circle 72) in O (private, owning), D (public) and E (private); community N exists but P
 * is not in it. One person per way in, and two who see nothing.
 */
const e = (type: string, data: Record<string, unknown>) => ({ type, data });
const user = (userId: number, name: string, status = 'active') => e('UserUpserted', { userId, name, status });
const TESS = 1; // team of P
const MO = 2; // mentor of P
const ADA = 3; // admin of O
const DEE = 4; // approved member of D
const PEN = 5; // pending member of O
const CY = 6; // approved member of O, in O's circle
const INA = 7; // team of P, but inactive
const BO = 8; // team of P, but banned
const MAX = 9; // admin of D
const EVE = 10; // approved member of E
const directory = foldDirectory([
  user(TESS, 'Tess'),
  user(MO, 'Mo'),
  user(ADA, 'Ada'),
  user(DEE, 'Dee'),
  user(PEN, 'Pen'),
  user(CY, 'Cy'),
  user(INA, 'Ina', 'inactive'),
  user(BO, 'Bo', 'banned'),
  user(MAX, 'Max'),
  user(EVE, 'Eve'),
  e('CommunityUpserted', { communityId: O, name: 'Owners', visibility: 'private' }),
  e('CommunityUpserted', { communityId: D, name: 'Doers', visibility: 'public' }),
  e('CommunityUpserted', { communityId: E, name: 'Elders', visibility: 'private' }),
  e('CommunityUpserted', { communityId: N, name: 'Newcomers', visibility: 'public' }),
  e('ProjectUpserted', { projectId: P, name: 'Water', visibility: 'private', teamCircleId: 71, mentorsCircleId: 72 }),
  e('CommunityProjectUpserted', { communityProjectId: 100, communityId: O, projectId: P }),
  e('CommunityProjectUpserted', { communityProjectId: 101, communityId: D, projectId: P }),
  e('CommunityProjectUpserted', { communityProjectId: 102, communityId: E, projectId: P }),
  e('CircleUpserted', { circleId: O_CIRCLE, name: 'O', longName: '', isActive: true, projectId: null, communityId: O }),
  e('ProjectMemberSet', { projectId: P, userId: TESS, role: 'team' }),
  e('ProjectMemberSet', { projectId: P, userId: MO, role: 'mentor' }),
  e('ProjectMemberSet', { projectId: P, userId: INA, role: 'team' }),
  e('ProjectMemberSet', { projectId: P, userId: BO, role: 'team' }),
  e('CommunityMemberSet', { communityId: O, userId: ADA, role: 'admin', status: 'approved' }),
  e('CommunityMemberSet', { communityId: D, userId: DEE, role: 'member', status: 'approved' }),
  e('CommunityMemberSet', { communityId: O, userId: PEN, role: 'member', status: 'pending' }),
  e('CommunityMemberSet', { communityId: O, userId: CY, role: 'member', status: 'approved' }),
  e('CircleMemberSet', { circleId: O_CIRCLE, userId: CY }),
  e('CommunityMemberSet', { communityId: D, userId: MAX, role: 'admin', status: 'approved' }),
  e('CommunityMemberSet', { communityId: E, userId: EVE, role: 'member', status: 'approved' }),
]);

const team: AccessReason = { kind: 'team', projectId: P };
const author: AccessReason = { kind: 'author', userId: MO };
const owningAdmin: AccessReason = { kind: 'owningCommunityAdmin', communityId: O };
const reach = (level: 1): AccessReason => ({ kind: 'reach', level });
const administers = (communityId: number): AccessReason => ({ kind: 'administersView', communityId });

describe('reviewAccess', () => {
  it('given no resource yet, then notCreated with no view', () => {
    expect(reviewAccess(foldResource([]), directory)).toEqual({ status: 'notCreated', views: [] });
  });

  it('given a deleted resource, then deleted with no view', () => {
    expect(reviewAccess(foldResource([created(), deleted()]), directory)).toEqual({ status: 'deleted', views: [] });
  });

  it('given a Custom resource of O a mentor created, shared into D at Public and into E at Community, then each view with who sees it and why, in user order', () => {
    const resource = foldResource([
      created({ privacyLevel: 4, createdBy: MO, createdByMentor: true }),
      granted(OWNER, O_CIRCLE),
      shared(D, 1),
      shared(E, 2),
    ]);

    expect(reviewAccess(resource, directory)).toEqual({
      status: 'active',
      views: [
        {
          viewKey: `c:${O}`,
          communityId: O,
          communityName: 'Owners',
          governedBy: 'own',
          effectivePrivacyLevel: 4,
          circleIds: [O_CIRCLE],
          users: [
            { userId: TESS, name: 'Tess', reasons: [team] },
            { userId: MO, name: 'Mo', reasons: [author] },
            { userId: ADA, name: 'Ada', reasons: [administers(O), owningAdmin] },
            { userId: CY, name: 'Cy', reasons: [{ kind: 'circle', level: 4, circleId: O_CIRCLE }] },
          ],
        },
        {
          viewKey: `c:${D}`,
          communityId: D,
          communityName: 'Doers',
          governedBy: 'share',
          effectivePrivacyLevel: 1,
          circleIds: [],
          users: [
            { userId: TESS, name: 'Tess', reasons: [team, reach(1)] },
            { userId: MO, name: 'Mo', reasons: [author, reach(1)] },
            { userId: ADA, name: 'Ada', reasons: [owningAdmin, reach(1)] },
            { userId: DEE, name: 'Dee', reasons: [reach(1)] },
            { userId: PEN, name: 'Pen', reasons: [reach(1)] },
            { userId: CY, name: 'Cy', reasons: [reach(1)] },
            { userId: MAX, name: 'Max', reasons: [administers(D), reach(1)] },
            { userId: EVE, name: 'Eve', reasons: [reach(1)] },
          ],
        },
        {
          viewKey: `c:${E}`,
          communityId: E,
          communityName: 'Elders',
          governedBy: 'share',
          effectivePrivacyLevel: 2,
          circleIds: [],
          users: [
            { userId: TESS, name: 'Tess', reasons: [team] },
            { userId: MO, name: 'Mo', reasons: [author] },
            { userId: ADA, name: 'Ada', reasons: [owningAdmin] },
            { userId: EVE, name: 'Eve', reasons: [{ kind: 'member', level: 2, communityId: E }] },
          ],
        },
      ],
    });
  });

  it('given a project resource at Team and mentors, then its project view and one view per community of the project, mentors by level', () => {
    const resource = foldResource([created({ scope: projectScope, privacyLevel: 5, createdBy: TESS })]);
    const mentor: AccessReason = { kind: 'mentor', level: 5, projectId: P };
    const tessAndMo = [
      { userId: TESS, name: 'Tess', reasons: [team] },
      { userId: MO, name: 'Mo', reasons: [mentor] },
    ];
    const own = { governedBy: 'own', effectivePrivacyLevel: 5, circleIds: [] };

    const review = reviewAccess(resource, directory);

    expect(review.views).toEqual([
      { viewKey: `p:${P}`, communityId: null, communityName: null, ...own, users: tessAndMo },
      {
        viewKey: `c:${O}`,
        communityId: O,
        communityName: 'Owners',
        ...own,
        users: [...tessAndMo, { userId: ADA, name: 'Ada', reasons: [administers(O)] }],
      },
      {
        viewKey: `c:${D}`,
        communityId: D,
        communityName: 'Doers',
        ...own,
        users: [...tessAndMo, { userId: MAX, name: 'Max', reasons: [administers(D)] }],
      },
      { viewKey: `c:${E}`, communityId: E, communityName: 'Elders', ...own, users: tessAndMo },
    ]);
  });

  it('given users the directory learned in no particular order, then a view lists them by user id', () => {
    const shuffled = foldDirectory([
      user(30, 'Thirty'),
      user(10, 'Ten'),
      user(20, 'Twenty'),
      e('ProjectUpserted', {
        projectId: P,
        name: 'Water',
        visibility: 'public',
        teamCircleId: 71,
        mentorsCircleId: 72,
      }),
    ]);
    const resource = foldResource([created({ scope: projectScope, privacyLevel: 1 })]);

    const views = reviewAccess(resource, shuffled).views as readonly ViewAccess[];

    expect(views.map((view) => [view.viewKey, view.users.map((u) => u.userId)])).toEqual([[`p:${P}`, [10, 20, 30]]]);
  });

  it('given a share into a community the directory does not know, then that view names no one', () => {
    const resource = foldResource([created({ privacyLevel: 1 }), shared(999, 1)]);

    const views = reviewAccess(resource, directory).views as readonly ViewAccess[];

    // O is private: at Public, its own view admits its approved members (Ada, Cy) and the editors.
    expect(views.map((view) => [view.viewKey, view.communityName, view.users.map((u) => u.userId)])).toEqual([
      [`c:${O}`, 'Owners', [TESS, ADA, CY]],
      ['c:999', null, []],
    ]);
  });

  it('given a resource of a project the directory does not know, then every view names no one', () => {
    const resource = foldResource([
      created({ scope: { ...projectScope, projectId: 77 }, privacyLevel: 1 }),
      shared(D, 1),
    ]);

    const views = reviewAccess(resource, directory).views as readonly ViewAccess[];

    expect(views.map((view) => [view.viewKey, view.communityName, view.users.length])).toEqual([
      ['p:77', null, 0],
      [`c:${D}`, 'Doers', 0],
    ]);
  });
});

describe('describeReason', () => {
  it.each<[AccessReason, string]>([
    [{ kind: 'administersView', communityId: 20 }, 'administrator of community 20'],
    [{ kind: 'team', projectId: 7 }, 'team of project 7'],
    [{ kind: 'owningCommunityAdmin', communityId: 10 }, 'administrator of owning community 10'],
    [{ kind: 'author', userId: 2 }, 'created it as a mentor, still a mentor'],
    [{ kind: 'reach', level: 1 }, 'level 1: reaches the view'],
    [{ kind: 'member', level: 2, communityId: 30 }, 'level 2: approved member of community 30'],
    [{ kind: 'mentor', level: 5, projectId: 7 }, 'level 5: mentor of project 7'],
    [{ kind: 'circle', level: 4, circleId: 601 }, 'level 4: member of circle 601'],
  ])('given %j, then the line %j', (reason, line) => {
    expect(describeReason(reason)).toBe(line);
  });
});

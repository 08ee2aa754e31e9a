import { communityOf, foldDirectory, projectOf, viewerOf } from '../../src/directory/directory-state';

const e = (type: string, data: Record<string, unknown>) => ({ type, data });
const world = [
  e('UserUpserted', { userId: 1, name: 'Ada', status: 'active' }),
  e('UserUpserted', { userId: 2, name: 'Ben', status: 'active', platformRoles: ['auditor'] }),
  e('CommunityUpserted', { communityId: 1, name: 'One', visibility: 'public' }),
  e('CommunityUpserted', { communityId: 2, name: 'Two', visibility: 'private' }),
  e('ProjectUpserted', {
    projectId: 10,
    name: 'Solar',
    visibility: 'private',
    teamCircleId: 100,
    mentorsCircleId: 101,
  }),
  e('CommunityProjectUpserted', { communityProjectId: 1001, communityId: 2, projectId: 10 }),
  e('CommunityProjectUpserted', { communityProjectId: 1000, communityId: 1, projectId: 10 }),
  e('CircleUpserted', { circleId: 300, name: 'Active', longName: '', isActive: true, projectId: null, communityId: 1 }),
  e('CircleUpserted', { circleId: 301, name: 'Old', longName: '', isActive: false, projectId: null, communityId: 1 }),
  e('ProjectMemberSet', { projectId: 10, userId: 1, role: 'team' }),
  e('CommunityMemberSet', { communityId: 1, userId: 1, role: 'admin', status: 'approved' }),
  e('CircleMemberSet', { circleId: 300, userId: 1 }),
  e('CircleMemberSet', { circleId: 301, userId: 1 }),
];

describe('foldDirectory', () => {
  it('given memberships, then the viewer has them, with the built-in team circle and only active circles', () => {
    const viewer = viewerOf(foldDirectory(world), 1);

    expect(viewer.communities.get(1)).toEqual({ role: 'admin', status: 'approved' });
    expect(viewer.projects.get(10)).toBe('team');
    expect([...viewer.circles].sort()).toEqual([100, 300]);
  });

  it('given removals later in the stream, then the viewer loses them; a prefix of the stream still has them', () => {
    const later = [
      ...world,
      e('ProjectMemberRemoved', { projectId: 10, userId: 1 }),
      e('CommunityMemberRemoved', { communityId: 1, userId: 1 }),
      e('CircleMemberRemoved', { circleId: 300, userId: 1 }),
    ];

    const now = viewerOf(foldDirectory(later), 1);
    const then = viewerOf(foldDirectory(later.slice(0, world.length)), 1);

    expect([now.communities.size, now.projects.size, now.circles.size]).toEqual([0, 0, 0]);
    expect([then.communities.size, then.projects.size, then.circles.size]).toEqual([1, 1, 2]);
  });

  it('lists a project with its communities ascending, and users with their platform roles', () => {
    const state = foldDirectory(world);

    expect(projectOf(state, 10)).toMatchObject({ projectId: 10, communityIds: [1, 2], teamCircleId: 100 });
    expect(projectOf(state, 99)).toBeNull();
    expect(state.users.get(2)?.platformRoles).toEqual(['auditor']);
    expect(state.users.get(1)?.platformRoles).toEqual([]);
  });

  it('given a user with no event, then an empty viewer of that id', () => {
    const viewer = viewerOf(foldDirectory(world), 42);

    expect(viewer).toEqual({ userId: 42, communities: new Map(), projects: new Map(), circles: new Set() });
  });

  it('given a mentor, then the built-in mentors circle counts; a built-in circle the feed describes counts only while active', () => {
    const mentorOf = (events: ReturnType<typeof e>[]) =>
      viewerOf(
        foldDirectory([...world, e('ProjectMemberSet', { projectId: 10, userId: 3, role: 'mentor' }), ...events]),
        3,
      );
    const described = (isActive: boolean) =>
      e('CircleUpserted', { circleId: 101, name: 'Mentors', longName: '', isActive, projectId: 10, communityId: null });

    expect([...mentorOf([]).circles]).toEqual([101]);
    expect([...mentorOf([described(true)]).circles]).toEqual([101]);
    expect([...mentorOf([described(false)]).circles]).toEqual([]);
  });

  it('given a project role in a project the feed never described, then the role is kept but no built-in circle', () => {
    const viewer = viewerOf(
      foldDirectory([...world, e('ProjectMemberSet', { projectId: 77, userId: 1, role: 'mentor' })]),
      1,
    );

    expect(viewer.projects.get(77)).toBe('mentor');
    expect([...viewer.circles].sort()).toEqual([100, 300]);
  });

  it('given a circle membership of a circle the feed never described, then it does not count', () => {
    const viewer = viewerOf(foldDirectory([...world, e('CircleMemberSet', { circleId: 999, userId: 1 })]), 1);

    expect([...viewer.circles].sort()).toEqual([100, 300]);
  });

  it('given upserts of the same records, then the last one stands, whole', () => {
    const state = foldDirectory([
      ...world,
      e('CommunityUpserted', { communityId: 1, name: 'Uno', visibility: 'private' }),
      e('CommunityMemberSet', { communityId: 1, userId: 1, role: 'member', status: 'pending' }),
      e('ProjectMemberSet', { projectId: 10, userId: 1, role: 'mentor' }),
      e('UserUpserted', { userId: 2, name: 'Benjamin', status: 'disabled' }),
      e('CircleUpserted', {
        circleId: 300,
        name: 'Now old',
        longName: 'x',
        isActive: false,
        projectId: null,
        communityId: 1,
      }),
    ]);

    expect(communityOf(state, 1)).toEqual({ communityId: 1, name: 'Uno', visibility: 'private' });
    expect(state.users.get(2)).toEqual({ userId: 2, name: 'Benjamin', status: 'disabled', platformRoles: [] });
    const viewer = viewerOf(state, 1);
    expect(viewer.communities).toEqual(new Map([[1, { role: 'member', status: 'pending' }]]));
    expect(viewer.projects).toEqual(new Map([[10, 'mentor']]));
    expect([...viewer.circles]).toEqual([101]);
  });

  it('given a community-project link removed, then the project is no longer in that community', () => {
    const state = foldDirectory([...world, e('CommunityProjectRemoved', { communityProjectId: 1000 })]);

    expect(projectOf(state, 10)?.communityIds).toEqual([2]);
  });

  it('given a project linked to communities out of order, then its communities ascend numerically, once each', () => {
    const state = foldDirectory([
      ...world,
      e('CommunityUpserted', { communityId: 9, name: 'Nine', visibility: 'public' }),
      e('CommunityUpserted', { communityId: 10, name: 'Ten', visibility: 'public' }),
      e('CommunityProjectUpserted', { communityProjectId: 1003, communityId: 10, projectId: 10 }),
      e('CommunityProjectUpserted', { communityProjectId: 1002, communityId: 9, projectId: 10 }),
      e('CommunityProjectUpserted', { communityProjectId: 1004, communityId: 9, projectId: 10 }),
      e('CommunityProjectUpserted', { communityProjectId: 2000, communityId: 2, projectId: 11 }),
    ]);

    expect(projectOf(state, 10)).toEqual({
      projectId: 10,
      name: 'Solar',
      visibility: 'private',
      teamCircleId: 100,
      mentorsCircleId: 101,
      communityIds: [1, 2, 9, 10],
    });
  });

  it('given another project linked to a community this one is not in, then that community is not listed for this one', () => {
    const state = foldDirectory([
      ...world,
      e('CommunityUpserted', { communityId: 9, name: 'Nine', visibility: 'public' }),
      e('CommunityProjectUpserted', { communityProjectId: 2001, communityId: 9, projectId: 11 }),
    ]);

    expect(projectOf(state, 10)?.communityIds).toEqual([1, 2]);
  });

  it('given a community the feed never described, then communityOf is null', () => {
    expect(communityOf(foldDirectory(world), 5)).toBeNull();
    expect(communityOf(foldDirectory(world), 2)).toEqual({ communityId: 2, name: 'Two', visibility: 'private' });
  });

  it('given events of other streams and paragraphs or applications, then they change nothing', () => {
    const noise = [
      e('ResourceCreated', { resourceId: 1 }),
      e('ParagraphUpserted', { paragraphId: 1, projectId: 10, communityId: null }),
      e('ApplicationUpserted', { applicationId: 1 }),
    ];

    expect(foldDirectory([...world, ...noise])).toEqual(foldDirectory(world));
  });

  it('given removals of what was never there, then nothing changes and nothing fails', () => {
    const removals = [
      e('CommunityMemberRemoved', { communityId: 1, userId: 8 }),
      e('ProjectMemberRemoved', { projectId: 10, userId: 8 }),
      e('CircleMemberRemoved', { circleId: 300, userId: 8 }),
    ];

    expect(viewerOf(foldDirectory([...world, ...removals]), 8)).toEqual(viewerOf(foldDirectory(world), 8));
  });

  it('given a member of two circles, when removed from one, then the other stays', () => {
    const state = foldDirectory([
      ...world,
      e('CircleUpserted', {
        circleId: 302,
        name: 'More',
        longName: '',
        isActive: true,
        projectId: null,
        communityId: 2,
      }),
      e('CircleMemberSet', { circleId: 302, userId: 1 }),
      e('CircleMemberRemoved', { circleId: 300, userId: 1 }),
    ]);

    expect([...viewerOf(state, 1).circles].sort()).toEqual([100, 302]);
  });
});

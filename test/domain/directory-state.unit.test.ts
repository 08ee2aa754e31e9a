import { foldDirectory, projectOf, viewerOf } from '../../src/directory/directory-state';

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
});

/**
 * The directory projection, given / when / then over a fresh SQLite read model: what the store
 * answers after the directory feed, and that applying it again changes nothing.
 */
import { DIRECTORY_STREAM } from '../../src/directory/directory-events';
import { demo, demoDirectory } from '../support/demo-directory';
import { ProjectionSpecification, onStream } from '../support/projection-specification';

const given = ProjectionSpecification.for('directory');
const directory = (...events: { type: string; data: unknown }[]) => onStream(DIRECTORY_STREAM, ...events);
const { users, communities, projects, communityProjects, circles, paragraphs } = demo;

describe('directory projection', () => {
  it('given nothing, when the demo directory is fed, then the store answers its people, places and memberships', () =>
    given()
      .when(directory(...demoDirectory.events))
      .then(async (store) => {
        expect(await store.user(users.team)).toEqual({
          userId: users.team,
          name: 'Ada Lovelace',
          status: 'active',
          platformRoles: [],
        });
        expect((await store.user(users.auditor))?.platformRoles).toEqual(['auditor']);
        expect(await store.community(communities.public1)).toEqual({
          communityId: communities.public1,
          name: 'Green Valley Makers',
          visibility: 'public',
        });
        expect(await store.project(projects.solar)).toMatchObject({
          projectId: projects.solar,
          name: 'Solar Kiosk',
          teamCircleId: circles.solarTeam,
          mentorsCircleId: circles.solarMentors,
          communityIds: [communities.public1, communities.private2],
        });
        expect(await store.communityProject(communityProjects.solarIn1)).toEqual({
          communityProjectId: communityProjects.solarIn1,
          communityId: communities.public1,
          projectId: projects.solar,
        });
        expect(await store.paragraph(paragraphs.solarIn1)).toEqual({
          paragraphId: paragraphs.solarIn1,
          projectId: projects.solar,
          communityId: communities.public1,
        });
        expect((await store.memberships(users.admin1)).communities).toEqual([
          { communityId: communities.public1, role: 'admin', status: 'approved' },
        ]);
        expect((await store.memberships(users.circleMember)).circleIds).toEqual([circles.reviewers1]);
      }));

  it('given the demo directory, when a member is removed and a user renamed, then the store answers the change', () =>
    given(directory(...demoDirectory.events))
      .when(
        directory(
          { type: 'CommunityMemberRemoved', data: { communityId: communities.public1, userId: users.member1 } },
          { type: 'UserUpserted', data: { userId: users.outsider, name: 'Hal Renamed', status: 'active' } },
        ),
      )
      .then(async (store) => {
        expect((await store.memberships(users.member1)).communities).toEqual([]);
        expect((await store.user(users.outsider))?.name).toBe('Hal Renamed');
      }));

  it('given the demo directory, when a project leaves a community, then the project no longer lists it', () =>
    given(directory(...demoDirectory.events))
      .when(directory({ type: 'CommunityProjectRemoved', data: { communityProjectId: communityProjects.solarIn2 } }))
      .then(async (store) => {
        expect(await store.communityProject(communityProjects.solarIn2)).toBeNull();
        expect((await store.project(projects.solar))?.communityIds).toEqual([communities.public1]);
      }));
});

/**
 * What each write appends to the log, and how it is stamped (docs/api.md "Events": actor,
 * credential, correlation id), seen over real HTTP and through the event store port: the answer
 * of the request and the events after the log's head before it.
 *
 * The world is the demo directory; given per test: a resource of project 10 created by its team
 * (Ada), and an API key of community 1's admin (Cleo).
 */
import { ApiSpecification } from '../support/api-specification';
import { demo } from '../support/demo-directory';
import { newResource, resourceApi, scope } from '../support/resource-api';
import { serverForSuite } from '../support/suite-server';

const { users, communities, communityProjects } = demo;

describe('the events a write appends', () => {
  const server = serverForSuite();
  const given = ApiSpecification.for(server);
  const resources = resourceApi(server);
  const newCp = () =>
    resources.create(users.team, newResource(scope.communityProject(communityProjects.solarIn1), { privacyLevel: 2 }));
  const newKey = async (userId: number) => {
    const res = await server.post<{ id: number; key: string }>(
      '/api/apikey',
      { name: 'robot' },
      { token: await server.sessionToken(userId) },
    );
    if (res.status !== 200) throw new Error(`given: key creation answered ${res.status} ${res.text}`);
    return res.body;
  };

  it('given the demo directory, when the team creates a resource sending a correlation id, then its id allocated and ResourceCreated on its stream, both stamped with the session and that id', async () => {
    const body = newResource(scope.communityProject(communityProjects.solarIn1), {
      name: 'Kiosk wiring',
      privacyLevel: 3,
    });

    const { response, events } = await given()
      .when({
        method: 'POST',
        path: '/api/Resource/SaveProjectResource',
        body,
        as: { session: users.team },
        correlationId: 'create-1',
      })
      .then({
        status: 200,
        body: { name: 'Kiosk wiring', privacyLevel: 3 },
        events: [
          { type: 'IdAllocated', streamId: 'sequence-resource' },
          { type: 'ResourceCreated', data: { name: 'Kiosk wiring', privacyLevel: 3, createdBy: users.team } },
        ],
      });

    expect(response.body.id).toBeGreaterThan(0);
    expect(events[0]?.data).toEqual({ id: response.body.id });
    expect(events[1]?.streamId).toBe(`resource-${response.body.id}`);
  });

  it('given a resource, when the team updates it through an impersonation token, then ResourceUpdated names the impersonator, under the echoed correlation id', async () => {
    const resource = await newCp();

    await given()
      .when({
        method: 'POST',
        path: '/api/Resource/SaveProjectResource',
        body: {
          ...newResource(scope.communityProject(communityProjects.solarIn1), { name: 'Renamed', privacyLevel: 2 }),
          id: resource.id,
        },
        as: { session: users.team, impersonatorId: users.admin1 },
      })
      .then({
        status: 200,
        body: { id: resource.id, name: 'Renamed' },
        events: [{ type: 'ResourceUpdated', streamId: `resource-${resource.id}`, data: { name: 'Renamed' } }],
      });
  });

  it('given a resource, when the team removes it, then ResourceDeleted on its stream', async () => {
    const resource = await newCp();

    await given()
      .when({
        method: 'GET',
        path: `/api/Resource/RemoveProjectResource?id=${resource.id}`,
        as: { session: users.team },
        correlationId: 'remove-1',
      })
      .then({
        status: 200,
        body: { statusCode: 200 },
        events: [{ type: 'ResourceDeleted', streamId: `resource-${resource.id}`, data: { resourceId: resource.id } }],
      });
  });

  it('given a resource and an API key of the owning admin, when the admin shares it with the key, then ResourceShared stamped with the key', async () => {
    const resource = await newCp();
    const key = await newKey(users.admin1);

    await given()
      .when({
        method: 'POST',
        path: '/api/Privacy/SaveResourcePrivacy',
        body: { resourceId: resource.id, sharesToUpsert: [{ communityId: communities.private2, privacyLevel: 1 }] },
        as: { apiKey: key, userId: users.admin1 },
        correlationId: 'share-1',
      })
      .then({
        status: 200,
        events: [
          {
            type: 'ResourceShared',
            streamId: `resource-${resource.id}`,
            data: { resourceId: resource.id, communityId: communities.private2, privacyLevel: 1 },
          },
        ],
      });
  });

  it('given a new admin of community 3, when they create an API key, then the key’s id allocated and ApiKeyCreated on their key stream, holding no secret', async () => {
    const admin = 880_301;
    const { response, events } = await given([
      { type: 'UserUpserted', data: { userId: admin, name: 'Key Maker', status: 'active' } },
      {
        type: 'CommunityMemberSet',
        data: { communityId: communities.public3, userId: admin, role: 'admin', status: 'approved' },
      },
    ])
      .when({
        method: 'POST',
        path: '/api/apikey',
        body: { name: 'nightly' },
        as: { session: admin },
        correlationId: 'key-1',
      })
      .then({
        status: 200,
        body: { name: 'nightly' },
        events: [
          { type: 'IdAllocated', streamId: 'sequence-apikey' },
          { type: 'ApiKeyCreated', streamId: `apikeys-${admin}`, data: { userId: admin, name: 'nightly' } },
        ],
      });

    expect(JSON.stringify(events[1]?.data)).not.toContain(response.body.key);
  });

  it('given a member of the owning community, when they try to create a resource, then 403 and nothing appended', () =>
    given()
      .when({
        method: 'POST',
        path: '/api/Resource/SaveProjectResource',
        body: newResource(scope.communityProject(communityProjects.solarIn1)),
        as: { session: users.member1 },
        correlationId: 'refused-1',
      })
      .thenRefused(403, '/problems/forbidden'));
});

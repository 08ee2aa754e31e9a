/**
 * The document and the service accept the same bodies. Every JSON body the service accepts in any
 * suite is checked against the document by the test server (test/support/documented-request.ts);
 * here the other way: what the document refuses, the service refuses too, and a record sent back as
 * it was received passes both.
 */
import { demo } from '../support/demo-directory';
import { documentRefuses } from '../support/documented-request';
import { resourceApi, newResource, scope } from '../support/resource-api';
import { serverForSuite } from '../support/suite-server';

describe('request bodies: the OpenAPI document and the service agree', () => {
  const server = serverForSuite();
  const api = resourceApi(server);
  const save = '/api/Resource/SaveProjectResource';

  it('given a record GetResourceList answered, when it is sent back with a change, then the document and the service accept it', async () => {
    const created = await api.create(
      demo.users.team,
      newResource(scope.communityProject(demo.communityProjects.solarIn1)),
    );
    const listed = await api.listOk(demo.users.team, { projectId: demo.projects.solar, communityId: 1, take: 100 });
    const record = listed.resources.list.find((r) => r.id === created.id);
    expect(record).toBeDefined();
    const body = { ...record, name: 'Renamed as received' };

    expect(documentRefuses('POST', save, body)).toBeUndefined();
    expect((await api.save(demo.users.team, body)).status).toBe(200);
  });

  it.each([
    ['an unknown field', { pagesize: 1 }],
    ['a name of the wrong type', { name: 7 }],
    ['no resourceUrl', { resourceUrl: undefined }],
  ])('given a body with %s, then the document refuses it and so does the service (400)', async (_case, change) => {
    const body = { ...newResource(scope.communityProject(demo.communityProjects.solarIn1)), ...change };

    expect(documentRefuses('POST', save, JSON.parse(JSON.stringify(body)))).toEqual(expect.any(String));
    expect((await api.save(demo.users.team, body)).status).toBe(400);
  });
});

import { MongoServerError, MongoServerSelectionError } from 'mongodb';
import { demo } from '../support/demo-directory';
import { serverForSuite } from '../support/suite-server';

/**
 * A store that is down or slow is the service's passing trouble, not a bug. A query past
 * its maxTimeMS (MongoDB code 50) or a server that cannot be selected answers 503
 * `/problems/unavailable` with Retry-After, like every other 503, instead of a 500; whether it
 * fails in a route or in authentication (which reads the directory).
 */
describe('a read store that is down or too slow', () => {
  const server = serverForSuite();
  const maxTimeExpired = () =>
    new MongoServerError({ code: 50, codeName: 'MaxTimeMSExpired', errmsg: 'operation exceeded time limit' });

  afterEach(() => jest.restoreAllMocks());

  it.each([
    ['a query past its maxTimeMS', maxTimeExpired],
    [
      'no server to select',
      () => new MongoServerSelectionError('Server selection timed out after 5000 ms', {} as never),
    ],
  ])('given %s in a route, then 503 unavailable with Retry-After', async (_, failure) => {
    const token = await server.sessionToken(demo.users.team);
    jest.spyOn(server.services.stores.resources, 'page').mockRejectedValue(failure());

    const res = await server.post('/api/Project/GetResourceList', { projectId: demo.projects.solar }, { token });

    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(res.body).toMatchObject({ type: '/problems/unavailable', status: 503 });
    expect(res.text).not.toContain('exceeded time limit');
  });

  it('given a query past its maxTimeMS while authenticating, then 503 unavailable with Retry-After', async () => {
    const token = await server.sessionToken(demo.users.team);
    jest.spyOn(server.services.directory, 'user').mockRejectedValue(maxTimeExpired());

    const res = await server.post('/api/Project/GetResourceList', { projectId: demo.projects.solar }, { token });

    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(res.body.type).toBe('/problems/unavailable');
  });

  it('given a bug (not a store outage), then still 500 internal', async () => {
    const token = await server.sessionToken(demo.users.team);
    jest.spyOn(server.services.stores.resources, 'page').mockRejectedValue(new TypeError('boom'));

    const res = await server.post('/api/Project/GetResourceList', { projectId: demo.projects.solar }, { token });

    expect(res.status).toBe(500);
    expect(res.body.type).toBe('/problems/internal');
  });
});

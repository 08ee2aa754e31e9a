/**
 * The API version (docs/api.md "Requests and answers"): every answer names it in `Api-Version`,
 * whatever answered (a route, a problem, the docs page, a probe); a request may name it, and one
 * naming a version the service does not serve is a 400 naming the header. The OpenAPI document's
 * `info.version` is the same date.
 */
import fs from 'node:fs';
import path from 'node:path';
import { API_VERSION as CLIENT_VERSION, createResourcesClient } from '../../clients/typescript/client';
import { API_VERSION } from '../../src/api/api-version';
import { demo } from '../support/demo-directory';
import { serverForSuite } from '../support/suite-server';

const { users, projects } = demo;
const APP = 'https://app.example.org';
const list = { projectId: projects.solar, take: 3 };

describe('Api-Version', () => {
  const server = serverForSuite(undefined, { CORS_ORIGINS: APP });
  const as = async (userId: number, headers: Record<string, string> = {}) => ({
    token: await server.sessionToken(userId),
    headers,
  });

  it.each([
    ['a 200 of the API', 'POST', '/api/Project/GetResourceList', 200],
    ['a probe', 'GET', '/health/live', 200],
    ['the OpenAPI document', 'GET', '/openapi.json', 200],
    ['the docs page', 'GET', '/docs/', 200],
    ['a problem type page', 'GET', '/problems/validation', 200],
    ['a 404 of an unknown path', 'GET', '/nowhere', 404],
    ['a 405', 'DELETE', '/health/live', 405],
    ['a HEAD', 'HEAD', '/health/live', 200],
    ['an OPTIONS', 'OPTIONS', '/api/Project/GetResourceList', 204],
  ])('given %s, then the answer carries Api-Version', async (_what, method, p, status) => {
    const res = await server.request(method, p, method === 'POST' ? list : undefined, await as(users.team));

    expect(res.status).toBe(status);
    expect(res.headers.get('api-version')).toBe(API_VERSION);
  });

  it('given a request without credentials, then its 401 problem carries Api-Version', async () => {
    const res = await server.request('POST', '/api/Project/GetResourceList', list);

    expect(res.status).toBe(401);
    expect(res.body.type).toBe('/problems/unauthenticated');
    expect(res.headers.get('api-version')).toBe(API_VERSION);
  });

  it('given a body the schema refuses, then its 400 problem carries Api-Version', async () => {
    const res = await server.request('POST', '/api/Project/GetResourceList', { take: 'many' }, await as(users.team));

    expect(res.status).toBe(400);
    expect(res.headers.get('api-version')).toBe(API_VERSION);
  });

  it('given a request naming the current version, then it is served as one naming none', async () => {
    const named = await server.request(
      'POST',
      '/api/Project/GetResourceList',
      list,
      await as(users.team, { 'api-version': API_VERSION }),
    );
    const unnamed = await server.request('POST', '/api/Project/GetResourceList', list, await as(users.team));

    expect(named.status).toBe(200);
    expect(named.body).toEqual(unnamed.body);
    expect(named.headers.get('api-version')).toBe(API_VERSION);
  });

  it.each([
    ['an unknown version', '1999-01-01', 'is not a version of this API'],
    ['a value that is not a date', 'latest', 'must be a version date'],
    ['an empty value', '', 'must be a version date'],
  ])('given %s, then 400 naming the header and the supported versions', async (_what, value, reason) => {
    const res = await server.request(
      'POST',
      '/api/Project/GetResourceList',
      list,
      await as(users.team, { 'api-version': value }),
    );

    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(res.headers.get('api-version')).toBe(API_VERSION);
    expect(res.body.type).toBe('/problems/validation');
    expect(res.body.detail).toContain(reason);
    expect(res.body.detail).toContain(API_VERSION);
    expect(res.body.errors).toEqual([{ field: 'Api-Version', message: res.body.detail }]);
  });

  it('given an unknown version without credentials, then 400 before any credential is asked for', async () => {
    const res = await server.request('GET', '/api/user/getcurrent', undefined, {
      headers: { 'api-version': '1999-01-01' },
    });

    expect(res.status).toBe(400);
    expect(res.body.errors[0].field).toBe('Api-Version');
  });

  it('given OPTIONS naming an unknown version, then its Allow still: the methods of a path do not depend on the version', async () => {
    const res = await server.request('OPTIONS', '/health/live', undefined, {
      headers: { 'api-version': '1999-01-01' },
    });

    expect(res.status).toBe(204);
    expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect(res.headers.get('api-version')).toBe(API_VERSION);
  });

  it('given an unknown version from an allowed origin, then the 400 is readable by the browser', async () => {
    const res = await server.get('/health/live', { headers: { origin: APP, 'api-version': '1999-01-01' } });

    expect(res.status).toBe(400);
    expect(res.headers.get('access-control-allow-origin')).toBe(APP);
    expect(res.headers.get('access-control-expose-headers')).toContain('Api-Version');
  });

  it('given a preflight of a request naming its version, then Api-Version is an allowed request header', async () => {
    const res = await server.request('OPTIONS', '/api/Project/GetResourceList', undefined, {
      headers: {
        origin: APP,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type, api-version',
      },
    });

    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-headers')).toContain('Api-Version');
    expect(res.headers.get('api-version')).toBe(API_VERSION);
  });

  it('given the OpenAPI document, then its info.version is the version every answer names, and each operation documents the header', async () => {
    const res = await server.get('/openapi.json');
    const doc = res.body as {
      info: { version: string };
      paths: Record<string, Record<string, { parameters?: { $ref?: string }[]; responses: Record<string, any> }>>;
      components: { responses: Record<string, { headers?: Record<string, unknown> }> };
    };

    expect(doc.info.version).toBe(res.headers.get('api-version'));
    for (const [p, item] of Object.entries(doc.paths))
      for (const [method, operation] of Object.entries(item)) {
        const where = `${method.toUpperCase()} ${p}`;
        expect({ where, parameters: operation.parameters }).toEqual({
          where,
          parameters: expect.arrayContaining([{ $ref: '#/components/parameters/ApiVersion' }]),
        });
        for (const [status, answer] of Object.entries(operation.responses)) {
          const resolved = answer.$ref ? doc.components.responses[String(answer.$ref).split('/').pop()!] : answer;
          expect({ where, status, headers: Object.keys(resolved?.headers ?? {}) }).toEqual({
            where,
            status,
            headers: expect.arrayContaining(['Api-Version']),
          });
        }
      }
  });

  it('given the typed client, then it names the version it was generated for, the one served', async () => {
    const sent: (string | null)[] = [];
    const api = createResourcesClient({
      baseUrl: server.url,
      token: await server.sessionToken(users.team),
      fetch: async (input, init) => {
        const request = new Request(input, init);
        sent.push(request.headers.get('api-version'));
        return fetch(request);
      },
    });

    const listed = await api.POST('/api/Project/GetResourceList', { body: list });

    expect(listed.response.status).toBe(200);
    expect(sent).toEqual([API_VERSION]);
    expect(CLIENT_VERSION).toBe(API_VERSION);
  });

  it('given the API docs, then they name the current version', () => {
    const api = fs.readFileSync(path.join(__dirname, '../../docs/api.md'), 'utf8');

    expect(api).toContain(`Api-Version: ${API_VERSION}`);
  });
});

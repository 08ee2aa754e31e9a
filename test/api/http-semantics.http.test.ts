/**
 * HTTP semantics (docs/api.md "HTTP"): 405 with Allow, 415 for a body the endpoint does not read,
 * unknown body fields named on the endpoints whose body is listed completely, CORS for the
 * configured origins with preflights before authentication, strong ETags and 304 on downloads,
 * and a page behind every problem type.
 */
import fs from 'node:fs';
import path from 'node:path';
import { demo } from '../support/demo-directory';
import { newResource, resourceApi, scope } from '../support/resource-api';
import { serverForSuite } from '../support/suite-server';
import { fileApi } from '../support/upload-client';

const { users, communityProjects, projects } = demo;

/** Every problem `type` written in the service's sources, wherever it is answered from. */
function problemTypesInSources(): string[] {
  const types = new Set<string>();
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (file.endsWith('.ts')) {
        for (const m of fs.readFileSync(file, 'utf8').matchAll(/\/problems\/[a-z][a-z-]*/g)) types.add(m[0]);
      }
    }
  };
  walk(path.join(__dirname, '../../src'));
  return [...types].sort();
}
const APP = 'https://app.example.org';

describe('HTTP semantics', () => {
  const server = serverForSuite(undefined, { CORS_ORIGINS: `${APP}, https://admin.example.org` });
  const as = async (userId: number) => ({ token: await server.sessionToken(userId) });

  describe('405', () => {
    it.each([
      ['GET', '/api/Resource/SaveProjectResource', 'POST'],
      ['PUT', '/api/apikey/5', 'DELETE'],
      ['DELETE', '/health/live', 'GET, HEAD'],
    ])('given %s on %s, then 405 method-not-allowed with Allow listing %s', async (method, path, allowed) => {
      const res = await server.request(method, path, undefined, await as(users.team));

      expect(res.status).toBe(405);
      expect(res.body.type).toBe('/problems/method-not-allowed');
      expect(res.headers.get('allow')).toBe(`${allowed}, OPTIONS`);
    });

    it('given HEAD on RemoveProjectResource (a GET that deletes), then 405 with Allow listing GET, and the resource stays', async () => {
      const created = await resourceApi(server).create(
        users.team,
        newResource(scope.communityProject(communityProjects.solarIn1)),
      );
      const res = await server.request(
        'HEAD',
        `/api/Resource/RemoveProjectResource?id=${created.id}`,
        undefined,
        await as(users.team),
      );

      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('GET, OPTIONS');
      const read = await server.get(`/api/Privacy/GetResourcePrivacy?resourceId=${created.id}`, await as(users.team));
      expect(read.status).toBe(200);
    });

    it('given no credential, when a known path is called with the wrong method, then still 405, not 401', async () => {
      const res = await server.request('GET', '/api/Privacy/SaveResourcePrivacy');

      expect(res.status).toBe(405);
      expect(res.body.type).toBe('/problems/method-not-allowed');
    });

    it('given the root path, then 404 route-not-found pointing to the docs page', async () => {
      const res = await server.request('GET', '/');

      expect(res.status).toBe(404);
      expect(res.body.type).toBe('/problems/route-not-found');
      // Where a newcomer who opens the service's address goes next.
      expect(res.body.detail).toContain('/docs');
    });

    it('given an unknown path, then 404 route-not-found', async () => {
      const res = await server.request('GET', '/api/Resource/Nope', undefined, await as(users.team));

      expect(res.status).toBe(404);
      expect(res.body.type).toBe('/problems/route-not-found');
    });
  });

  // Exact paths are found by one lookup before the router (src/api/exact-path-routes.ts); what the
  // lookup does not find is the router's, served as Express serves it.
  describe('route lookup', () => {
    const list = { projectId: projects.solar, take: 3 };

    it.each(['/api/project/getresourcelist', '/api/Project/GetResourceList/'])(
      'given the list path as %s (other letter case, trailing slash), then the same answer as the exact path',
      async (variant) => {
        const exact = await server.request('POST', '/api/Project/GetResourceList', list, await as(users.team));
        const other = await server.request('POST', variant, list, await as(users.team));

        expect(exact.status).toBe(200);
        expect(other.status).toBe(200);
        expect(other.body).toEqual(exact.body);
      },
    );

    it.each([
      ['POST', '/API/Project/GetResourceList'],
      ['POST', '/api/project/getresourcelist/'],
      ['GET', '/INTERNAL/metrics'],
    ])(
      'given %s %s (a guarded prefix in another letter case) without a credential, then the guard still answers 401',
      async (method, variant) => {
        const res = await server.request(method, variant, method === 'POST' ? list : undefined);

        expect(res.status).toBe(401);
        expect(res.body.type).toBe('/problems/unauthenticated');
      },
    );

    it('given HEAD on a GET route, then its status and headers without a body', async () => {
      const get = await server.request('GET', '/health/live');
      const head = await server.request('HEAD', '/health/live');

      expect(head.status).toBe(get.status);
      expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
      expect(head.text).toBe('');
    });

    it('given a list answered, then its duration is recorded under the route template, not the path asked', async () => {
      await server.request('POST', '/api/Project/GetResourceList', list, await as(users.team));
      const metrics = await server.get('/internal/metrics', {
        headers: { 'x-directory-token': server.services.secrets.directoryToken },
      });

      expect(metrics.text).toMatch(
        /^http_request_duration_seconds_count\{method="POST",route="\/api\/Project\/GetResourceList",status="200"\} [1-9]/m,
      );
    });
  });

  describe('415', () => {
    it.each([
      ['application/x-www-form-urlencoded', 'projectId=10'],
      ['text/plain', '{"projectId":10}'],
    ])('given a %s body on a JSON endpoint, then 415 unsupported-media-type', async (contentType, body) => {
      const res = await server.request('POST', '/api/Project/GetResourceList', body, {
        ...(await as(users.team)),
        headers: { 'content-type': contentType },
      });

      expect(res.status).toBe(415);
      expect(res.body.type).toBe('/problems/unsupported-media-type');
      expect(res.headers.get('accept-post')).toBe('application/json');
    });

    it('given a rotation without a body (it is optional), then it is not a 415', async () => {
      const created = await server.post('/api/apikey', { name: 'no body' }, await as(users.admin1));
      const res = await server.request(
        'POST',
        `/api/apikey/${created.body.id}/rotate`,
        undefined,
        await as(users.admin1),
      );

      expect(res.status).toBe(200);
    });
  });

  describe('unknown body fields', () => {
    it.each([
      ['/api/Project/GetResourceList', { projectId: projects.solar, pagesize: 5 }, ['pagesize']],
      [
        '/api/Resource/SaveProjectResource',
        { ...newResource(scope.communityProject(communityProjects.solarIn1)), privacy: 2, tag: 'x' },
        ['privacy', 'tag'],
      ],
      ['/api/Privacy/SaveResourcePrivacy', { resourceId: 1, shares: [] }, ['shares']],
      ['/api/Privacy/UnshareResourceFromCommunity', { resourceId: 1, communityId: 2, community: 2 }, ['community']],
      ['/api/apikey', { name: 'k', expiresIn: 3 }, ['expiresIn']],
    ])('given %s with a field it does not know, then 400 naming it', async (path, body, fields) => {
      const res = await server.post(path, body, await as(path === '/api/apikey' ? users.admin1 : users.team));

      expect(res.status).toBe(400);
      expect(res.body.type).toBe('/problems/validation');
      expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(fields);
    });

    it('given the directory feed with a field it does not know, then 400 naming it, nothing stored', async () => {
      const res = await server.request(
        'POST',
        '/internal/directory/events',
        JSON.stringify({ events: [{ type: 'UserUpserted', data: { userId: 90, name: 'X', status: 'active' } }], x: 1 }),
        {
          headers: { 'content-type': 'application/json', 'x-directory-token': server.services.secrets.directoryToken },
        },
      );

      expect(res.status).toBe(400);
      expect(res.body.type).toBe('/problems/validation');
      expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['x']);
    });

    it.each([
      ['/api/ApplicationDefinition/70/Applications', { take: 1, extra: true }],
      ['/api/apikey/{id}/rotate', { graceHours: 1, extra: true }],
    ])('given the open body of %s with a field it does not know, then the field is ignored', async (path, body) => {
      const admin = await as(users.admin1);
      const id = path.includes('{id}') ? (await server.post('/api/apikey', { name: 'open body' }, admin)).body.id : 0;

      const res = await server.post(path.replace('{id}', String(id)), body, admin);

      expect(res.status).toBe(200);
    });

    it('given the OpenAPI document, then its description names the closed bodies and the open ones as they behave', async () => {
      const doc = (await server.get('/openapi.json')).body;
      const paragraph = (doc.info.description as string).split('\n\n').find((p) => p.startsWith('Request bodies'));

      expect(paragraph).toContain(
        'The bodies of getResourceList, saveProjectResource, saveResourcePrivacy, ' +
          'unshareResourceFromCommunity, createApiKey, ingestDirectoryEvents, rebuildReadModels are closed',
      );
      expect(paragraph).toContain('The other JSON bodies (listApplications, rotateApiKey) are open');
    });

    it('given the record a save answered, when it is sent back with a change, then the read-only fields are ignored and it saves', async () => {
      const created = await server.post(
        '/api/Resource/SaveProjectResource',
        newResource(scope.communityProject(communityProjects.solarIn1)),
        await as(users.team),
      );
      expect(created.status).toBe(200);
      const listed = await server.post(
        '/api/Project/GetResourceList',
        { projectId: projects.solar, communityId: 1, take: 1000 },
        await as(users.team),
      );
      const record = listed.body.resources.list.find((r: { id: number }) => r.id === created.body.id);

      const res = await server.post(
        '/api/Resource/SaveProjectResource',
        { ...record, name: 'Renamed' },
        await as(users.team),
      );

      expect(res.status).toBe(200);
      expect(res.body.name).toBe('Renamed');
    });
  });

  describe('CORS', () => {
    it('given an allowed origin, when it sends a preflight without credentials, then 204 with the CORS headers, before authentication', async () => {
      const res = await server.request('OPTIONS', '/api/Resource/SaveProjectResource', undefined, {
        headers: {
          origin: APP,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, content-type, idempotency-key',
        },
      });

      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe(APP);
      expect(res.headers.get('access-control-allow-methods')).toContain('POST');
      expect(res.headers.get('access-control-allow-headers')).toContain('Idempotency-Key');
    });

    it('given an allowed origin, when it calls the API, then the answer names it and exposes the headers a client reads', async () => {
      const res = await server.request('GET', '/api/user/getcurrent', undefined, {
        ...(await as(users.team)),
        headers: { origin: APP },
      });

      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe(APP);
      expect(res.headers.get('access-control-expose-headers')).toContain('Idempotent-Replayed');
      expect(res.headers.get('vary')).toContain('Origin');
    });

    it('given an origin that is not configured, then no CORS header is given', async () => {
      const res = await server.request('OPTIONS', '/api/Resource/SaveProjectResource', undefined, {
        headers: { origin: 'https://evil.example.org', 'access-control-request-method': 'POST' },
      });

      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      expect(res.headers.get('access-control-allow-methods')).toBeNull();
    });
  });

  describe('downloads', () => {
    const files = fileApi(server);

    it('given a download with its ETag, when it is asked for with If-None-Match, then 304 without a body', async () => {
      const path = await files.uploaded(users.team, 'notes.txt', 'text/plain', Buffer.from('hello etag'));
      const first = await files.download(users.team, path);
      const etag = first.headers.get('etag');
      expect(first.status).toBe(200);
      expect(etag).toMatch(/^"[^"]+"$/);

      const again = await files.download(users.team, path, { 'if-none-match': etag ?? '' });

      expect(again.status).toBe(304);
      expect(again.bytes.length).toBe(0);
      expect(again.headers.get('etag')).toBe(etag);
    });

    it('given another file, then its ETag differs and does not match', async () => {
      const one = await files.uploaded(users.team, 'one.txt', 'text/plain', Buffer.from('same'));
      const two = await files.uploaded(users.team, 'two.txt', 'text/plain', Buffer.from('same'));
      const etagOne = (await files.download(users.team, one)).headers.get('etag') ?? '';

      const res = await files.download(users.team, two, { 'if-none-match': etagOne });

      expect(res.status).toBe(200);
      expect(res.headers.get('etag')).not.toBe(etagOne);
    });
  });

  describe('problem types', () => {
    it.each(problemTypesInSources())(
      'given GET %s, a type the service emits, then a page explaining it',
      async (type) => {
        const res = await server.get(type);

        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toContain('text/html');
        expect(res.text).toContain(type);
      },
    );

    it('given the problem types the OpenAPI document lists, then each has its page', async () => {
      const doc = (await server.get('/openapi.json')).body;
      const listed = [...(doc.info.description as string).matchAll(/`(\/problems\/[a-z-]+)`/g)].map((m) => m[1]);
      expect(listed.length).toBeGreaterThan(10);

      const statuses = await Promise.all(listed.map(async (type) => (await server.get(type as string)).status));

      expect(statuses.every((status) => status === 200)).toBe(true);
    });

    it('given a type that does not exist, then 404 not-found', async () => {
      const res = await server.get('/problems/nope');

      expect(res.status).toBe(404);
      expect(res.body.type).toBe('/problems/not-found');
    });
  });
});

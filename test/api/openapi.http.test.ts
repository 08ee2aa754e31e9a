import type { z } from 'zod';
import { buildApp } from '../../src/app/app';
import {
  currentUserSchema,
  directoryFeedAnswerSchema,
  healthLiveSchema,
  healthReadySchema,
  problemSchema,
  readModelDigestSchema,
  rebuildJobSchema,
  rebuildJobStartedSchema,
  removeProjectResourceSchema,
} from '../../src/api/response-schemas';
import { applicationListSchema } from '../../src/applications/application-list';
import { resourcePrivacySchema } from '../../src/privacy/privacy-answer-schemas';
import { resourceListSchema, savedResourceSchema } from '../../src/resources/resource-record';
import { demo, demoDirectory } from '../support/demo-directory';
import type { HttpResult, TestServer } from '../support/test-server';
import { startTestServer } from '../support/test-server';
import { waitForJob } from '../support/rebuild-job';

/**
 * GET /openapi.json and the contract behind it:
 *  (a) the document is OpenAPI 3.1 and every `$ref` in it resolves;
 *  (b) every method + path the express app serves (found by walking its router, so a new
 *      undocumented route fails here) is documented, and nothing else is;
 *  (c) real answers validate against the response schemas the document is generated from, with
 *      their status documented for that operation.
 */

type Method = 'get' | 'post';
type Doc = {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, { security?: Record<string, string[]>[]; responses: Record<string, any> }>>;
  components: Record<string, Record<string, unknown>>;
};

/** `METHOD /path` of every route registered on the app, express `:param` written as `{param}`. */
function servedRoutes(app: ReturnType<typeof buildApp>): string[] {
  const served: string[] = [];
  const walk = (stack: any[]) => {
    for (const layer of stack) {
      if (layer.route) {
        const routePath: unknown = layer.route.path;
        if (typeof routePath !== 'string')
          throw new Error(`route path ${String(routePath)} is not a string: extend the walker`);
        for (const [method, on] of Object.entries(layer.route.methods as Record<string, boolean>)) {
          if (on) served.push(`${method.toUpperCase()} ${routePath.replace(/:(\w+)/g, '{$1}')}`);
        }
      } else if (Array.isArray(layer.handle?.stack)) {
        // Routers are mounted without a prefix; one with a prefix would need it joined here.
        if (!layer.slash) throw new Error(`a router is mounted under ${String(layer.rawPath)}: extend the walker`);
        walk(layer.handle.stack);
      }
    }
  };
  walk((app as any).router.stack);
  return served.sort();
}

const documentedRoutes = (doc: Doc): string[] =>
  Object.entries(doc.paths)
    .flatMap(([p, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${p}`))
    .sort();

/** Every `$ref` value anywhere in the document. */
function refsOf(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v) => refsOf(v, out));
  else if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      if (key === '$ref' && typeof v === 'string') out.push(v);
      else refsOf(v, out);
    }
  }
  return out;
}

describe('OpenAPI document and response contract', () => {
  let server: TestServer;
  let doc: Doc;
  const tokens = new Map<number, string>();
  const auth = async (userId: number) => {
    if (!tokens.has(userId)) tokens.set(userId, await server.token(userId));
    return { token: tokens.get(userId) };
  };
  const internal = () => ({ headers: { 'x-directory-token': server.services.secrets.directoryToken } });

  /**
   * Checks one real answer against the document and the schemas: its status is documented for
   * the operation, its media type is the documented one, and its body parses with `schema`
   * (with the problem schema on an error status). The documented 2xx schema must be `schema`.
   */
  function expectContract(res: HttpResult, method: Method, docPath: string, schema?: z.ZodType): void {
    const op = doc.paths[docPath]?.[method];
    if (!op) throw new Error(`${method.toUpperCase()} ${docPath} is not documented`);
    // Problem answers are shared components, referenced from each operation.
    const answer = op.responses[String(res.status)];
    const documented = answer?.$ref
      ? doc.components.responses?.[String(answer.$ref).split('/').pop() as string]
      : answer;
    if (!documented) {
      throw new Error(`${method.toUpperCase()} ${docPath} answered ${res.status}, not documented: ${res.text}`);
    }
    const mediaTypes = Object.keys(documented.content ?? {});
    if (mediaTypes.length === 0) {
      expect(res.text).toBe('');
      return;
    }
    expect(mediaTypes).toContain((res.headers.get('content-type') ?? '').split(';')[0]);
    const expected = res.status >= 400 ? problemSchema : schema;
    if (!expected) throw new Error('a schema is needed for a body');
    const id = (expected.meta() as { id?: string } | undefined)?.id;
    expect(documented.content[mediaTypes[0] as string].schema).toEqual({ $ref: `#/components/schemas/${id}` });
    const parsed = expected.safeParse(res.body);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(body)'}: ${i.message}`).join('\n');
      throw new Error(
        `${method.toUpperCase()} ${docPath} ${res.status} does not match the schema:\n${issues}\n${res.text}`,
      );
    }
    if (res.status >= 400) expect((res.body as { status: number }).status).toBe(res.status);
  }

  beforeAll(async () => {
    server = await startTestServer();
    const feed = await server.directory(demoDirectory.events);
    expect(feed.status).toBe(200);
    doc = (await server.get<Doc>('/openapi.json')).body;
    expectContract(feed, 'post', '/internal/directory/events', directoryFeedAnswerSchema);
  });
  afterAll(() => server.close());

  describe('(a) the document', () => {
    it('is an OpenAPI 3.1 document titled and versioned from package.json, served without a credential', async () => {
      const res = await server.get('/openapi.json');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.body.openapi).toMatch(/^3\.1\.\d+$/);
      expect(res.body.info).toMatchObject({ title: 'project-resources-service', version: expect.any(String) });
      expect(Object.keys(res.body.paths).length).toBeGreaterThan(0);
    });

    it('resolves every $ref to a component', () => {
      const refs = refsOf(doc);
      expect(refs.length).toBeGreaterThan(0);
      for (const ref of refs) {
        const [, , kind, name] = ref.split('/');
        expect(doc.components[kind as string]?.[name as string]).toBeDefined();
      }
    });

    it('secures /api with a bearer JWT or an API key (key management: bearer only) and /internal with the X-Directory-Token header; the rest is public', () => {
      expect(doc.components.securitySchemes).toEqual({
        bearerAuth: expect.objectContaining({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }),
        apiKeyAuth: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-API-Key' }),
        directoryToken: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-Directory-Token' }),
      });
      for (const [p, item] of Object.entries(doc.paths)) {
        for (const op of Object.values(item)) {
          if (p.startsWith('/api/apikey')) expect(op.security).toEqual([{ bearerAuth: [] }]);
          else if (p.startsWith('/api/')) expect(op.security).toEqual([{ bearerAuth: [] }, { apiKeyAuth: [] }]);
          else if (p.startsWith('/internal/')) expect(op.security).toEqual([{ directoryToken: [] }]);
          else expect(op.security).toEqual([]);
        }
      }
    });

    it('documents 503 with Retry-After on every route behind a credential: each reads a store, which may be down or too slow', () => {
      const unavailable = doc.components.responses?.Unavailable as { headers?: Record<string, unknown> } | undefined;
      expect(unavailable?.headers).toHaveProperty('Retry-After');
      for (const item of Object.values(doc.paths)) {
        for (const op of Object.values(item)) {
          if (op.security?.length === 0) continue;
          expect(String(op.responses['503']?.$ref)).toMatch(/^#\/components\/responses\/Unavailable(WithRateLimit)?$/);
        }
      }
    });
  });

  describe('(b) coverage', () => {
    it('documents exactly the routes the app serves', () => {
      const served = servedRoutes(buildApp(server.services));
      expect(served).toContain('GET /openapi.json');
      expect(served).toContain('POST /api/ApplicationDefinition/{applicationDefinitionId}/Applications');
      expect(documentedRoutes(doc)).toEqual(served);
    });
  });

  describe('(c) real answers match the response schemas', () => {
    let shared: number; // community-project resource of 1000, level Community, shared into community 2
    let custom: number; // community-project resource of 1000, level Custom with circles 300 and 400

    beforeAll(async () => {
      const save = async (body: Record<string, unknown>) => {
        const res = await server.post('/api/Resource/SaveProjectResource', body, await auth(demo.users.team));
        expectContract(res, 'post', '/api/Resource/SaveProjectResource', savedResourceSchema);
        expect(res.status).toBe(200);
        return res.body.id as number;
      };
      const base = { id: 0, description: 'd', icon: 'book', communityProjectId: demo.communityProjects.solarIn1 };
      shared = await save({
        ...base,
        name: 'Pitch deck',
        resourceUrl: 'https://example.org/deck.pdf',
        privacyLevel: 2,
        resourceTags: ['pitch'],
      });
      custom = await save({
        ...base,
        name: 'Partner notes',
        resourceUrl: 'https://example.org/notes.docx',
        privacyLevel: 3,
      });

      const privacy = async (userId: number, body: unknown) => {
        const res = await server.post('/api/Privacy/SaveResourcePrivacy', body, await auth(userId));
        expectContract(res, 'post', '/api/Privacy/SaveResourcePrivacy');
        expect(res.status).toBe(200);
      };
      await privacy(demo.users.admin1, {
        resourceId: shared,
        sharesToUpsert: [{ communityId: demo.communities.private2, privacyLevel: 1 }],
      });
      await privacy(demo.users.team, {
        resourceId: custom,
        owner: {
          privacyLevel: 4,
          circlesToAdd: [
            { circleId: demo.circles.reviewers1, projectId: null, communityId: demo.communities.public1 },
            { circleId: demo.circles.partners10, projectId: demo.projects.solar, communityId: null },
          ],
        },
      });
    });

    /** A resource of the test's own, so that no test changes what another reads. */
    const ownResource = async () => {
      const body = {
        id: 0,
        name: 'Own',
        resourceUrl: 'https://example.org/own.pdf',
        privacyLevel: 2,
        communityProjectId: demo.communityProjects.solarIn1,
      };
      const res = await server.post('/api/Resource/SaveProjectResource', body, await auth(demo.users.team));
      expect(res.status).toBe(200);
      return res.body.id as number;
    };

    it('SaveProjectResource: an update answers the saved resource too', async () => {
      const id = await ownResource();
      const res = await server.post(
        '/api/Resource/SaveProjectResource',
        {
          id,
          name: 'Pitch deck v2',
          resourceUrl: 'https://example.org/deck.pdf',
          privacyLevel: 2,
          communityProjectId: demo.communityProjects.solarIn1,
        },
        await auth(demo.users.team),
      );
      expectContract(res, 'post', '/api/Resource/SaveProjectResource', savedResourceSchema);
      expect(res.body).toMatchObject({ id, name: 'Pitch deck v2' });
    });

    it.each([
      ['team', demo.users.team, demo.communities.public1],
      ['mentor', demo.users.mentor, demo.communities.public1],
      ['community admin', demo.users.admin1, demo.communities.public1],
      ['plain member', demo.users.member1, demo.communities.public1],
      ['circle member', demo.users.circleMember, demo.communities.public1],
      ['outsider', demo.users.outsider, demo.communities.public1],
      ['admin of the shared-into community', demo.users.admin2, demo.communities.private2],
      ['team, project-wide', demo.users.team, null],
    ])('GetResourceList as the %s', async (_who, userId, communityId) => {
      const body = { projectId: demo.projects.solar, communityId, take: 50 };
      const res = await server.post('/api/Project/GetResourceList', body, await auth(userId));
      expectContract(res, 'post', '/api/Project/GetResourceList', resourceListSchema);
      expect(res.status).toBe(200);
    });

    it('GetResourceList: the records exercise the share and circle fields', async () => {
      const asMember = await server.post(
        '/api/Project/GetResourceList',
        { projectId: demo.projects.solar, communityId: demo.communities.public1 },
        await auth(demo.users.member1),
      );
      expect(asMember.body.resources.list.map((r: { id: number }) => r.id)).toContain(shared);
      const asTeam = await server.post(
        '/api/Project/GetResourceList',
        { projectId: demo.projects.solar, communityId: demo.communities.public1 },
        await auth(demo.users.team),
      );
      expect(asTeam.body.resources.list.find((r: { id: number }) => r.id === shared).currentlySharedWith).toHaveLength(
        1,
      );
      const fromShare = await server.post(
        '/api/Project/GetResourceList',
        { projectId: demo.projects.solar, communityId: demo.communities.private2 },
        await auth(demo.users.admin2),
      );
      expect(fromShare.body.resources.list.find((r: { id: number }) => r.id === shared)).toMatchObject({
        originCommunityId: demo.communities.public1,
        originCommunityName: 'Green Valley Makers',
      });
    });

    it.each([
      ['team', demo.users.team, 'shared'],
      ['owning community admin', demo.users.admin1, 'shared'],
      ['admin of the shared-into community', demo.users.admin2, 'shared'],
      ['plain member', demo.users.member1, 'shared'],
      ['team, custom level with circle groups', demo.users.team, 'custom'],
      ['circle member, custom level', demo.users.circleMember, 'custom'],
    ])('GetResourcePrivacy as the %s', async (_who, userId, which) => {
      const resourceId = which === 'shared' ? shared : custom;
      const res = await server.get(`/api/Privacy/GetResourcePrivacy?resourceId=${resourceId}`, await auth(userId));
      expectContract(res, 'get', '/api/Privacy/GetResourcePrivacy', resourcePrivacySchema);
      expect(res.status).toBe(200);
      if (which === 'custom' && userId === demo.users.team) {
        expect(res.body.owner.circles.map((g: { isProject: boolean }) => g.isProject)).toEqual([true, false]);
      }
    });

    it.each([
      ['defaults', {}],
      ['a page, most recent first', { take: 2, skip: 1, orderBy: 1 }],
      ['the count only', { take: 0 }],
    ])('Applications of definition 70 as its community admin: %s', async (_what, body) => {
      const res = await server.post(
        `/api/ApplicationDefinition/${demo.applicationDefinition}/Applications`,
        body,
        await auth(demo.users.admin1),
      );
      expectContract(
        res,
        'post',
        '/api/ApplicationDefinition/{applicationDefinitionId}/Applications',
        applicationListSchema,
      );
      expect(res.status).toBe(200);
    });

    it('getcurrent, with and without impersonation', async () => {
      const plain = await server.get('/api/user/getcurrent', await auth(demo.users.team));
      expectContract(plain, 'get', '/api/user/getcurrent', currentUserSchema);
      expect(plain.body).toMatchObject({
        id: demo.users.team,
        credential: 'session',
        apiKeyId: null,
        impersonatorId: null,
      });
      const token = await server.token(demo.users.team, { impersonatorId: demo.users.admin1 });
      const impersonated = await server.get('/api/user/getcurrent', { token });
      expectContract(impersonated, 'get', '/api/user/getcurrent', currentUserSchema);
      expect(impersonated.body.impersonatorId).toBe(demo.users.admin1);
    });

    it('RemoveProjectResource', async () => {
      const res = await server.get(
        `/api/Resource/RemoveProjectResource?id=${await ownResource()}`,
        await auth(demo.users.team),
      );
      expectContract(res, 'get', '/api/Resource/RemoveProjectResource', removeProjectResourceSchema);
      expect(res.body).toEqual({ statusCode: 200 });
    });

    it('health, digest and rebuild', async () => {
      expectContract(await server.get('/health/live'), 'get', '/health/live', healthLiveSchema);
      expectContract(await server.get('/health/ready'), 'get', '/health/ready', healthReadySchema);
      expectContract(
        await server.get('/internal/read-models/digest', internal()),
        'get',
        '/internal/read-models/digest',
        readModelDigestSchema,
      );
      const started = await server.post('/internal/read-models/rebuild', undefined, internal());
      expectContract(started, 'post', '/internal/read-models/rebuild', rebuildJobStartedSchema);
      const { job } = await waitForJob(server, started.body.jobId);
      expectContract(
        await server.get(`/internal/read-models/rebuild/${job.jobId}`, internal()),
        'get',
        '/internal/read-models/rebuild/{jobId}',
        rebuildJobSchema,
      );
      const metrics = await server.get('/internal/metrics', internal());
      expect(metrics.status).toBe(200);
      expect(doc.paths['/internal/metrics']?.get?.responses['200'].content).toHaveProperty('text/plain');
    });

    describe('errors are problem details', () => {
      const saveAs = async (userId: number, body: unknown) =>
        server.post('/api/Resource/SaveProjectResource', body, await auth(userId));
      const valid = {
        id: 0,
        name: 'x',
        resourceUrl: 'https://example.org/x',
        privacyLevel: 1,
        communityProjectId: demo.communityProjects.solarIn1,
      };

      it('400 from the request schema, naming each bad field', async () => {
        const res = await saveAs(demo.users.team, { ...valid, name: '', privacyLevel: 'two' });
        expect(res.status).toBe(400);
        expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expectContract(res, 'post', '/api/Resource/SaveProjectResource');
        expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['name', 'privacyLevel']);
      });

      it('400 from the domain, and for a body that is not JSON', async () => {
        const level = await saveAs(demo.users.team, { ...valid, privacyLevel: 6 });
        expect(level.status).toBe(400);
        expectContract(level, 'post', '/api/Resource/SaveProjectResource');
        const malformed = await server.post('/api/Resource/SaveProjectResource', '{"id":', await auth(demo.users.team));
        expect(malformed.status).toBe(400);
        expectContract(malformed, 'post', '/api/Resource/SaveProjectResource');
        const pathId = await server.post(
          '/api/ApplicationDefinition/abc/Applications',
          {},
          await auth(demo.users.admin1),
        );
        expect(pathId.status).toBe(400);
        expectContract(pathId, 'post', '/api/ApplicationDefinition/{applicationDefinitionId}/Applications');
      });

      it('401 without a credential, with WWW-Authenticate; 401 on /internal without the token', async () => {
        const res = await server.get('/api/user/getcurrent');
        expect(res.status).toBe(401);
        expect(res.headers.get('www-authenticate')).toMatch(/^Bearer /);
        expectContract(res, 'get', '/api/user/getcurrent');
        const feed = await server.post('/internal/directory/events', { events: [] });
        expect(feed.status).toBe(401);
        expectContract(feed, 'post', '/internal/directory/events');
      });

      it('403 for an outsider saving, for a plain member listing applications, for a banned account', async () => {
        const save = await saveAs(demo.users.outsider, valid);
        expect(save.status).toBe(403);
        expectContract(save, 'post', '/api/Resource/SaveProjectResource');
        const applications = await server.post(
          `/api/ApplicationDefinition/${demo.applicationDefinition}/Applications`,
          {},
          await auth(demo.users.member1),
        );
        expect(applications.status).toBe(403);
        expectContract(applications, 'post', '/api/ApplicationDefinition/{applicationDefinitionId}/Applications');
        const banned = await server.get('/api/user/getcurrent', await auth(demo.users.banned));
        expect(banned.status).toBe(403);
        expectContract(banned, 'get', '/api/user/getcurrent');
      });

      it('404 for an unknown resource, definition or project', async () => {
        const privacy = await server.get(
          '/api/Privacy/GetResourcePrivacy?resourceId=999999',
          await auth(demo.users.team),
        );
        expect(privacy.status).toBe(404);
        expectContract(privacy, 'get', '/api/Privacy/GetResourcePrivacy');
        const applications = await server.post(
          '/api/ApplicationDefinition/999/Applications',
          {},
          await auth(demo.users.admin1),
        );
        expect(applications.status).toBe(404);
        expectContract(applications, 'post', '/api/ApplicationDefinition/{applicationDefinitionId}/Applications');
        const list = await server.post('/api/Project/GetResourceList', { projectId: 999 }, await auth(demo.users.team));
        expect(list.status).toBe(404);
        expectContract(list, 'post', '/api/Project/GetResourceList');
      });

      it('404 for a route that does not exist is a problem too', async () => {
        const res = await server.get('/no/such/route');
        expect(res.status).toBe(404);
        expect(problemSchema.safeParse(res.body).success).toBe(true);
        expect(res.body.type).toBe('/problems/route-not-found');
      });
    });
  });
});

import fs from 'node:fs';
import type { ResponseConfig, RouteConfig } from '@asteasolutions/zod-to-openapi';
import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import type { z } from 'zod';
import { directoryBatchSchema } from '../domain/directory/directory-events';
import { packageFile } from '../infra/package-file';
import { applicationsPathParams, listApplicationsBody } from './routes/application-routes';
import { getResourcePrivacyQuery, saveResourcePrivacyBody, unshareResourceBody } from './schemas/privacy-schemas';
import { getResourceListBody, removeProjectResourceQuery, saveProjectResourceBody } from './schemas/resource-schemas';
import { downloadQuery, uploadAnswerSchema, uploadQuery } from './schemas/file-schemas';
import { ACCEPTED_EXTENSIONS } from '../domain/files/upload-policy';
import {
  applicationListSchema,
  currentUserSchema,
  directoryFeedAnswerSchema,
  healthLiveSchema,
  healthReadySchema,
  problemSchema,
  readModelDigestSchema,
  removeProjectResourceSchema,
  resourceListSchema,
  resourcePrivacySchema,
  savedResourceSchema,
} from './schemas/response-schemas';

/**
 * The OpenAPI 3.1 document of every route the app serves (src/api/app.ts), generated from the
 * same zod schemas that validate the requests and describe the responses. Served at
 * GET /openapi.json; test/api/openapi.int.test.ts fails when a served route is missing here.
 */

export const SECURITY = { bearer: 'bearerAuth', directoryToken: 'directoryToken' } as const;

/** An error status a route can answer, and when. */
type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 415 | 503;

const ERROR_DESCRIPTIONS: Record<ErrorStatus | 500, string> = {
  400: 'Invalid request (`/problems/validation`, `/problems/malformed-json`); `errors[].field` names each bad field',
  401: 'Not authenticated (`/problems/unauthenticated`); `WWW-Authenticate` carries the reason',
  403: 'Not allowed (`/problems/forbidden`), including an inactive or banned account',
  404: 'Not found (`/problems/not-found`)',
  409: 'Conflict (`/problems/conflict`)',
  413: 'The body is over the size limit (`/problems/payload-too-large`)',
  415: 'Unsupported body encoding (`/problems/unsupported-media-type`)',
  503: 'Stored, but the read models did not catch up in time (`/problems/unavailable`)',
  500: 'Unexpected error (`/problems/internal`)',
};

const problemResponse = (status: ErrorStatus | 500): ResponseConfig => ({
  description: ERROR_DESCRIPTIONS[status],
  ...(status === 401
    ? { headers: { 'WWW-Authenticate': { description: 'Why the credential was refused (RFC 6750)', schema: { type: 'string' } } } }
    : {}),
  content: { 'application/problem+json': { schema: problemSchema } },
});

const json = (description: string, schema: z.ZodType): ResponseConfig => ({
  description,
  content: { 'application/json': { schema } },
});

const jsonBody = (schema: z.ZodType, required = true) => ({ required, content: { 'application/json': { schema } } });

type Operation = Omit<RouteConfig, 'responses'> & {
  ok: Record<number, ResponseConfig>;
  errors: readonly ErrorStatus[];
};

/** Registers one operation with its success responses, its problems, and the 500 every route can answer. */
function operation(registry: OpenAPIRegistry, { ok, errors, ...route }: Operation): void {
  const responses: RouteConfig['responses'] = { ...ok };
  for (const status of [...errors, 500 as const]) responses[status] = problemResponse(status);
  registry.registerPath({ ...route, responses });
}

function buildRegistry(): OpenAPIRegistry {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', SECURITY.bearer, {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'Interactive session token: `Authorization: Bearer <token>`',
  });
  registry.registerComponent('securitySchemes', SECURITY.directoryToken, {
    type: 'apiKey',
    in: 'header',
    name: 'X-Directory-Token',
    description: 'The directory sync token of the platform and of operators (/internal routes)',
  });
  const api = { security: [{ [SECURITY.bearer]: [] }] };
  const internal = { security: [{ [SECURITY.directoryToken]: [] }] };
  const publicRoute = { security: [] };

  // Health and this document: public.
  operation(registry, {
    method: 'get',
    path: '/health/live',
    tags: ['health'],
    summary: 'Liveness: the process answers',
    ...publicRoute,
    ok: { 200: json('Alive', healthLiveSchema) },
    errors: [],
  });
  operation(registry, {
    method: 'get',
    path: '/health/ready',
    tags: ['health'],
    summary: 'Readiness: event store, read store, cache and projections',
    ...publicRoute,
    ok: { 200: json('Ready', healthReadySchema), 503: json('Not ready: `checks` says which part', healthReadySchema) },
    errors: [],
  });
  operation(registry, {
    method: 'get',
    path: '/openapi.json',
    tags: ['health'],
    summary: 'This OpenAPI document',
    ...publicRoute,
    ok: { 200: { description: 'The OpenAPI 3.1 document', content: { 'application/json': { schema: { type: 'object' } } } } },
    errors: [],
  });

  // Resources.
  operation(registry, {
    method: 'post',
    path: '/api/Project/GetResourceList',
    tags: ['resources'],
    summary: 'The resources of a project the caller may see, one page of them, with capability flags',
    ...api,
    request: { body: jsonBody(getResourceListBody) },
    ok: { 200: json('One page of the resources the caller may see', resourceListSchema) },
    errors: [400, 401, 403, 404, 413, 415],
  });
  operation(registry, {
    method: 'post',
    path: '/api/Resource/SaveProjectResource',
    tags: ['resources'],
    summary: 'Create (`id` 0) or update a resource; answers once the read models caught up',
    ...api,
    request: { body: jsonBody(saveProjectResourceBody) },
    ok: { 200: json('The saved resource', savedResourceSchema) },
    errors: [400, 401, 403, 404, 409, 413, 415, 503],
  });
  operation(registry, {
    method: 'get',
    path: '/api/Resource/RemoveProjectResource',
    tags: ['resources'],
    summary: 'Delete a resource permanently, with its circle grants and shares',
    ...api,
    request: { query: removeProjectResourceQuery },
    ok: { 200: json('Deleted: `{"statusCode": 200}`', removeProjectResourceSchema) },
    errors: [400, 401, 403, 404, 409, 503],
  });

  // Files (SPEC "POST /api/File/Upload"; DESIGN "Upload").
  registry.registerPath({
    method: 'post',
    path: '/api/File/Upload',
    tags: ['files'],
    summary: 'Store a file (multipart, one `file` part, optional `folder`) and answer its path; creates no resource',
    description: `Accepted extensions: ${ACCEPTED_EXTENSIONS.map((e) => `.${e}`).join(', ')}. The declared content type must fit the extension (\`application/octet-stream\` always fits) and the leading bytes must not contradict it. Ceiling: UPLOAD_MAX_MB (3) MiB, UPLOAD_BIG_MAX_MB (100) MiB with \`isBigFile=true\`; 1 MB = 1024 × 1024 bytes.`,
    ...api,
    request: {
      query: uploadQuery,
      body: {
        required: true,
        content: {
          'multipart/form-data': {
            schema: {
              type: 'object',
              required: ['file'],
              properties: {
                file: { type: 'string', format: 'binary' },
                folder: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$', default: 'resource_files' },
              },
            },
          },
        },
      },
    },
    responses: {
      200: json('The stored path, `folder/<random id>/<sanitised file name>`', uploadAnswerSchema),
      400: problemResponse(400),
      401: problemResponse(401),
      403: problemResponse(403),
      413: problemResponse(413),
      415: problemResponse(415),
      500: {
        description: 'SPEC: the extension, the content type or the content is not accepted (`/problems/upload-refused`, `detail` says why); or an unexpected error (`/problems/internal`)',
        content: { 'application/problem+json': { schema: problemSchema } },
      },
      503: problemResponse(503),
    },
  });
  operation(registry, {
    method: 'get',
    path: '/api/File/Download',
    tags: ['files'],
    summary: 'The bytes of an upload, for a caller who can see a resource referencing it (or its uploader while none does)',
    ...api,
    request: { query: downloadQuery },
    ok: {
      200: {
        description: 'The file, as an attachment (`Content-Disposition` with RFC 6266 `filename*`), `X-Content-Type-Options: nosniff`, `Cache-Control: private`, `Accept-Ranges: bytes`',
        content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
      },
      206: {
        description: 'One byte range (`Range: bytes=a-b`, `a-`, `-n`), with `Content-Range`',
        content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
      },
      416: {
        description: 'The range starts past the end (`/problems/range-not-satisfiable`); `Content-Range: bytes */<size>`',
        content: { 'application/problem+json': { schema: problemSchema } },
      },
    },
    errors: [400, 401, 403, 404],
  });

  // Privacy.
  operation(registry, {
    method: 'get',
    path: '/api/Privacy/GetResourcePrivacy',
    tags: ['privacy'],
    summary: "A resource's own level and circles, the shares the caller may see, and where it could be shared",
    ...api,
    request: { query: getResourcePrivacyQuery },
    ok: { 200: json('The privacy of the resource, as this caller may see it', resourcePrivacySchema) },
    errors: [400, 401, 403, 404],
  });
  operation(registry, {
    method: 'post',
    path: '/api/Privacy/SaveResourcePrivacy',
    tags: ['privacy'],
    summary: 'Change the own level, granted circles and shares in one atomic call',
    ...api,
    request: { body: jsonBody(saveResourcePrivacyBody) },
    ok: { 200: { description: 'Applied; empty body (read the privacy back to see the result)' } },
    errors: [400, 401, 403, 404, 409, 413, 415, 503],
  });
  operation(registry, {
    method: 'post',
    path: '/api/Privacy/UnshareResourceFromCommunity',
    tags: ['privacy'],
    summary: 'Withdraw one share',
    ...api,
    request: { body: jsonBody(unshareResourceBody) },
    ok: { 200: { description: 'Withdrawn (or there was no such share); empty body' } },
    errors: [400, 401, 403, 404, 409, 413, 415, 503],
  });

  // Applications and user.
  operation(registry, {
    method: 'post',
    path: '/api/ApplicationDefinition/{applicationDefinitionId}/Applications',
    tags: ['applications'],
    summary: "One page of an application definition's applications, for the admins of its community",
    ...api,
    request: { params: applicationsPathParams, body: jsonBody(listApplicationsBody, false) },
    ok: { 200: json('One page of applications, their total and the values of each filter', applicationListSchema) },
    errors: [400, 401, 403, 404, 413, 415],
  });
  operation(registry, {
    method: 'get',
    path: '/api/user/getcurrent',
    tags: ['user'],
    summary: 'The current user and the credential of this request',
    ...api,
    ok: { 200: json('The current user', currentUserSchema) },
    errors: [401, 403],
  });

  // Platform feed and operators.
  operation(registry, {
    method: 'post',
    path: '/internal/directory/events',
    tags: ['internal'],
    summary: 'Directory feed: people, communities, projects and circles, one atomic batch',
    ...internal,
    request: { body: jsonBody(directoryBatchSchema) },
    ok: { 200: json('Appended and projected', directoryFeedAnswerSchema) },
    errors: [400, 401, 413, 415, 503],
  });
  operation(registry, {
    method: 'get',
    path: '/internal/read-models/digest',
    tags: ['internal'],
    summary: 'Fingerprint of the live read models (compare with `resources-cli digest`)',
    ...internal,
    ok: { 200: json('Checkpoint, digest and document counts', readModelDigestSchema) },
    errors: [401],
  });
  operation(registry, {
    method: 'post',
    path: '/internal/read-models/rebuild',
    tags: ['internal'],
    summary: 'Project the whole event log again into the read models of this process',
    ...internal,
    ok: { 200: json('The read models after the rebuild', readModelDigestSchema) },
    errors: [401],
  });
  operation(registry, {
    method: 'get',
    path: '/internal/metrics',
    tags: ['internal'],
    summary: 'Prometheus metrics of this process',
    ...internal,
    ok: {
      200: {
        description: 'Prometheus text exposition format',
        content: { 'text/plain': { schema: { type: 'string' } } },
      },
    },
    errors: [401],
  });

  return registry;
}

type PackageInfo = { name?: string; version?: string; description?: string };

const readPackage = (file: string): PackageInfo => JSON.parse(fs.readFileSync(file, 'utf8')) as PackageInfo;

/** title and version of this service's package.json (not of a dependency's on the way up). */
function packageInfo(): { title: string; version: string; description?: string } {
  const file = packageFile('package.json', (f) => Boolean(readPackage(f).name && readPackage(f).version));
  if (!file) throw new Error('package.json not found');
  const pkg = readPackage(file);
  return { title: pkg.name ?? '', version: pkg.version ?? '', ...(pkg.description ? { description: pkg.description } : {}) };
}

export type OpenApiDocument = ReturnType<OpenApiGeneratorV31['generateDocument']>;

let cached: OpenApiDocument | undefined;

/** The OpenAPI 3.1 document, generated once per process. */
export function openApiDocument(): OpenApiDocument {
  cached ??= new OpenApiGeneratorV31(buildRegistry().definitions).generateDocument({
    openapi: '3.1.0',
    info: packageInfo(),
    tags: [
      { name: 'resources', description: 'Project resources (SPEC.md)' },
      { name: 'privacy', description: 'Privacy and cross-community sharing (SPEC.md)' },
      { name: 'files', description: 'Upload and protected download of resource files (SPEC.md, DESIGN.md "Upload")' },
      { name: 'applications', description: 'The paginated example endpoint (SPEC.md "Paginated endpoints")' },
      { name: 'user', description: 'The current user' },
      { name: 'internal', description: 'Directory feed and operator endpoints, X-Directory-Token' },
      { name: 'health', description: 'Public: probes and this document' },
    ],
  });
  return cached;
}

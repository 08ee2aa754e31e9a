import fs from 'node:fs';
import type { ResponseConfig, RouteConfig } from '@asteasolutions/zod-to-openapi';
import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import type { z } from 'zod';
import { directoryBatchSchema } from '../domain/directory/directory-events';
import { packageFile } from '../infra/package-file';
import { PROBLEM_TYPES } from './problem';
import { applicationsPathParams, listApplicationsBody } from './routes/application-routes';
import {
  auditAccessQuery,
  auditEventPageSchema,
  auditEventsQuery,
  auditHistoryQuery,
  auditResourcePathParams,
  resourceAccessSchema,
  resourceHistorySchema,
} from './schemas/audit-schemas';
import {
  apiKeyListSchema,
  apiKeyPathParams,
  createApiKeyBody,
  issuedApiKeySchema,
  rotateApiKeyBody,
} from './schemas/apikey-schemas';
import { getResourcePrivacyQuery, saveResourcePrivacyBody, unshareResourceBody } from './schemas/privacy-schemas';
import { getResourceListBody, removeProjectResourceQuery, saveProjectResourceBody } from './schemas/resource-schemas';
import { downloadQuery, uploadAnswerSchema, uploadQuery } from './schemas/file-schemas';
import { ACCEPTED_EXTENSIONS } from '../domain/files/upload-policy';
import {
  currentUserSchema,
  directoryFeedAnswerSchema,
  healthLiveSchema,
  healthReadySchema,
  problemSchema,
  readModelDigestSchema,
  removeProjectResourceSchema,
} from './schemas/response-schemas';
import { applicationListSchema } from '../contract/application-list';
import { resourcePrivacySchema } from '../contract/resource-privacy';
import { resourceListSchema, savedResourceSchema } from '../contract/resource-record';

/**
 * The OpenAPI 3.1 document of every route the app serves (src/api/app.ts), generated from the
 * same zod schemas that validate the requests and describe the responses. Served at
 * GET /openapi.json; test/api/openapi.int.test.ts fails when a served route is missing here.
 */

export const SECURITY = { bearer: 'bearerAuth', apiKey: 'apiKeyAuth', directoryToken: 'directoryToken' } as const;

/** An error status a route can answer, and when. */
type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 415 | 429 | 503;

const ERROR_DESCRIPTIONS: Record<ErrorStatus | 500, string> = {
  400: 'Invalid request (`/problems/validation`, `/problems/malformed-json`); `errors[].field` names each bad field',
  401: 'Not authenticated (`/problems/unauthenticated`); `WWW-Authenticate` carries the reason',
  403: 'Not allowed (`/problems/forbidden`), including an inactive or banned account',
  404: 'Not found (`/problems/not-found`)',
  409: 'Conflict (`/problems/conflict`)',
  413: 'The body is over the size limit (`/problems/payload-too-large`)',
  415: 'Unsupported body encoding (`/problems/unsupported-media-type`)',
  429: 'Over the rate limit of the API key (`/problems/rate-limited`); `Retry-After` says when to try again',
  503: 'Stored, but the read models did not catch up in time (`/problems/unavailable`)',
  500: 'Unexpected error (`/problems/internal`)',
};

/**
 * Every API-key request answers these (DESIGN "Rate limit"); they are documented as components
 * and referenced from each /api response.
 */
const RATE_LIMIT_HEADERS = {
  'RateLimit-Limit': 'Requests allowed per window for this API key',
  'RateLimit-Remaining': 'Requests left in the current window',
  'RateLimit-Reset': 'Seconds until the window resets (or the lockout ends)',
  'RateLimit-Policy': 'The quota policy, IETF draft syntax: `"hourly";q=1000;w=3600`',
  RateLimit: 'The current state, IETF draft syntax: `"hourly";r=<remaining>;t=<seconds>`',
} as const;

const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });
const rateLimitHeaders = Object.fromEntries(Object.keys(RATE_LIMIT_HEADERS).map((name) => [name, headerRef(name)]));

const problemResponse = (status: ErrorStatus | 500, rateLimited: boolean): ResponseConfig => {
  const headers: Record<string, unknown> = rateLimited ? { ...rateLimitHeaders } : {};
  if (status === 401) headers['WWW-Authenticate'] = { description: 'Why the credential was refused (RFC 6750)', schema: { type: 'string' } };
  if (status === 429) headers['Retry-After'] = headerRef('Retry-After');
  return {
    description: ERROR_DESCRIPTIONS[status],
    ...(Object.keys(headers).length > 0 ? { headers: headers as ResponseConfig['headers'] } : {}),
    content: { 'application/problem+json': { schema: problemSchema } },
  };
};

const json = (description: string, schema: z.ZodType): ResponseConfig => ({
  description,
  content: { 'application/json': { schema } },
});

const jsonBody = (schema: z.ZodType, required = true) => ({ required, content: { 'application/json': { schema } } });

type Operation = Omit<RouteConfig, 'responses' | 'operationId'> & {
  /** Stable: generated clients name their methods after it. */
  operationId: string;
  ok: Record<number, ResponseConfig>;
  errors: readonly ErrorStatus[];
};

/**
 * Registers one operation with its success responses, its problems, and the 500 every route can
 * answer. /api operations accept API keys, so they also answer 429 and carry the rate-limit headers.
 */
function operation(registry: OpenAPIRegistry, { ok, errors, ...route }: Operation): void {
  // Routes that take an API key answer its quota's headers, and 429.
  const rateLimited = route.path.startsWith('/api/') && (route.security ?? []).some((s) => SECURITY.apiKey in s);
  const responses: RouteConfig['responses'] = {};
  for (const [status, response] of Object.entries(ok)) {
    responses[Number(status)] = rateLimited ? { ...response, headers: rateLimitHeaders as ResponseConfig['headers'] } : response;
  }
  const statuses = rateLimited ? [...errors, 429 as const] : errors;
  for (const status of [...statuses, 500 as const]) responses[status] = problemResponse(status, rateLimited);
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
  registry.registerComponent('securitySchemes', SECURITY.apiKey, {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description: 'API key for machine use: `X-API-Key: <keyId>.<secret>`; acts as the user who created it',
  });
  for (const [name, description] of Object.entries(RATE_LIMIT_HEADERS)) {
    registry.registerComponent('headers', name, { description, schema: { type: name === 'RateLimit' || name === 'RateLimit-Policy' ? 'string' : 'integer' } });
  }
  registry.registerComponent('headers', 'Retry-After', { description: 'Seconds to wait before the next request', schema: { type: 'integer' } });
  registry.registerComponent('securitySchemes', SECURITY.directoryToken, {
    type: 'apiKey',
    in: 'header',
    name: 'X-Directory-Token',
    description: 'The directory sync token of the platform and of operators (/internal routes)',
  });
  const api: { security: Record<string, string[]>[] } = { security: [{ [SECURITY.bearer]: [] }, { [SECURITY.apiKey]: [] }] };
  const sessionOnly = { security: [{ [SECURITY.bearer]: [] }] };
  const internal = { security: [{ [SECURITY.directoryToken]: [] }] };
  const publicRoute = { security: [] };

  // Health and this document: public.
  operation(registry, {
    method: 'get',
    path: '/health/live',
    operationId: 'getLiveness',
    tags: ['health'],
    summary: 'Liveness: the process answers',
    ...publicRoute,
    ok: { 200: json('Alive', healthLiveSchema) },
    // express reads a JSON body on every route: a malformed one is a 400 here too.
    errors: [400],
  });
  operation(registry, {
    method: 'get',
    path: '/health/ready',
    operationId: 'getReadiness',
    tags: ['health'],
    summary: 'Readiness: event store, read store, cache and projections',
    ...publicRoute,
    ok: { 200: json('Ready', healthReadySchema), 503: json('Not ready: `checks` says which part', healthReadySchema) },
    // express reads a JSON body on every route: a malformed one is a 400 here too.
    errors: [400],
  });
  operation(registry, {
    method: 'get',
    path: '/openapi.json',
    operationId: 'getOpenApiDocument',
    tags: ['health'],
    summary: 'This OpenAPI document',
    ...publicRoute,
    ok: { 200: { description: 'The OpenAPI 3.1 document', content: { 'application/json': { schema: { type: 'object' } } } } },
    // express reads a JSON body on every route: a malformed one is a 400 here too.
    errors: [400],
  });

  // Resources.
  operation(registry, {
    method: 'post',
    path: '/api/Project/GetResourceList',
    operationId: 'getResourceList',
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
    operationId: 'saveProjectResource',
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
    operationId: 'removeProjectResource',
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
    operationId: 'uploadFile',
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
      200: { ...json('The stored path, `folder/<random id>/<sanitised file name>`', uploadAnswerSchema), headers: rateLimitHeaders as ResponseConfig['headers'] },
      429: problemResponse(429, true),
      400: problemResponse(400, true),
      401: problemResponse(401, true),
      403: problemResponse(403, true),
      413: problemResponse(413, true),
      415: problemResponse(415, true),
      500: {
        description: 'SPEC: the extension, the content type or the content is not accepted (`/problems/upload-refused`, `detail` says why); or an unexpected error (`/problems/internal`)',
        content: { 'application/problem+json': { schema: problemSchema } },
      },
      503: problemResponse(503, true),
    },
  });
  operation(registry, {
    method: 'get',
    path: '/api/File/Download',
    operationId: 'downloadFile',
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
    operationId: 'getResourcePrivacy',
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
    operationId: 'saveResourcePrivacy',
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
    operationId: 'unshareResourceFromCommunity',
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
    operationId: 'listApplications',
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
    operationId: 'getCurrentUser',
    tags: ['user'],
    summary: 'The current user and the credential of this request',
    ...api,
    ok: { 200: json('The current user', currentUserSchema) },
    errors: [401, 403],
  });

  // Audit (platform role auditor).
  operation(registry, {
    method: 'get',
    path: '/api/audit/events',
    operationId: 'listAuditEvents',
    tags: ['audit'],
    summary: 'The event log in order, with its metadata, filtered, one page per cursor',
    description:
      'Each page examines at most a bounded number of events: a selective filter may answer a short or empty page with `hasMore` true; continue with `after=next`. The read is recorded in the stream `audit-{userId}`.',
    ...api,
    request: { query: auditEventsQuery },
    ok: { 200: json('One page of events', auditEventPageSchema) },
    errors: [400, 401, 403],
  });
  operation(registry, {
    method: 'get',
    path: '/api/audit/resources/{id}/history',
    operationId: 'getResourceHistory',
    tags: ['audit'],
    summary: 'Every change of one resource as readable steps: who, when, with which credential, what changed',
    ...api,
    request: { params: auditResourcePathParams, query: auditHistoryQuery },
    ok: { 200: json('The steps, oldest first (one step per command)', resourceHistorySchema) },
    errors: [400, 401, 403, 404],
  });
  operation(registry, {
    method: 'get',
    path: '/api/audit/resources/{id}/access',
    operationId: 'getResourceAccess',
    tags: ['audit'],
    summary: 'Who could see the resource at a moment, through which view and why',
    description:
      'The resource and the directory replayed to `at`, judged by the rules the service applies now: for `at` = now the answer is what GetResourceList serves.',
    ...api,
    request: { params: auditResourcePathParams, query: auditAccessQuery },
    ok: { 200: json('Per view, the users who could see it and their reasons', resourceAccessSchema) },
    errors: [400, 401, 403, 404],
  });

  // API keys: interactive sessions only (a call made with a key is a 403).
  operation(registry, {
    method: 'post',
    path: '/api/apikey',
    operationId: 'createApiKey',
    tags: ['apikeys'],
    summary: 'Create an API key; the plaintext key is in this answer only',
    ...sessionOnly,
    request: { body: jsonBody(createApiKeyBody) },
    ok: { 200: json('The new key, with its plaintext `key`', issuedApiKeySchema) },
    errors: [400, 401, 403, 409, 413, 415, 503],
  });
  operation(registry, {
    method: 'get',
    path: '/api/apikey',
    operationId: 'listApiKeys',
    tags: ['apikeys'],
    summary: "The caller's keys that are not revoked, newest first; never a secret",
    ...sessionOnly,
    ok: { 200: json('A bare array, `[]` when there are none', apiKeyListSchema) },
    errors: [401, 403],
  });
  operation(registry, {
    method: 'delete',
    path: '/api/apikey/{id}',
    operationId: 'revokeApiKey',
    tags: ['apikeys'],
    summary: 'Revoke a key at once and permanently, on every process',
    ...sessionOnly,
    request: { params: apiKeyPathParams },
    ok: { 204: { description: 'Revoked; no body' } },
    errors: [400, 401, 403, 404, 503],
  });
  operation(registry, {
    method: 'post',
    path: '/api/apikey/{id}/rotate',
    operationId: 'rotateApiKey',
    tags: ['apikeys'],
    summary: 'A new secret for the same key; the previous one keeps working for `graceHours` (default 24)',
    ...sessionOnly,
    request: { params: apiKeyPathParams, body: jsonBody(rotateApiKeyBody, false) },
    ok: { 200: json('The key with its new plaintext `key` (same id and keyId)', issuedApiKeySchema) },
    errors: [400, 401, 403, 404, 409, 413, 415, 503],
  });

  // Platform feed and operators.
  operation(registry, {
    method: 'post',
    path: '/internal/directory/events',
    operationId: 'ingestDirectoryEvents',
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
    operationId: 'getReadModelDigest',
    tags: ['internal'],
    summary: 'Fingerprint of the live read models (compare with `resources-cli digest`)',
    ...internal,
    ok: { 200: json('Checkpoint, digest and document counts', readModelDigestSchema) },
    errors: [401],
  });
  operation(registry, {
    method: 'post',
    path: '/internal/read-models/rebuild',
    operationId: 'rebuildReadModels',
    tags: ['internal'],
    summary: 'Project the whole event log again into the read models of this process',
    ...internal,
    ok: { 200: json('The read models after the rebuild', readModelDigestSchema) },
    errors: [401],
  });
  operation(registry, {
    method: 'get',
    path: '/internal/metrics',
    operationId: 'getMetrics',
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

type PackageInfo = { name?: string; version?: string; description?: string; license?: string };

const readPackage = (file: string): PackageInfo => JSON.parse(fs.readFileSync(file, 'utf8')) as PackageInfo;

/** Every problem `type` the service answers, for the document's description. */
const problemCatalogue = (): string =>
  [
    '| status | type | title |',
    '|---|---|---|',
    ...Object.values(PROBLEM_TYPES).map((p) => `| ${p.status} | \`${p.type}\` | ${p.title} |`),
  ].join('\n');

const LICENSE_URLS: Record<string, string> = {
  // npm's meaning of UNLICENSED: not licensed for use by others.
  UNLICENSED: 'https://docs.npmjs.com/cli/v10/configuring-npm/package-json#license',
};

/** title, version and license of this service's package.json (not of a dependency's on the way up). */
function packageInfo() {
  const file = packageFile('package.json', (f) => Boolean(readPackage(f).name && readPackage(f).version));
  if (!file) throw new Error('package.json not found');
  const pkg = readPackage(file);
  const license = pkg.license ?? 'UNLICENSED';
  return {
    title: pkg.name ?? '',
    version: pkg.version ?? '',
    description: [
      pkg.description ?? '',
      'Credentials: an interactive session (`Authorization: Bearer <token>`) or an API key (`X-API-Key: <keyId>.<secret>`), never both. ' +
        'API-key requests carry the `RateLimit-*` headers and answer 429 with `Retry-After` over the limit.',
      'Every error is an RFC 9457 problem (`application/problem+json`) whose stable `type` is one of:',
      problemCatalogue(),
    ].join('\n\n'),
    license: LICENSE_URLS[license] ? { name: license, url: LICENSE_URLS[license] } : { name: license, identifier: license },
  };
}

export type OpenApiDocument = ReturnType<OpenApiGeneratorV31['generateDocument']>;

let cached: OpenApiDocument | undefined;

/** The OpenAPI 3.1 document, generated once per process. */
export function openApiDocument(): OpenApiDocument {
  cached ??= new OpenApiGeneratorV31(buildRegistry().definitions).generateDocument({
    openapi: '3.1.0',
    info: packageInfo(),
    // Relative: the document describes the service that serves it, wherever that is.
    servers: [{ url: '/', description: 'This service' }],
    tags: [
      { name: 'resources', description: 'Project resources (SPEC.md)' },
      { name: 'privacy', description: 'Privacy and cross-community sharing (SPEC.md)' },
      { name: 'files', description: 'Upload and protected download of resource files (SPEC.md, DESIGN.md "Upload")' },
      { name: 'applications', description: 'The paginated example endpoint (SPEC.md "Paginated endpoints")' },
      { name: 'user', description: 'The current user' },
      { name: 'audit', description: 'The audit trail, for users with the platform role auditor (either credential)' },
      { name: 'apikeys', description: 'API keys for machine clients (SPEC.md; rotation from DESIGN.md)' },
      { name: 'internal', description: 'Directory feed and operator endpoints, X-Directory-Token' },
      { name: 'health', description: 'Public: probes and this document' },
    ],
  });
  return cached;
}

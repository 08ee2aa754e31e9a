import type { OpenAPIRegistry, ResponseConfig, RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { API_VERSION, API_VERSION_HEADER, SUPPORTED_API_VERSIONS } from './api-version';
import type { Access, AnswerDoc, ErrorStatus, RouteDoc } from './route-declaration';
import { problemSchema } from './response-schemas';

/**
 * How a route declaration (src/api/route-declaration.ts) reads in the OpenAPI document: its
 * security, its answers, and the problems it can answer, with the components they share
 * (security schemes, the rate-limit headers, the problem schema).
 */

export const SECURITY = { bearer: 'bearerAuth', apiKey: 'apiKeyAuth', directoryToken: 'directoryToken' } as const;

const SECURITY_OF: Record<Access, Record<string, string[]>[]> = {
  public: [],
  api: [{ [SECURITY.bearer]: [] }, { [SECURITY.apiKey]: [] }],
  ownLogin: [{ [SECURITY.bearer]: [] }],
  internal: [{ [SECURITY.directoryToken]: [] }],
};

const ERROR_DESCRIPTIONS: Record<ErrorStatus | 500, string> = {
  400:
    'Invalid request (`/problems/validation`, `/problems/malformed-json`); `errors[].field` names each bad ' +
    'field or header, such as an `Api-Version` this service does not serve',
  401: 'Not authenticated (`/problems/unauthenticated`); `WWW-Authenticate` carries the reason',
  403: 'Not allowed (`/problems/forbidden`), including an inactive or banned account',
  404: 'Not found (`/problems/not-found`)',
  409:
    'Conflict (`/problems/conflict`); on a route that takes an Idempotency-Key, also ' +
    'a retry while the first request with that key is still running ' +
    '(`/problems/idempotency-key-in-progress`, with `Retry-After`)',
  413: 'The body is over the size limit (`/problems/payload-too-large`)',
  415: 'Unsupported body encoding (`/problems/unsupported-media-type`)',
  422: 'The Idempotency-Key was already used with a different request (`/problems/idempotency-key-reused`)',
  429:
    'Over the rate limit of the API key, or too many wrong API-key secrets from the ' +
    "client's address (`/problems/rate-limited`); `Retry-After` says when to try " +
    'again',
  503:
    'A store is down or too slow, a write was stored but the read models did not ' +
    'catch up in time, or every API-key verification slot stayed busy ' +
    '(`/problems/unavailable`); `Retry-After` says when to try again',
  500: 'Unexpected error (`/problems/internal`)',
};

/**
 * Every API-key request answers these (docs/api.md "API keys"); they are documented as components
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
/** Every answer, success or problem, says the API version that served it. */
const apiVersionHeaders = { [API_VERSION_HEADER]: headerRef(API_VERSION_HEADER) };
const API_VERSION_PARAMETER = 'ApiVersion';
const rateLimitHeaders = Object.fromEntries(Object.keys(RATE_LIMIT_HEADERS).map((name) => [name, headerRef(name)]));

/** The security schemes and the headers every operation refers to. */
export function registerComponents(registry: OpenAPIRegistry): void {
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
    registry.registerComponent('headers', name, {
      description,
      schema: { type: name === 'RateLimit' || name === 'RateLimit-Policy' ? 'string' : 'integer' },
    });
  }
  registry.registerComponent('headers', 'Idempotent-Replayed', {
    description:
      "`true` when this answer is the one kept for the request's Idempotency-Key, replayed; absent on a first answer",
    schema: { type: 'string', enum: ['true'] },
  });
  registry.registerComponent('headers', API_VERSION_HEADER, {
    description: 'The API version that served this answer (CHANGELOG.md says what each version changed)',
    required: true,
    schema: { type: 'string', enum: [API_VERSION] },
  });
  registry.registerComponent('parameters', API_VERSION_PARAMETER, {
    name: API_VERSION_HEADER,
    in: 'header',
    required: false,
    description:
      'The API version the request was written for; without it, the current version ' +
      `(${API_VERSION}) serves it. Another value is a 400 (\`/problems/validation\`) naming the header.`,
    schema: { type: 'string', enum: [...SUPPORTED_API_VERSIONS] },
    example: API_VERSION,
  });
  registry.registerComponent('headers', 'Retry-After', {
    description: 'Seconds to wait before the next request',
    schema: { type: 'integer' },
  });
  registry.registerComponent('securitySchemes', SECURITY.directoryToken, {
    type: 'apiKey',
    in: 'header',
    name: 'X-Directory-Token',
    description: 'The directory sync token of the platform and of operators (/internal routes)',
  });
}

const problemContent = { 'application/problem+json': { schema: problemSchema } };
const problemSchemaId = (problemSchema.meta() as { id: string }).id;

/**
 * The name of each problem answer in `components.responses`. Every operation refers to these
 * instead of restating the answer: the document, and the client generated from it, says each once.
 */
const PROBLEM_RESPONSE_NAMES: Record<ErrorStatus | 500, string> = {
  400: 'BadRequest',
  401: 'Unauthenticated',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  413: 'PayloadTooLarge',
  415: 'UnsupportedMediaType',
  422: 'IdempotencyKeyReused',
  429: 'TooManyRequests',
  503: 'Unavailable',
  500: 'InternalError',
};

function problemResponse(status: ErrorStatus | 500, rateLimited: boolean) {
  // The rate-limit headers are said once per operation (on its success answer) and on the 429
  // that is about them, not repeated on every problem.
  const headers: Record<string, { $ref: string } | { description: string; schema: { type: 'string' } }> = {
    ...apiVersionHeaders,
    ...(rateLimited && status === 429 ? rateLimitHeaders : {}),
  };
  if (status === 401)
    headers['WWW-Authenticate'] = {
      description: 'Why the credential was refused (RFC 6750)',
      schema: { type: 'string' },
    };
  if (status === 429 || status === 503 || status === 409) headers['Retry-After'] = headerRef('Retry-After');
  return {
    description: ERROR_DESCRIPTIONS[status],
    headers,
    content: { 'application/problem+json': { schema: { $ref: `#/components/schemas/${problemSchemaId}` } } },
  };
}

/**
 * A reference to the problem answer of `status`, registered on first use (a raw component refers
 * to the Problem schema by name: the download routes' problem answers put it in the document, and
 * test/api/openapi.http.test.ts checks that every `$ref` resolves); an API-key route's
 * variant also carries the rate-limit headers.
 */
function problemResponseRef(
  registry: OpenAPIRegistry,
  status: ErrorStatus | 500,
  rateLimited: boolean,
): { $ref: string } {
  const name = `${PROBLEM_RESPONSE_NAMES[status]}${rateLimited && status === 429 ? 'WithRateLimit' : ''}`;
  const registered = registry.definitions.some(
    (d) => d.type === 'component' && d.componentType === 'responses' && d.name === name,
  );
  if (!registered) registry.registerComponent('responses', name, problemResponse(status, rateLimited));
  return { $ref: `#/components/responses/${name}` };
}

function answerResponse(answer: AnswerDoc, rateLimited: boolean, idempotent: boolean): ResponseConfig {
  const content =
    'json' in answer
      ? { 'application/json': { schema: answer.json }, ...answer.alsoContent }
      : 'problem' in answer
        ? problemContent
        : answer.content;
  const own = 'json' in answer ? (answer.headers ?? {}) : {};
  const headers = {
    ...apiVersionHeaders,
    ...(rateLimited ? rateLimitHeaders : {}),
    ...(idempotent ? { 'Idempotent-Replayed': headerRef('Idempotent-Replayed') } : {}),
    ...Object.fromEntries(
      Object.entries(own).map(([name, description]) => [name, { description, schema: { type: 'string' } }]),
    ),
  };
  return {
    description: answer.description,
    headers: headers as ResponseConfig['headers'],
    ...(content ? { content } : {}),
  };
}

/** The request header of every route that changes state (src/api/idempotency.ts). */
const idempotencyKeyHeader = z.object({
  'Idempotency-Key': z
    .string()
    .min(1)
    .max(255)
    .optional()
    .meta({
      description:
        'Makes a retry safe: the first completed answer is kept for 24 hours per caller ' +
        'and key and replayed (with `Idempotent-Replayed: true`) to a retry with the ' +
        'same key and the same request; ' +
        'the same key with another request is a 422 ' +
        '(`/problems/idempotency-key-reused`), a retry while the first is still running ' +
        'a 409 (`/problems/idempotency-key-in-progress`). ' +
        'Use a new random value (a UUID) per logical request and send it again on every retry of that request.',
      example: '4f9c2d3e-8b1a-4c5d-9e6f-7a8b9c0d1e2f',
    }),
});

function requestOf(route: RouteDoc): RouteConfig['request'] {
  const { params, query, body, bodyOptional, documentedBody } = route.request ?? {};
  const request: NonNullable<RouteConfig['request']> = {};
  if (route.idempotent) request.headers = idempotencyKeyHeader;
  if (params) request.params = params;
  if (query) request.query = query;
  if (body) request.body = { required: !bodyOptional, content: { 'application/json': { schema: body } } };
  if (documentedBody) request.body = documentedBody;
  return Object.keys(request).length > 0 ? request : undefined;
}

/**
 * Registers one route with its answers, its problems, and the 400 (an unknown Api-Version) and
 * the 500 every route can answer; a route that takes an Idempotency-Key also answers 409 and 422. /api
 * routes that accept API keys also answer 429 (and 403 where they write:
 * a read-only key), and every answer of theirs carries the rate-limit
 * headers. Every route behind a credential reads a store (the caller is looked up in the
 * directory at least), so each can answer 503 while a store is down or too slow.
 */
export function registerRoute(registry: OpenAPIRegistry, route: RouteDoc): void {
  const rateLimited = route.path.startsWith('/api/') && route.access === 'api';
  const storeBacked = route.access !== 'public';
  const responses: RouteConfig['responses'] = {};
  for (const [status, answer] of Object.entries(route.answers))
    responses[Number(status)] = answerResponse(answer, rateLimited, route.idempotent === true);
  const problems: (ErrorStatus | 500)[] = [
    ...route.errors,
    // Any route refuses a request naming an unknown Api-Version.
    400,
    // An Idempotency-Key can meet its first request still running (409) or another request (422).
    ...(route.idempotent ? [409 as const, 422 as const] : []),
    // A read-only API key is refused a route that writes.
    ...(rateLimited && route.writes ? [403 as const] : []),
    ...(rateLimited ? [429 as const] : []),
    ...(storeBacked ? [503 as const] : []),
    500,
  ];
  for (const status of problems) responses[status] ??= problemResponseRef(registry, status, rateLimited);
  const request = requestOf(route);
  registry.registerPath({
    method: route.method,
    path: route.path,
    operationId: route.operationId,
    tags: [route.tag],
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    security: SECURITY_OF[route.access],
    // Every route takes it: a reference, not the parameter restated in each operation.
    parameters: [{ $ref: `#/components/parameters/${API_VERSION_PARAMETER}` }],
    ...(request ? { request } : {}),
    responses,
  });
}

import type { Response } from 'express';
import type { DomainErrorKind, FieldError, ProblemExtensions } from '../domain/errors';
import type { Problem } from './response-schemas';

export type { Problem } from './response-schemas';

export const PROBLEM_TYPES = {
  validation: { type: '/problems/validation', title: 'The request is not valid', status: 400 },
  malformedJson: { type: '/problems/malformed-json', title: 'The body is not valid JSON', status: 400 },
  unauthenticated: { type: '/problems/unauthenticated', title: 'Authentication required', status: 401 },
  forbidden: { type: '/problems/forbidden', title: 'Not allowed', status: 403 },
  notFound: { type: '/problems/not-found', title: 'Not found', status: 404 },
  routeNotFound: { type: '/problems/route-not-found', title: 'No such endpoint', status: 404 },
  methodNotAllowed: { type: '/problems/method-not-allowed', title: 'Method not allowed', status: 405 },
  conflict: { type: '/problems/conflict', title: 'Conflict', status: 409 },
  idempotencyKeyInProgress: {
    type: '/problems/idempotency-key-in-progress',
    title: 'A request with this Idempotency-Key is still running',
    status: 409,
  },
  payloadTooLarge: { type: '/problems/payload-too-large', title: 'The body is too large', status: 413 },
  unsupportedMediaType: { type: '/problems/unsupported-media-type', title: 'Unsupported media type', status: 415 },
  idempotencyKeyReused: {
    type: '/problems/idempotency-key-reused',
    title: 'This Idempotency-Key was used for another request',
    status: 422,
  },
  rangeNotSatisfiable: { type: '/problems/range-not-satisfiable', title: 'Range not satisfiable', status: 416 },
  rateLimited: { type: '/problems/rate-limited', title: 'Too many requests', status: 429 },
  internal: { type: '/problems/internal', title: 'Internal error', status: 500 },
  uploadRefused: { type: '/problems/upload-refused', title: 'The file is not accepted', status: 500 },
  unavailable: { type: '/problems/unavailable', title: 'Service unavailable', status: 503 },
} as const;

export type ProblemKey = keyof typeof PROBLEM_TYPES;

/** What each problem type means and what a client does about it: the page GET /problems/{type} serves. */
export const PROBLEM_EXPLANATIONS: Record<ProblemKey, string> = {
  validation:
    'A field of the body, query or path, or a header, is missing, malformed or out ' +
    'of range, or the body has a field the endpoint does not know. `errors[]` lists ' +
    'each one with its `field` (`sharesToUpsert[1].privacyLevel`, `pagesize`, ' +
    '`Idempotency-Key`). Fix the request; retrying it unchanged gets the same answer.',
  malformedJson: 'The body is not valid JSON. Send `Content-Type: application/json` with a JSON document.',
  unauthenticated:
    'No credential, or one the service refuses: an expired or malformed session ' +
    'token, an unknown, revoked or expired API key, or both kinds at once. ' +
    '`WWW-Authenticate` says why. Send `Authorization: Bearer <token>` or ' +
    '`X-API-Key: <keyId>.<secret>`.',
  forbidden:
    'The caller is known but may not do this: the resource is not theirs to change, ' +
    'the privacy level is not allowed for its scope, the account is inactive or ' +
    'banned, or the route needs the auditor role or your own session (key management: ' +
    'no API key, no impersonation).',
  notFound:
    'The resource, project, community, paragraph, key or file does not exist, or the caller may not know that it does.',
  routeNotFound: 'No endpoint has this path. The OpenAPI document at /openapi.json lists every endpoint.',
  methodNotAllowed: 'The path exists, but not with this method. The `Allow` header lists the methods it takes.',
  conflict:
    'The request contradicts the current state: the cap of active API keys is ' +
    'reached, the key has expired, or a share whose level belongs to another ' +
    'community admin cannot be changed by this caller. A rebuild of the read models ' +
    'asked while another runs is refused too; `jobId` then names the running job ' +
    'when this process runs it: follow it at `GET /internal/read-models/rebuild/{jobId}`.',
  idempotencyKeyInProgress:
    'A request with the same Idempotency-Key is still being served. Wait the ' +
    '`Retry-After` seconds and send the same request again with the same key: it ' +
    "then gets that request's answer.",
  payloadTooLarge: 'The body is over the size limit (1 MB for JSON, UPLOAD_MAX_MB or UPLOAD_BIG_MAX_MB for uploads).',
  unsupportedMediaType:
    'The body is not of a media type the endpoint reads: JSON endpoints take ' +
    '`application/json`, the upload takes `multipart/form-data`; a compressed or ' +
    'non-UTF-8 body is refused too.',
  idempotencyKeyReused:
    'This Idempotency-Key was already used by the same caller, within 24 hours, for ' +
    'a different request (another method, path or body). Use a new key for a new ' +
    'request; send the same key only to retry the same request.',
  rangeNotSatisfiable:
    'The `Range` of a download starts past the end of the file. `Content-Range: bytes */<size>` gives its size.',
  rateLimited:
    'Over the hourly request budget of the API key, or too many wrong API-key ' +
    'secrets from this address. `Retry-After` says when to try again.',
  internal:
    'An unexpected error. Nothing about it is disclosed; the correlation id ' +
    '(`X-Correlation-Id`) finds it in the service log.',
  uploadRefused:
    'The uploaded file is refused: its extension is not accepted, its declared ' +
    'content type does not fit the extension, or its first bytes contradict it. ' +
    '`detail` says which.',
  unavailable:
    'A store is down or too slow, a write was stored but the read models did not ' +
    'show it in time, or every API-key verification slot stayed busy. Retry after ' +
    '`Retry-After` seconds (with the same Idempotency-Key for a write).',
};

export const problemForKind: Record<DomainErrorKind, ProblemKey> = {
  validation: 'validation',
  unauthenticated: 'unauthenticated',
  forbidden: 'forbidden',
  not_found: 'notFound',
  conflict: 'conflict',
  payload_too_large: 'payloadTooLarge',
  rate_limited: 'rateLimited',
  unavailable: 'unavailable',
};

export function problemBody(
  key: ProblemKey,
  detail?: string,
  errors?: readonly FieldError[],
  extensions: ProblemExtensions = {},
): Problem {
  const base = PROBLEM_TYPES[key];
  return {
    ...base,
    ...(detail ? { detail } : {}),
    ...(errors && errors.length > 0 ? { errors } : {}),
    ...(extensions.jobId !== undefined ? { jobId: extensions.jobId } : {}),
  };
}

export function sendProblem(
  res: Response,
  key: ProblemKey,
  detail?: string,
  errors?: readonly FieldError[],
  extensions?: ProblemExtensions,
): void {
  res
    .status(PROBLEM_TYPES[key].status)
    .type('application/problem+json')
    .send(JSON.stringify(withTrace(problemBody(key, detail, errors, extensions), res)));
}

/** The request's trace, for finding the problem's spans (docs/operations.md "Traces"). */
function withTrace(problem: Problem, res: Response): Problem {
  const traceId = res.locals.traceId as string | undefined;
  return traceId === undefined ? problem : { ...problem, traceId };
}

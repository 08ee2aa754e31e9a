import type { Response } from 'express';
import type { DomainErrorKind, FieldError } from '../domain/errors';
import type { Problem } from './schemas/response-schemas';

export type { Problem } from './schemas/response-schemas';

export const PROBLEM_TYPES = {
  validation: { type: '/problems/validation', title: 'The request is not valid', status: 400 },
  malformedJson: { type: '/problems/malformed-json', title: 'The body is not valid JSON', status: 400 },
  unauthenticated: { type: '/problems/unauthenticated', title: 'Authentication required', status: 401 },
  forbidden: { type: '/problems/forbidden', title: 'Not allowed', status: 403 },
  notFound: { type: '/problems/not-found', title: 'Not found', status: 404 },
  routeNotFound: { type: '/problems/route-not-found', title: 'No such endpoint', status: 404 },
  methodNotAllowed: { type: '/problems/method-not-allowed', title: 'Method not allowed', status: 405 },
  conflict: { type: '/problems/conflict', title: 'Conflict', status: 409 },
  idempotencyKeyInProgress: { type: '/problems/idempotency-key-in-progress', title: 'A request with this Idempotency-Key is still running', status: 409 },
  payloadTooLarge: { type: '/problems/payload-too-large', title: 'The body is too large', status: 413 },
  unsupportedMediaType: { type: '/problems/unsupported-media-type', title: 'Unsupported media type', status: 415 },
  idempotencyKeyReused: { type: '/problems/idempotency-key-reused', title: 'This Idempotency-Key was used for another request', status: 422 },
  rangeNotSatisfiable: { type: '/problems/range-not-satisfiable', title: 'Range not satisfiable', status: 416 },
  rateLimited: { type: '/problems/rate-limited', title: 'Too many requests', status: 429 },
  internal: { type: '/problems/internal', title: 'Internal error', status: 500 },
  uploadRefused: { type: '/problems/upload-refused', title: 'The file is not accepted', status: 500 },
  unavailable: { type: '/problems/unavailable', title: 'Service unavailable', status: 503 },
} as const;

export type ProblemKey = keyof typeof PROBLEM_TYPES;

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

export function problemBody(key: ProblemKey, detail?: string, errors?: readonly FieldError[]): Problem {
  const base = PROBLEM_TYPES[key];
  return { ...base, ...(detail ? { detail } : {}), ...(errors && errors.length > 0 ? { errors } : {}) };
}

export function sendProblem(res: Response, key: ProblemKey, detail?: string, errors?: readonly FieldError[]): void {
  res.status(PROBLEM_TYPES[key].status).type('application/problem+json').send(JSON.stringify(problemBody(key, detail, errors)));
}

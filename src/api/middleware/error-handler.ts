import type { ErrorRequestHandler, RequestHandler } from 'express';
import { DomainError } from '../../domain/errors';
import { AppendTooLargeError } from '../../ports/event-store';
import type { Logger } from '../../observability/logger';
import { isTransientStoreError } from '../../projections/transient-error';
import { IdempotencyKeyProblem } from '../idempotency';
import { UnsupportedMediaType } from '../route-declaration';
import { problemForKind, sendProblem } from '../problem';
import { requestLogFields } from './request-log';
import { NoCredentialError } from './authenticate';

/** The one place errors become responses. No stack trace ever leaves the process. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, _req, res, _next) => {
    if (res.headersSent) return;
    if (error instanceof DomainError) {
      if (error.kind === 'unauthenticated')
        res.setHeader(
          'WWW-Authenticate',
          error instanceof NoCredentialError ? CHALLENGE : wwwAuthenticate(error.message),
        );
      // Every 503 is transient (a busy stream, read models catching up): say when to come back.
      if (error.kind === 'unavailable') res.setHeader('Retry-After', '1');
      sendProblem(res, problemForKind[error.kind], error.message, error.errors, error.extensions);
      return;
    }
    if (error instanceof UnsupportedMediaType) {
      res.setHeader('Accept-Post', 'application/json');
      return sendProblem(res, 'unsupportedMediaType', error.message);
    }
    if (error instanceof IdempotencyKeyProblem) {
      if (error.problem === 'idempotencyKeyInProgress') res.setHeader('Retry-After', '1');
      return sendProblem(res, error.problem, error.message);
    }
    if (error instanceof AppendTooLargeError)
      return sendProblem(res, 'payloadTooLarge', 'the write is over the size limit');
    // The router decodes path parameters: a bad percent-escape is the client's mistake.
    if (error instanceof URIError) return sendProblem(res, 'validation', 'the URL contains a malformed percent-escape');
    const http = error as { type?: string; status?: number; expose?: boolean };
    if (http.type === 'entity.parse.failed')
      return sendProblem(res, 'malformedJson', 'the body could not be parsed as JSON');
    if (http.type === 'entity.too.large') return sendProblem(res, 'payloadTooLarge', 'the body is over the size limit');
    if (http.type === 'encoding.unsupported' || http.type === 'charset.unsupported') {
      return sendProblem(res, 'unsupportedMediaType', 'unsupported body encoding');
    }
    if (http.status === 400 && http.expose) return sendProblem(res, 'validation', 'the request could not be read');
    // A store down or too slow (no server, a query past its maxTimeMS) is passing trouble, not a bug.
    if (isTransientStoreError(error)) {
      logger.warn({ err: error, ...requestLogFields(res) }, 'a store is unavailable');
      res.setHeader('Retry-After', '1');
      return sendProblem(res, 'unavailable', 'a store is unavailable or too slow; try again shortly');
    }
    logger.error({ err: error, ...requestLogFields(res) }, 'unhandled error');
    sendProblem(res, 'internal', 'an unexpected error occurred');
  };
}

/**
 * The answer to a path no route serves, pointing to where the endpoints are listed: this process's
 * /docs where it serves the API, else the processes that do (a projector serves health, metrics
 * and the operator routes only).
 */
export function routeNotFound(servesApi: boolean): RequestHandler {
  const where = servesApi
    ? 'the page at /docs lists every endpoint'
    : 'this process is a projector (ROLE=projector): the API and its /docs are served by the API processes';
  return (req, res) => {
    sendProblem(res, 'routeNotFound', `no endpoint ${req.method} ${req.path}; ${where}`);
  };
}

/** The challenge of a request without credentials. */
const CHALLENGE = 'Bearer realm="api"';

/** RFC 6750: tell the client why its credentials were refused. */
export function wwwAuthenticate(reason: string): string {
  // A header value takes visible ASCII only; anything else would make the answer itself fail.
  const safe = reason.replace(/["\\]/g, "'").replace(/[^\x20-\x7e]/g, '?');
  return `${CHALLENGE}, error="invalid_token", error_description="${safe}"`;
}

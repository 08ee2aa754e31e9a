import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { DomainError } from '../../domain/errors';

/** Compares secrets in constant time; hashing first makes the lengths equal. */
export function secretsEqual(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/**
 * Guards the platform-facing /internal routes with the directory sync token. A metrics scraper may
 * instead present `metricsToken` as a bearer token, which opens GET /internal/metrics and nothing
 * else: the token a monitoring system holds cannot write to the directory or rebuild read models.
 */
export function requireInternalToken(expected: string, metricsToken?: string): RequestHandler {
  return (req, _res, next) => {
    if (metricsToken !== undefined && readsMetrics(req.method, req.path)) {
      const bearer = /^Bearer (.+)$/.exec(req.header('authorization') ?? '')?.[1];
      if (bearer !== undefined && secretsEqual(bearer, metricsToken)) {
        next();
        return;
      }
    }
    const token = req.header('x-directory-token');
    if (token === undefined || !secretsEqual(token, expected)) {
      throw new DomainError(
        'unauthenticated',
        metricsToken !== undefined && readsMetrics(req.method, req.path)
          ? 'a valid X-Directory-Token header or the metrics bearer token is required'
          : 'a valid X-Directory-Token header is required',
      );
    }
    next();
  };
}

const readsMetrics = (method: string, path: string): boolean =>
  (method === 'GET' || method === 'HEAD') && path.toLowerCase() === '/internal/metrics';

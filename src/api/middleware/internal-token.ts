import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { DomainError } from '../../domain/errors';

/** Compares secrets in constant time; hashing first makes the lengths equal. */
export function secretsEqual(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** An operator's named credential (OPERATOR_TOKENS). */
export type NamedOperator = { readonly name: string; readonly token: string };

/** Where a request authenticated by a named operator's token keeps the name (`res.locals`). */
export const OPERATOR_NAME_LOCAL = 'operatorName';

/**
 * Guards the platform-facing /internal routes with the directory sync token. A metrics scraper may
 * instead present `metricsToken` as a bearer token, which opens GET /internal/metrics and nothing
 * else: the token a monitoring system holds cannot write to the directory or rebuild read models.
 * A named operator's token (`operators`), as a bearer token, opens the read models' operator
 * routes and the metrics, not the directory's writes; the request then carries the operator's name
 * (`res.locals[OPERATOR_NAME_LOCAL]`) for what it records. Every token given is compared with every
 * operator's, in constant time, whichever matches.
 */
export function requireInternalToken(
  expected: string,
  metricsToken?: string,
  operators: readonly NamedOperator[] = [],
): RequestHandler {
  return (req, res, next) => {
    const bearer = /^Bearer (.+)$/.exec(req.header('authorization') ?? '')?.[1];
    if (bearer !== undefined) {
      if (metricsToken !== undefined && readsMetrics(req.method, req.path) && secretsEqual(bearer, metricsToken)) {
        next();
        return;
      }
      if (operates(req.method, req.path)) {
        let named: NamedOperator | undefined;
        for (const operator of operators) if (secretsEqual(bearer, operator.token)) named ??= operator;
        if (named) {
          res.locals[OPERATOR_NAME_LOCAL] = named.name;
          next();
          return;
        }
      }
    }
    const token = req.header('x-directory-token');
    if (token === undefined || !secretsEqual(token, expected)) {
      throw new DomainError(
        'unauthenticated',
        metricsToken !== undefined && readsMetrics(req.method, req.path)
          ? 'a valid X-Directory-Token header or the metrics bearer token is required'
          : operators.length > 0 && operates(req.method, req.path)
            ? "a valid X-Directory-Token header or an operator's bearer token is required"
            : 'a valid X-Directory-Token header is required',
      );
    }
    next();
  };
}

const readsMetrics = (method: string, path: string): boolean =>
  (method === 'GET' || method === 'HEAD') && path.toLowerCase() === '/internal/metrics';

/** The routes a named operator's token opens: the read models' (state, rebuilds, parked events) and the metrics. */
const operates = (method: string, path: string): boolean => {
  const lower = path.toLowerCase();
  return readsMetrics(method, path) || lower === '/internal/read-models' || lower.startsWith('/internal/read-models/');
};

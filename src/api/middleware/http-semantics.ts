import type { RequestHandler } from 'express';
import type { RouteDoc } from '../route-declaration';
import { API_VERSION_HEADER } from '../api-version';
import { sendProblem } from '../problem';

/**
 * HTTP semantics before any credential is asked for: CORS for the configured origins (a
 * preflight is answered here, it never carries credentials), and 405 with `Allow` for a method
 * a known path does not take (and `OPTIONS` answered with `Allow`).
 */

/** The methods each declared path takes, with HEAD wherever a GET only reads (express answers HEAD with the GET). */
function allowedMethods(routes: readonly RouteDoc[]) {
  const table = new Map<string, { pattern: RegExp; methods: Set<string> }>();
  for (const route of routes) {
    const source = `^${route.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{\w+\\?\}/g, '[^/]+')}/?$`;
    const entry = table.get(source) ?? { pattern: new RegExp(source), methods: new Set<string>() };
    entry.methods.add(route.method.toUpperCase());
    // A GET that writes (RemoveProjectResource) is no safe method: a HEAD of it (a link checker's, a
    // prefetcher's) must not delete anything, so it is not served.
    if (route.method === 'get' && !route.writes) entry.methods.add('HEAD');
    table.set(source, entry);
  }
  const entries = [...table.values()];
  return (path: string): Set<string> | undefined => {
    let found: Set<string> | undefined;
    for (const entry of entries) if (entry.pattern.test(path)) found = new Set([...(found ?? []), ...entry.methods]);
    return found;
  };
}

const ALLOWED_REQUEST_HEADERS = [
  'Authorization',
  'X-API-Key',
  'Content-Type',
  'Idempotency-Key',
  'X-Correlation-Id',
  'traceparent',
  'Range',
  'If-None-Match',
  API_VERSION_HEADER,
];
const EXPOSED_HEADERS = [
  'Idempotent-Replayed',
  'Retry-After',
  'RateLimit',
  'RateLimit-Policy',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'WWW-Authenticate',
  'X-Correlation-Id',
  'traceparent',
  'Content-Disposition',
  'Content-Range',
  'ETag',
  API_VERSION_HEADER,
];

export function httpSemantics(routes: readonly RouteDoc[], corsOrigins: readonly string[]): RequestHandler {
  const methodsOf = allowedMethods(routes);
  const origins = new Set(corsOrigins);
  return (req, res, next) => {
    const origin = req.header('origin');
    const corsAllowed = origin !== undefined && origins.has(origin);
    if (origins.size > 0) res.vary('Origin');
    if (corsAllowed) {
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS.join(', '));
    }
    const methods = methodsOf(req.path);
    if (req.method === 'OPTIONS' && methods) {
      const allow = [...methods, 'OPTIONS'].join(', ');
      res.setHeader('Allow', allow);
      if (corsAllowed && req.header('access-control-request-method') !== undefined) {
        res.setHeader('Access-Control-Allow-Methods', allow);
        res.setHeader('Access-Control-Allow-Headers', ALLOWED_REQUEST_HEADERS.join(', '));
        res.setHeader('Access-Control-Max-Age', '600');
      }
      return void res.status(204).end();
    }
    if (methods && !methods.has(req.method)) {
      res.setHeader('Allow', [...methods, 'OPTIONS'].join(', '));
      return sendProblem(res, 'methodNotAllowed', `${req.path} takes ${[...methods].join(', ')}, not ${req.method}`);
    }
    next();
  };
}

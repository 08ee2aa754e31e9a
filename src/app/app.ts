import express from 'express';
import type { AppContext } from './app-context';
import { authenticate } from '../api/middleware/authenticate';
import { errorHandler, routeNotFound } from '../api/middleware/error-handler';
import { refuseDeepJson } from '../api/json-depth';
import { requireInternalToken } from '../api/middleware/internal-token';
import { requestLog } from '../api/middleware/request-log';
import { requestTrace } from '../api/middleware/request-trace';
import { noticeOtherWriters } from './notice-other-writers';
import { securityHeaders } from '../api/middleware/security-headers';
import { acceptApiVersion, answerApiVersion } from '../api/middleware/api-version';
import { httpSemantics } from '../api/middleware/http-semantics';
import { inSequence } from '../api/middleware/in-sequence';
import { mountedAt } from '../api/middleware/mounted-at';
import { docsPage } from '../api/routes/docs-page';
import { auditConsole } from '../audit/audit-console';
import { consolePage } from '../api/routes/console-page';
import { ApiKeyVerifier } from '../api-keys/api-key-authenticator';
import { BoundedVerifier } from '../api-keys/bounded-verifier';
import { ROUTE_DOCS, routesOf } from './route-groups';

/** JSON bodies above this are refused with 413 before they are parsed. */
export const JSON_BODY_LIMIT = '1mb';

/** The service's Express app, built on `app` when given (one the HTTP server was made for before the services were). */
export function buildApp(ctx: AppContext, app: express.Express = express()): express.Express {
  app.disable('x-powered-by');
  // TRUST_PROXY (off by default): which hops may name the client in X-Forwarded-For; req.ip, the
  // address every per-address budget and the audit metadata use, follows it.
  app.set('trust proxy', ctx.config.TRUST_PROXY);
  // What reads the read models (/api, /internal) reads them as of the request's start.
  const snapshot = noticeOtherWriters(ctx.readSide, () => ctx.readDb);
  // Bodies are parsed only once the caller is known: an anonymous request costs the same
  // whatever it sends.
  const jsonBody = express.json({ limit: JSON_BODY_LIMIT, strict: false, verify: refuseDeepJson });
  // A projector process answers health, metrics and operator calls only: the API is served elsewhere.
  const servesApi = ctx.config.ROLE !== 'projector';
  const routes = routesOf(ctx, servesApi);
  // One layer for what every request passes, in order: the answer's Api-Version, CORS and 405
  // before any credential is asked for (a preflight carries none), the request's Api-Version
  // checked, then the guard of its prefix, then its route when its path is one of the exact paths
  // (the router's walk only for the rest).
  app.use(
    inSequence(
      requestTrace,
      requestLog(ctx.logger, ctx.metrics),
      securityHeaders,
      answerApiVersion,
      httpSemantics(ROUTE_DOCS, ctx.config.CORS_ORIGINS),
      acceptApiVersion,
      mountedAt(
        '/internal',
        inSequence(
          requireInternalToken(ctx.secrets.directoryToken, ctx.config.METRICS_TOKEN, ctx.config.OPERATOR_TOKENS),
          // The metrics read no read model: they answer while its database is away, when they are needed most.
          unlessMetrics(snapshot),
          jsonBody,
        ),
      ),
      ...(servesApi ? [mountedAt('/api', apiGuard(ctx, { snapshot, jsonBody }))] : []),
      routes.exact,
    ),
  );
  if (servesApi) app.use('/docs', docsPage());
  if (servesApi) app.use('/audit', auditConsole());
  // Every role: the operator routes the console reads are served by every process.
  app.use('/console', consolePage());
  app.use(routes.router);

  app.use(routeNotFound(servesApi));
  app.use(errorHandler(ctx.logger));
  return app;
}

/** `handler` for every request but a read of the metrics. */
function unlessMetrics(handler: express.RequestHandler): express.RequestHandler {
  return (req, res, next) => (req.path === '/internal/metrics' ? next() : handler(req, res, next));
}

/** Every /api request needs a credential, checked before its body is read. */
function apiGuard(
  ctx: AppContext,
  { snapshot, jsonBody }: Record<'snapshot' | 'jsonBody', express.RequestHandler>,
): express.RequestHandler {
  const apiKeys = new ApiKeyVerifier({
    // Read at each request: a blue/green rebuild replaces the read models being served.
    get store() {
      return ctx.stores.apiKeys;
    },
    cache: ctx.cache,
    hasher: new BoundedVerifier(ctx.hasher, {
      concurrency: ctx.config.API_KEY_VERIFY_CONCURRENCY,
      waitMs: ctx.config.API_KEY_VERIFY_WAIT_MS,
      onRun: (outcome) => ctx.metrics.apiKeyVerifications.inc({ outcome }),
    }),
    clock: ctx.clock,
    logger: ctx.logger,
    limitPerHour: ctx.config.RATE_LIMIT_PER_HOUR,
  });
  return inSequence(
    snapshot,
    authenticate({
      sessions: ctx.sessions,
      get directory() {
        return ctx.directory;
      },
      apiKeys,
    }),
    jsonBody,
  );
}

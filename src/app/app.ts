import express from 'express';
import type { AppContext } from './app-context';
import { authenticate } from '../api/middleware/authenticate';
import { errorHandler, routeNotFound } from '../api/middleware/error-handler';
import { requireInternalToken } from '../api/middleware/internal-token';
import { requestLog } from '../api/middleware/request-log';
import { readSnapshot } from '../api/middleware/read-snapshot';
import { securityHeaders } from '../api/middleware/security-headers';
import { openApiDocument, ROUTES } from '../api/openapi';
import { httpSemantics } from '../api/middleware/http-semantics';
import { problemRoutes } from '../api/routes/problem-routes';
import { applicationRoutes } from '../applications/application-routes';
import { auditRoutes } from '../audit/audit-routes';
import { directoryRoutes } from '../directory/directory-routes';
import { docsPage } from '../api/routes/docs-page';
import { fileRoutes } from '../files/file-routes';
import { healthRoutes } from './health-routes';
import { openApiRoutes } from '../api/routes/openapi-routes';
import { operatorRoutes } from './operator-routes';
import { privacyRoutes } from '../privacy/privacy-routes';
import { resourceRoutes } from '../resources/resource-routes';
import { userRoutes } from '../api/routes/user-routes';
import { apiKeyRoutes } from '../apikeys/api-key-routes';
import { ApiKeyVerifier } from '../apikeys/api-key-authenticator';
import { argon2Hasher } from '../infra/auth/secret-hasher';
import { BoundedVerifier } from '../infra/auth/bounded-verifier';

/** JSON bodies above this are refused with 413 before they are parsed. */
export const JSON_BODY_LIMIT = '1mb';

export function buildApp(ctx: AppContext): express.Express {
  const app = express();
  app.disable('x-powered-by');
  // TRUST_PROXY (off by default): which hops may name the client in X-Forwarded-For; req.ip, the
  // address every per-address budget and the audit metadata use, follows it.
  app.set('trust proxy', ctx.config.TRUST_PROXY);
  app.use(requestLog(ctx.logger, ctx.metrics));
  app.use(securityHeaders);
  // CORS and 405 come before any credential is asked for: a preflight carries none.
  app.use(httpSemantics(ROUTES, ctx.config.CORS_ORIGINS));
  // What reads the read models (/api, /internal) reads them as of the request's start.
  const snapshot = readSnapshot(() => ctx.readDb);
  // Bodies are parsed only once the caller is known: an anonymous request costs the same
  // whatever it sends (issue 11).
  const jsonBody = express.json({ limit: JSON_BODY_LIMIT, strict: false });

  app.use(healthRoutes(ctx));
  app.use('/internal', requireInternalToken(ctx.secrets.directoryToken), snapshot, jsonBody);
  // A projector process answers health, metrics and operator calls only: the API is served
  // elsewhere. The API comes first: its requests are the many, and each walks only what is
  // mounted before its route.
  if (ctx.config.ROLE !== 'projector') mountApi(app, ctx, { snapshot, jsonBody });
  app.use(operatorRoutes(ctx));
  app.use(problemRoutes());

  app.use(routeNotFound);
  app.use(errorHandler(ctx.logger));
  return app;
}

function mountApi(app: express.Express, ctx: AppContext, { snapshot, jsonBody }: Record<'snapshot' | 'jsonBody', express.RequestHandler>): void {
  // Every /api route below requires a credential.
  const apiKeys = new ApiKeyVerifier({
    // Read at each request: a blue/green rebuild replaces the read models being served.
    get store() {
      return ctx.apiKeys;
    },
    cache: ctx.cache,
    hasher: new BoundedVerifier(argon2Hasher, {
      concurrency: ctx.config.API_KEY_VERIFY_CONCURRENCY,
      waitMs: ctx.config.API_KEY_VERIFY_WAIT_MS,
      onRun: (outcome) => ctx.metrics.apiKeyVerifications.inc({ outcome }),
    }),
    clock: ctx.clock,
    logger: ctx.logger,
    limitPerHour: ctx.config.RATE_LIMIT_PER_HOUR,
  });
  app.use(
    '/api',
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
  // A request walks the routes in this order until one matches: the resource and privacy
  // routes, which clients call most, come first.
  const api = express.Router();
  resourceRoutes(ctx, api);
  privacyRoutes(ctx, api);
  fileRoutes(ctx, api);
  applicationRoutes(ctx, api);
  userRoutes(api);
  apiKeyRoutes(ctx, argon2Hasher, api);
  auditRoutes(ctx, api);
  app.use(api);

  app.use(openApiRoutes(openApiDocument));
  app.use('/docs', docsPage());
  app.use(directoryRoutes(ctx));
}

import express from 'express';
import type { RequestHandler, Router } from 'express';
import { ExactPathRoutes, type RouteTarget } from '../api/exact-path-routes';
import { requireInternalToken } from '../api/middleware/internal-token';
import { openApiDocumentOf } from '../api/openapi';
import type { Route, RouteDoc } from '../api/route-declaration';
import { mountRoutes } from '../api/route-declaration';
import { OPENAPI_ROUTES } from '../api/routes/openapi-routes';
import { PROBLEM_ROUTES } from '../api/routes/problem-routes';
import { USER_ROUTES } from '../api/routes/user-routes';
import { apiKeyRouteDeps, API_KEY_ROUTES } from '../api-keys/api-key-routes';
import { APPLICATION_ROUTES } from '../applications/application-routes';
import { AUDIT_ROUTES } from '../audit/audit-routes';
import { DIRECTORY_ROUTES } from '../directory/directory-routes';
import { FILE_ROUTES } from '../files/file-routes';
import { PRIVACY_ROUTES } from '../privacy/privacy-routes';
import { RESOURCE_ROUTES } from '../resources/resource-routes';
import type { AppContext } from './app-context';
import { HEALTH_ROUTES } from './health-routes';
import { OPERATOR_ROUTES } from './operator-routes';
import { PARKED_EVENT_ROUTES } from './parked-event-routes';

/**
 * One group of routes: its declarations, and how it is served. `everywhere`: also by a projector
 * process, which serves health, metrics and operator calls only, not the API.
 */
type RouteGroupEntry = {
  readonly routes: readonly Route<never>[];
  readonly everywhere: boolean;
  /** Serves the group's routes from `router`, each behind `before`, with the deps taken from the context. */
  readonly mount: (router: RouteTarget, ctx: AppContext, before: readonly RequestHandler[]) => void;
};

const group = <D>(routes: readonly Route<D>[], deps: (ctx: AppContext) => D, everywhere = false): RouteGroupEntry => ({
  routes: routes as readonly Route<never>[],
  everywhere,
  mount: (target, ctx, before) => mountRoutes(routes, deps(ctx), before, target),
});

const context = (ctx: AppContext): AppContext => ctx;

/**
 * Every route group of the service, in the order of the OpenAPI document, which is also the order
 * a request walks them in. Adding a group is one entry here: the app serves it, the document
 * lists it, the 405 answers know its paths.
 */
export const ROUTE_GROUPS: readonly RouteGroupEntry[] = [
  group(HEALTH_ROUTES, context, true),
  group(OPENAPI_ROUTES, () => ({ document: () => openApiDocument() })),
  group(RESOURCE_ROUTES, context),
  group(FILE_ROUTES, context),
  group(PRIVACY_ROUTES, context),
  group(APPLICATION_ROUTES, context),
  group(USER_ROUTES, () => undefined),
  group(AUDIT_ROUTES, context),
  group(API_KEY_ROUTES, apiKeyRouteDeps),
  group(DIRECTORY_ROUTES, context),
  group(OPERATOR_ROUTES, context, true),
  group(PARKED_EVENT_ROUTES, context, true),
  group(PROBLEM_ROUTES, () => undefined, true),
];

/** Every declared route, in the document's order. */
export const ROUTE_DOCS: readonly RouteDoc[] = ROUTE_GROUPS.flatMap((entry) => entry.routes.map((route) => route.doc));

/** The OpenAPI 3.1 document of every declared route, generated once per process. */
export const openApiDocument = () => openApiDocumentOf(ROUTE_DOCS);

/**
 * Serves the groups this process serves from one router, the paths without parameters found by
 * their exact path first (ExactPathRoutes, `exact`, which passes anything else on): a request
 * finds its route in one place instead of entering a router per group. Internal routes are
 * behind the X-Directory-Token.
 */
export function routesOf(ctx: AppContext, servesApi: boolean): { exact: RequestHandler; router: Router } {
  const router = express.Router();
  const exact = new ExactPathRoutes(router);
  const internal = [
    requireInternalToken(ctx.secrets.directoryToken, ctx.config.METRICS_TOKEN, ctx.config.OPERATOR_TOKENS),
  ];
  for (const entry of ROUTE_GROUPS) {
    if (!servesApi && !entry.everywhere) continue;
    const access = entry.routes[0]?.doc.access;
    entry.mount(exact, ctx, access === 'internal' ? internal : []);
  }
  return { exact: exact.handle, router };
}

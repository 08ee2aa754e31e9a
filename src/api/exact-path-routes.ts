import type { NextFunction, Request, RequestHandler, Response, Router } from 'express';

/** The methods routes are declared with. */
export type RouteMethod = 'get' | 'post' | 'delete';

/** Where declared routes are served: an Express router, or ExactPathRoutes in front of one. */
export type RouteTarget = Record<RouteMethod, (path: string, ...handlers: RequestHandler[]) => unknown>;

/** An Express route (`router.route(path)`): its handlers, run in order as the router runs them. */
type ExpressRoute = Record<RouteMethod, (...handlers: RequestHandler[]) => unknown> & {
  dispatch(req: Request, res: Response, done: NextFunction): void;
};

/**
 * Routes whose path has no parameters, found by one lookup of the request's path instead of by
 * walking the router's list, where each route's pattern is tried in turn and each try allocates
 * its match: the router's walk made a quarter of the bytes a list request allocated, and its
 * functions were the largest share of the main thread after writing and garbage collection
 * (docs/benchmarks.md "What the figures decided"). The route found is the router's own route object, run by its
 * own dispatch (its handlers in order, HEAD served by GET, errors passed on), so a request is
 * served as the router would serve it. Every route is also on the router, which serves whatever
 * the lookup does not find as Express always did: another letter case, a trailing slash, a path
 * with parameters, a method the path does not have.
 */
export class ExactPathRoutes implements RouteTarget {
  private readonly routes = new Map<string, { readonly route: ExpressRoute; readonly methods: Set<string> }>();

  constructor(private readonly router: Router) {}

  readonly get = (path: string, ...handlers: RequestHandler[]) => this.add('get', path, handlers);
  readonly post = (path: string, ...handlers: RequestHandler[]) => this.add('post', path, handlers);
  readonly delete = (path: string, ...handlers: RequestHandler[]) => this.add('delete', path, handlers);

  private add(method: RouteMethod, path: string, handlers: RequestHandler[]): void {
    if (path.includes(':')) {
      this.router[method](path, ...handlers);
      return;
    }
    let entry = this.routes.get(path);
    if (!entry) {
      entry = { route: this.router.route(path) as unknown as ExpressRoute, methods: new Set() };
      this.routes.set(path, entry);
    }
    entry.route[method](...handlers);
    entry.methods.add(method.toUpperCase());
    if (method === 'get') entry.methods.add('HEAD');
  }

  /** The middleware, mounted just before the router: serves the exact paths, passes anything else on to it. */
  readonly handle: RequestHandler = (req, res, next) => {
    const entry = this.routes.get(req.path);
    if (!entry?.methods.has(req.method)) {
      next();
      return;
    }
    // What the router gives a route's handlers: a path without parameters has none.
    req.params = {};
    entry.route.dispatch(req, res, next);
  };
}

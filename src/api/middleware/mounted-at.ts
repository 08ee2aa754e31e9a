import type { RequestHandler } from 'express';

/**
 * Middleware for the paths under `prefix` only, matched as `app.use(prefix, handler)` matches
 * them (any letter case, ending at a path segment's end: `/api` and `/API/x`, not `/apix`), as
 * one step of a sequence (inSequence) instead of a router layer of its own: each layer the
 * router walks matches the path again and allocates the match, for every request
 * (docs/benchmarks.md "What the figures decided"). Unlike a mounted layer it leaves `req.url` whole: the handlers
 * given here do not read the path.
 */
export function mountedAt(prefix: string, handler: RequestHandler): RequestHandler {
  const lower = prefix.toLowerCase();
  return (req, res, next) => {
    const path = req.path;
    const under =
      path.length >= lower.length &&
      (path.length === lower.length || path.charCodeAt(lower.length) === 0x2f) && // '/'
      (path.startsWith(prefix) || path.slice(0, lower.length).toLowerCase() === lower);
    // The handler's promise, if any, goes back to the sequence running this, which handles its rejection.
    return under ? handler(req, res, next) : next();
  };
}

import type { RequestHandler } from 'express';

/**
 * Middleware run one after the other as one layer, as Express runs consecutive layers on one
 * path: each goes on when it calls `next()`, an error (thrown, passed to `next`, or a rejected
 * promise) goes to the app's error handling and skips the rest. One layer instead of several:
 * Express's router matches each layer's path, and allocates the match, for every request that
 * passes it (docs/benchmarks.md "What the figures decided"). Not for error handlers (four arguments).
 */
export function inSequence(...handlers: readonly RequestHandler[]): RequestHandler {
  if (handlers.some((handler) => handler.length > 3)) throw new Error('inSequence runs middleware, not error handlers');
  return (req, res, next) => {
    let index = 0;
    const step = (error?: unknown): void => {
      if (error !== undefined && error !== null && error !== false) {
        next(error);
        return;
      }
      const handler = handlers[index++];
      if (!handler) {
        next();
        return;
      }
      try {
        const result: unknown = handler(req, res, step);
        if (result instanceof Promise)
          result.catch((rejected: unknown) => step(rejected ?? new Error('Rejected promise')));
      } catch (thrown) {
        step(thrown ?? new Error('Thrown nothing'));
      }
    };
    step();
  };
}

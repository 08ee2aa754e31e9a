import http from 'node:http';
import type { Socket } from 'node:net';
import type { Express } from 'express';

/**
 * The HTTP server of an Express app, whose requests and responses are made with the app's own
 * prototypes (`app.request`, `app.response`) from the start.
 *
 * Why: Express gives every request and response its app's prototypes as it starts handling them
 * (`Object.setPrototypeOf` in `app.handle`). V8 makes a new hidden class for an object whose
 * prototype changes after it was made, so every request's objects came with shapes none of the
 * code had seen: property loads missed their caches and stores rebuilt maps on every request.
 * A bare Express app spent a third of its time there and answered 2.6 times more requests with
 * this server (docs/benchmarks.md "What the figures decided"). Made with the app's prototypes, the objects are
 * already what Express would make of them: its `setPrototypeOf` changes nothing, and every
 * request has the shapes the last one had. Node's http server makes them with `new`
 * (its IncomingMessage and ServerResponse options), so these are constructor functions whose
 * `prototype` is the app's own object; the instances are still IncomingMessage and
 * ServerResponse (both are on the prototype chain), built by their constructors.
 *
 * A sub-app mounted with `app.use` still swaps prototypes for the requests it serves (the docs page).
 * `listener` answers the requests instead of `app` (while the service starts: src/app/starting.ts).
 */
export function httpServerFor(app: Express, listener: http.RequestListener = app): http.Server {
  function AppRequest(this: http.IncomingMessage, socket: Socket): void {
    http.IncomingMessage.call(this, socket);
  }
  AppRequest.prototype = app.request;
  // Node passes the response its options too (highWaterMark, ...), which its typings leave out.
  function AppResponse(this: http.ServerResponse, ...args: [req: http.IncomingMessage, options?: object]): void {
    Reflect.apply(http.ServerResponse, this, args);
  }
  AppResponse.prototype = app.response;
  return http.createServer(
    {
      IncomingMessage: AppRequest as unknown as typeof http.IncomingMessage,
      ServerResponse: AppResponse as unknown as typeof http.ServerResponse,
    },
    listener,
  );
}

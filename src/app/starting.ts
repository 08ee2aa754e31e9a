import type http from 'node:http';
import { API_VERSION, API_VERSION_HEADER } from '../api/api-version';
import { problemBody } from '../api/problem';

/**
 * What the process answers while it starts: it listens at once, so that an orchestrator's liveness
 * probe passes during a long catch-up of the read models, and tells every caller to come back.
 * `/health/live` is 200, `/health/started` (the startup probe) is 503 until the service is built,
 * and everything else is a 503 `/problems/unavailable` with `Retry-After`. Plain Node: nothing the
 * service builds (routes, credentials, read models) exists yet.
 */
export function startingAnswers(req: http.IncomingMessage, res: http.ServerResponse): void {
  const path = (req.url ?? '/').split('?')[0]?.toLowerCase();
  const json = (status: number, body: unknown, type = 'application/json') => {
    res.writeHead(status, {
      'content-type': type,
      'cache-control': 'no-store',
      'retry-after': '1',
      [API_VERSION_HEADER]: API_VERSION,
    });
    res.end(req.method === 'HEAD' ? undefined : JSON.stringify(body));
  };
  // The body of a request answered before it was read is left unread: the connection cannot be reused.
  res.shouldKeepAlive = false;
  if (path === '/health/live') return json(200, { status: 'ok' });
  if (path === '/health/started') return json(503, { status: 'starting' });
  const detail = 'the service is starting: its read models are catching up with the event log';
  json(503, problemBody('unavailable', detail), 'application/problem+json');
}

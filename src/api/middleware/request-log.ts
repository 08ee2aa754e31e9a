import { randomUUID } from 'node:crypto';
import type { RequestHandler, Response } from 'express';
import type { Logger } from '../../observability/logger';
import type { Metrics } from '../../observability/metrics';
import { inRequest } from '../../observability/request-context';

export const SAFE_CORRELATION_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * One log line per request (method, path, status, duration; never headers or bodies) and one
 * histogram sample labelled by the route template, so ids never become label values. The rest of
 * the request runs with its ids in the request context, so every line it logs carries them.
 * After requestTrace, which gives the request its trace id.
 */
export function requestLog(logger: Logger, metrics: Metrics): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    const incoming = req.header('x-correlation-id');
    // A client's id is echoed into logs, events and headers: only a short token of safe characters.
    const correlationId = incoming !== undefined && SAFE_CORRELATION_ID.test(incoming) ? incoming : randomUUID();
    res.locals.correlationId = correlationId;
    res.setHeader('X-Correlation-Id', correlationId);
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      logger.info(
        { method: req.method, path: req.path, status: res.statusCode, ms, ...requestLogFields(res) },
        'request',
      );
      const route = (req.route as { path?: string } | undefined)?.path ?? 'unmatched';
      metrics.httpDuration.observe({ method: req.method, route, status: String(res.statusCode) }, ms / 1000);
    });
    inRequest(requestLogFields(res), next);
  };
}

/** What every log line about a request carries: its correlation id and, when it has one, its trace. */
export function requestLogFields(res: Response): { correlationId: string; traceId?: string } {
  const traceId = res.locals.traceId as string | undefined;
  const correlationId = res.locals.correlationId as string;
  return traceId === undefined ? { correlationId } : { correlationId, traceId };
}

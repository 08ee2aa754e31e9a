import type { RequestHandler } from 'express';
import { SpanStatusCode } from '@opentelemetry/api';
import { formatTraceparent, freshSpanId, parseTraceparent, type TraceContext } from '../../observability/traceparent';
import { activeDuring, spanContextOf, startRequestSpan, tracingOn } from '../../observability/tracing';

/**
 * The request's place in a trace (docs/operations.md "Traces"): a `traceparent` the caller sends is
 * continued, and the answer's `traceparent` names the request's span. With tracing on, that is the
 * SERVER span made here, ended once the answer is sent; with it off, a span id of our own under
 * the caller's trace, so the events the request appends still carry the caller's trace to a
 * projector that traces. Off and without a `traceparent`, the request has no trace context.
 */
export const requestTrace: RequestHandler = (req, res, next) => {
  const parent = parseTraceparent(req.header('traceparent'));
  if (!tracingOn()) {
    if (parent) answer(res, { ...parent, spanId: freshSpanId() });
    next();
    return;
  }
  const span = startRequestSpan(
    req.method,
    { 'http.request.method': req.method, 'url.path': req.path, 'url.scheme': req.protocol },
    parent,
  );
  res.locals.span = span;
  answer(res, spanContextOf(span));
  res.on('finish', () => {
    const route = (req.route as { path?: string } | undefined)?.path;
    if (route !== undefined) {
      span.updateName(`${req.method} ${route}`);
      span.setAttribute('http.route', route);
    }
    span.setAttribute('http.response.status_code', res.statusCode);
    if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  });
  activeDuring(span, next);
};

function answer(res: Parameters<RequestHandler>[1], context: TraceContext): void {
  const traceparent = formatTraceparent(context);
  res.locals.traceId = context.traceId;
  res.locals.traceparent = traceparent;
  res.setHeader('traceparent', traceparent);
}

import { randomBytes } from 'node:crypto';

/** A W3C trace context (https://www.w3.org/TR/trace-context/): the trace, the span, the sampled flag. */
export type TraceContext = { readonly traceId: string; readonly spanId: string; readonly traceFlags: number };

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZEROS = /^0+$/;

/**
 * The trace context a `traceparent` header names, or undefined when it names none: a malformed or
 * all-zero id is ignored, as the recommendation says, and the request starts a trace of its own.
 * Parsed here rather than by the SDK's propagator so that a service with tracing off, which loads
 * no SDK, still continues the caller's trace in its answer and its events.
 */
export function parseTraceparent(header: string | undefined): TraceContext | undefined {
  if (header === undefined || header.length > 512) return undefined;
  const match = TRACEPARENT.exec(header.trim());
  if (!match) return undefined;
  const [, version, traceId, spanId, flags, rest] = match as unknown as [
    string,
    string,
    string,
    string,
    string,
    string?,
  ];
  // Version ff is forbidden; version 00 has exactly four fields, later versions may append some.
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (ZEROS.test(traceId) || ZEROS.test(spanId)) return undefined;
  return { traceId, spanId, traceFlags: parseInt(flags, 16) & 0xff };
}

export function formatTraceparent(context: TraceContext): string {
  return `00-${context.traceId}-${context.spanId}-${(context.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/** A span id of our own under the caller's trace, for when no SDK makes spans. */
export const freshSpanId = (): string => randomBytes(8).toString('hex');

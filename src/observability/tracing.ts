import {
  context as contexts,
  type Context,
  type Span,
  SpanStatusCode,
  type Attributes,
  type Link,
  ROOT_CONTEXT,
  trace,
  TraceFlags,
} from '@opentelemetry/api';
import type { TraceContext } from './traceparent';

/**
 * Tracing through the OpenTelemetry API only. The SDK (`tracing-sdk.ts`) is loaded when the
 * standard variables ask for an exporter; until then the API's tracer is the no-op one and every
 * helper here returns before it makes a span, so the embedded default pays a boolean test.
 */
const tracer = trace.getTracer('project-resources');
let on = false;

/** True once an SDK exports spans from this process. */
export const tracingOn = (): boolean => on;

export function markTracingOn(value: boolean): void {
  on = value;
}

/** Whether the standard variables ask for traces: an OTLP endpoint, or an exporter other than `none`. */
export function tracingAsked(env: NodeJS.ProcessEnv): boolean {
  const exporter = env.OTEL_TRACES_EXPORTER?.trim();
  if (exporter === 'none' || env.OTEL_SDK_DISABLED === 'true') return false;
  return Boolean(exporter || env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/** The API's context for a remote parent: a span of another process (a caller, the request behind an event). */
export function remoteParent(parent: TraceContext): Context {
  return trace.setSpanContext(ROOT_CONTEXT, { ...parent, isRemote: true });
}

/**
 * Runs `work` in a span child of the active one (or of `parent`), ended when it settles; an error
 * marks it and goes on. Without tracing, `work` runs alone and gets no span.
 */
export function inSpan<T>(
  name: string,
  attributes: Attributes,
  work: (span: Span | undefined) => Promise<T>,
  options: { readonly parent?: Context; readonly links?: Link[] } = {},
): Promise<T> {
  if (!on) return work(undefined);
  return tracer.startActiveSpan(
    name,
    { attributes, ...(options.links ? { links: options.links } : {}) },
    options.parent ?? contexts.active(),
    async (span) => {
      try {
        return await work(span);
      } catch (error) {
        span.recordException(error instanceof Error ? error : String(error));
        span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : 'error' });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

/** A span of the request, started by the request middleware and ended when the answer is sent. */
export function startRequestSpan(name: string, attributes: Attributes, parent: TraceContext | undefined): Span {
  return tracer.startSpan(
    name,
    { kind: 1 /* SpanKind.SERVER */, attributes },
    parent ? remoteParent(parent) : ROOT_CONTEXT,
  );
}

/**
 * Runs `next` with the request's span active. What a route does runs in it again
 * (src/api/route-declaration.ts, `withSpan`): the request's body arrives in the socket's async
 * context, and binding the request's events to the span instead would wrap every listener.
 */
export function activeDuring(span: Span, next: () => void): void {
  contexts.with(trace.setSpan(contexts.active(), span), next);
}

/** Runs `work` with `span` active, so the spans it starts are its children. */
export function withSpan<T>(span: Span | undefined, work: () => T): T {
  if (!on || !span) return work();
  return contexts.with(trace.setSpan(contexts.active(), span), work);
}

export const spanContextOf = (span: Span): TraceContext => {
  const { traceId, spanId, traceFlags } = span.spanContext();
  return { traceId, spanId, traceFlags };
};

export const SAMPLED = TraceFlags.SAMPLED;

import { context, propagation, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  ConsoleSpanExporter,
  SimpleSpanProcessor,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { markTracingOn } from '../../observability/tracing';

export type TracingOptions = {
  /** Where spans go; by default what OTEL_TRACES_EXPORTER names: OTLP over HTTP (JSON), or the console. */
  readonly exporter?: SpanExporter;
  /** Export each span as it ends rather than in batches (tests that read spans at once). */
  readonly immediate?: boolean;
};

/**
 * Registers the SDK, an adapter like the others: src/main.ts loads this file only when tracing is
 * asked for, so a service without it never loads the SDK. The exporter reads OTEL_EXPORTER_OTLP_ENDPOINT and the
 * other standard variables itself; OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES name the service.
 * Answers what flushes and stops it.
 */
export function startTracing(env: NodeJS.ProcessEnv, options: TracingOptions = {}): () => Promise<void> {
  const exporter =
    options.exporter ??
    (env.OTEL_TRACES_EXPORTER?.trim() === 'console' ? new ConsoleSpanExporter() : new OTLPTraceExporter());
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': 'project-resources' }))
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new NodeTracerProvider({
    resource,
    spanProcessors: [options.immediate ? new SimpleSpanProcessor(exporter) : new BatchSpanProcessor(exporter)],
  });
  // The W3C propagator only: a service continues the caller's trace from `traceparent` alone.
  provider.register({ propagator: new W3CTraceContextPropagator() });
  markTracingOn(true);
  return async () => {
    markTracingOn(false);
    await provider.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
  };
}

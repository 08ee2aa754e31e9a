import type { RecordedEvent } from '../ports/event-store';
import { parseTraceparent } from '../observability/traceparent';
import { inSpan, remoteParent, tracingOn } from '../observability/tracing';

/**
 * Folds `event` in a span that continues the trace of the request that appended it, a child of
 * that request's span (its `traceparent` in the metadata), in whichever process projects: a write
 * and its projection read as one trace. An event without one (appended before traces, or by an
 * operator tool) gets no span, so a catch-up over an old log exports nothing.
 */
export function tracedApply(projection: string, event: RecordedEvent, apply: () => Promise<void>): Promise<void> {
  if (!tracingOn()) return apply();
  const parent = parseTraceparent(event.metadata.traceparent);
  if (!parent) return apply();
  return inSpan(
    `project ${projection}`,
    { projection, 'event.type': event.type, stream: event.streamId, position: Number(event.position) },
    apply,
    { parent: remoteParent(parent) },
  );
}

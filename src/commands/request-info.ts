import type { Caller } from '../domain/auth/caller';
import type { EventMetadata } from '../domain/event';

/** Who asked, and under which request: what every appended event is stamped with. */
export type RequestInfo = {
  readonly caller: Caller;
  readonly correlationId: string;
  readonly clientAddress?: string;
  /** The request's W3C trace context, when it has one (src/api/middleware/request-trace.ts). */
  readonly traceparent?: string;
};

/** The stamp (event metadata) of what `request` appends at `now`. */
export const stampOf = (request: RequestInfo, now: string): EventMetadata => ({
  actor: request.caller.actor,
  correlationId: request.correlationId,
  at: now,
  ...(request.clientAddress === undefined ? {} : { clientAddress: request.clientAddress }),
  ...(request.traceparent === undefined ? {} : { traceparent: request.traceparent }),
});

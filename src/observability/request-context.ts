import { AsyncLocalStorage } from 'node:async_hooks';

/** What every log line written on behalf of a request carries (src/observability/logger.ts). */
export type RequestLogContext = { readonly correlationId: string; readonly traceId?: string };

const current = new AsyncLocalStorage<RequestLogContext>();

/**
 * Runs `work` (the rest of the request's middleware) as the request `context` names: whatever it
 * logs, at once or in a continuation it starts (a use of an API key recorded after the answer),
 * carries the request's ids without each call site passing them.
 */
export const inRequest = <T>(context: RequestLogContext, work: () => T): T => current.run(context, work);

/**
 * Runs `work` as no request: for what a request starts that outlives it and logs on its own (a
 * rebuild job, and the projections of the generation it switches to), which would otherwise
 * carry the ids of the request that asked for it on every line, long after it was answered.
 */
export const outsideRequest = <T>(work: () => T): T => current.exit(work);

/** The request being handled, if any. */
export const requestLogContext = (): RequestLogContext | undefined => current.getStore();

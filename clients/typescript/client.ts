/**
 * A typed client of the service, generated from its OpenAPI document: every path, parameter and
 * body is checked by the compiler against `schema.d.ts` (`npm run client:generate` rewrites it;
 * `npm run client:check` fails when it drifts from the service).
 *
 *   const api = createResourcesClient({ baseUrl: 'http://localhost:3000', apiKey });
 *   const { data, error } = await api.POST('/api/Project/GetResourceList', { body: { projectId: 10 } });
 *
 * Every request names the API version the client was generated for (`Api-Version`). Every POST
 * is sent with an `Idempotency-Key` (a new UUID per call, unless the call sets one). Each attempt
 * has a time limit, and what is safe to repeat is retried when it went unanswered
 * (client-retry.ts): the service answers a retry of a write that was stored with the stored
 * answer (`Idempotent-Replayed: true`) instead of writing it again. `eachResource`,
 * `eachApplication` and `eachAuditEvent` walk a whole list by its cursors (client-pages.ts).
 */
import createClient from 'openapi-fetch';
import type { components, operations, paths } from './schema.js';
import { retryingFetch, type RetryOptions } from './client-retry.js';

export type { components, operations, paths };
export { retryingFetch, retryAfterMs, type RetryOptions } from './client-retry.js';
export { eachApplication, eachAuditEvent, eachResource, everyItem, ResourcesApiError } from './client-pages.js';
import type { ClientMedia, ResourcesClient } from './client-types.js';
export type { ResourcesClient } from './client-types.js';
/**
 * The API version this client was generated for, sent on every request: a service that no longer
 * serves it answers 400 naming `Api-Version` rather than answers of another shape. Typed from the
 * document, so a client regenerated for another version does not compile until this is updated.
 */
export const API_VERSION: components['parameters']['ApiVersion'] = '2026-11-28';

/** An RFC 9457 problem, the body of every error answer. */
export type Problem = components['schemas']['Problem'];

export type ClientOptions = RetryOptions & {
  readonly baseUrl: string;
  /** An interactive session token, sent as `Authorization: Bearer`. */
  readonly token?: string;
  /** An API key (`keyId.secret`), sent as `X-API-Key`. Never together with a token. */
  readonly apiKey?: string;
  readonly fetch?: typeof globalThis.fetch;
};

export function createResourcesClient(options: ClientOptions): ResourcesClient {
  if (options.token && options.apiKey)
    throw new Error('give a token or an API key, not both: the service refuses both at once');
  const headers: Record<string, string> = { 'api-version': API_VERSION };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.apiKey) headers['x-api-key'] = options.apiKey;
  const inner = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  return createClient<paths, ClientMedia>({
    baseUrl: options.baseUrl,
    headers,
    fetch: retryingFetch(inner, options),
  });
}

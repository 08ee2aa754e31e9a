/**
 * A typed client of the service, generated from its OpenAPI document: every path, parameter and
 * body is checked by the compiler against `schema.d.ts` (`npm run client:generate` rewrites it;
 * `npm run client:check` fails when it drifts from the service).
 *
 *   const api = createResourcesClient({ baseUrl: 'http://localhost:3000', apiKey });
 *   const { data, error } = await api.POST('/api/Project/GetResourceList', { body: { projectId: 10 } });
 *
 * Every request names the API version the client was generated for (`Api-Version`). Every POST
 * is sent with an `Idempotency-Key` (a new UUID per call, unless the call sets one),
 * and retried with the same key when it went unanswered: a network error, a 503, or a 409
 * `/problems/idempotency-key-in-progress`. The service then answers a retry of a write that was
 * stored with the stored answer (`Idempotent-Replayed: true`) instead of writing it again.
 */
import createClient from 'openapi-fetch';
import type { Client } from 'openapi-fetch';
import type { components, operations, paths } from './schema.js';

export type { components, operations, paths };
/**
 * The media types the client reads: every one the document names but text/csv, which the audit
 * lists answer only when asked with `format=csv` (a download, fetched as text): their `data` stays
 * the JSON answer's type.
 */
type ClientMedia =
  | 'application/json'
  | 'application/problem+json'
  | 'application/octet-stream'
  | 'multipart/form-data'
  | 'text/html'
  | 'text/plain';
export type ResourcesClient = Client<paths, ClientMedia>;
/**
 * The API version this client was generated for, sent on every request: a service that no longer
 * serves it answers 400 naming `Api-Version` rather than answers of another shape. Typed from the
 * document, so a client regenerated for another version does not compile until this is updated.
 */
export const API_VERSION: components['parameters']['ApiVersion'] = '2026-11-28';

/** An RFC 9457 problem, the body of every error answer. */
export type Problem = components['schemas']['Problem'];

export type ClientOptions = {
  readonly baseUrl: string;
  /** An interactive session token, sent as `Authorization: Bearer`. */
  readonly token?: string;
  /** An API key (`keyId.secret`), sent as `X-API-Key`. Never together with a token. */
  readonly apiKey?: string;
  readonly fetch?: typeof globalThis.fetch;
  /** Retries of a POST that went unanswered, with its Idempotency-Key (default 3; 0: none). */
  readonly retries?: number;
  /** Milliseconds before the first retry, doubled at each (default 200); a `Retry-After` wins. */
  readonly retryDelayMs?: number;
};

const IN_PROGRESS = '/problems/idempotency-key-in-progress';

/** Whether an answer leaves the request unanswered: worth the same request again, with its key. */
async function unanswered(response: Response): Promise<boolean> {
  if (response.status === 503) return true;
  if (response.status !== 409) return false;
  const problem = (await response
    .clone()
    .json()
    .catch(() => undefined)) as { type?: string } | undefined;
  return problem?.type === IN_PROGRESS;
}

/** A fetch that gives every POST an Idempotency-Key and retries it, with that key, while it goes unanswered. */
export function retryingFetch(
  inner: typeof globalThis.fetch,
  retries = 3,
  retryDelayMs = 200,
): typeof globalThis.fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    if (request.method !== 'POST') return inner(request);
    if (!request.headers.has('idempotency-key')) request.headers.set('idempotency-key', crypto.randomUUID());
    for (let attempt = 0; ; attempt++) {
      let response: Response | undefined;
      try {
        response = await inner(request.clone());
      } catch (error) {
        if (attempt >= retries) throw error;
      }
      if (response && (attempt >= retries || !(await unanswered(response)))) return response;
      const retryAfter = Number(response?.headers.get('retry-after'));
      const delay = Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : retryDelayMs * 2 ** attempt;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  };
}

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
    fetch: options.retries === 0 ? inner : retryingFetch(inner, options.retries, options.retryDelayMs),
  });
}

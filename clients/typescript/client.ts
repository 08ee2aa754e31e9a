/**
 * A typed client of the service, generated from its OpenAPI document: every path, parameter and
 * body is checked by the compiler against `schema.d.ts` (`npm run client:generate` rewrites it;
 * `npm run client:check` fails when it drifts from the service).
 *
 *   const api = createResourcesClient({ baseUrl: 'http://localhost:3000', apiKey });
 *   const { data, error } = await api.POST('/api/Project/GetResourceList', { body: { projectId: 10 } });
 */
import createClient from 'openapi-fetch';
import type { Client } from 'openapi-fetch';
import type { components, operations, paths } from './schema';

export type { components, operations, paths };
export type ResourcesClient = Client<paths>;
/** An RFC 9457 problem, the body of every error answer. */
export type Problem = components['schemas']['Problem'];

export type ClientOptions = {
  readonly baseUrl: string;
  /** An interactive session token, sent as `Authorization: Bearer`. */
  readonly token?: string;
  /** An API key (`keyId.secret`), sent as `X-API-Key`. Never together with a token. */
  readonly apiKey?: string;
  readonly fetch?: typeof globalThis.fetch;
};

export function createResourcesClient(options: ClientOptions): ResourcesClient {
  if (options.token && options.apiKey) throw new Error('give a token or an API key, not both: the service refuses both at once');
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.apiKey) headers['x-api-key'] = options.apiKey;
  return createClient<paths>({
    baseUrl: options.baseUrl,
    headers,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}

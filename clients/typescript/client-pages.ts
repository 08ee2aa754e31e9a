/**
 * `for await` over a whole list, page by page along `nextCursor` (docs/api.md "Paginated
 * endpoints"): each page starts after the last item of the one before, so an item that stays in
 * the list comes exactly once however the list changes meanwhile.
 */
import type { Client } from 'openapi-fetch';
import type { components, paths } from './schema.js';
import type { ResourcesClient } from './client-types.js';

type Schemas = components['schemas'];
type ResourceListBody = NonNullable<
  paths['/api/Project/GetResourceList']['post']['requestBody']
>['content']['application/json'];
type ApplicationsPath = paths['/api/ApplicationDefinition/{applicationDefinitionId}/Applications']['post'];
type ApplicationsBody = NonNullable<ApplicationsPath['requestBody']>['content']['application/json'];
type AuditEventsQuery = NonNullable<paths['/api/audit/events']['get']['parameters']['query']>;

/** An answer that is not a page: its status and problem document. */
export class ResourcesApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Schemas['Problem'] | undefined,
  ) {
    super(problem?.detail ?? problem?.title ?? `the service answered ${status}`);
    this.name = 'ResourcesApiError';
  }
}

type Page<T> = { readonly list: readonly T[]; readonly nextCursor: string | null };

/** Every item of a list, asking `page` for each page with the cursor the one before answered. */
export async function* everyItem<T>(page: (cursor: string | undefined) => Promise<Page<T>>): AsyncGenerator<T> {
  let cursor: string | undefined;
  do {
    const answered = await page(cursor);
    yield* answered.list;
    cursor = answered.nextCursor ?? undefined;
  } while (cursor !== undefined);
}

function pageOf<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data !== undefined) return result.data;
  throw new ResourcesApiError(result.response.status, result.error as Schemas['Problem'] | undefined);
}

/** Every resource GetResourceList lists with these filters (`take`: the page size; the pager sends `cursor`). */
export function eachResource(
  api: Client<paths>,
  body: Omit<ResourceListBody, 'skip' | 'cursor'>,
): AsyncGenerator<Schemas['ResourceRecord']> {
  return everyItem(async (cursor) => {
    const answer = pageOf(await api.POST('/api/Project/GetResourceList', { body: { ...body, cursor } }));
    return answer.resources;
  });
}

/** Every application of a definition, in `orderBy` order (`take`: the page size). */
export function eachApplication(
  api: Client<paths>,
  applicationDefinitionId: number,
  body: Omit<ApplicationsBody, 'skip' | 'cursor'> = {},
): AsyncGenerator<Schemas['ApplicationItem']> {
  return everyItem(async (cursor) =>
    pageOf(
      await api.POST('/api/ApplicationDefinition/{applicationDefinitionId}/Applications', {
        params: { path: { applicationDefinitionId: String(applicationDefinitionId) } },
        body: { ...body, cursor },
      }),
    ),
  );
}

/**
 * Every event of the audit log matching these filters, oldest first (`limit`: the page size). The
 * walk ends where the log ends when it reaches it; events appended later are for the next walk.
 */
export function eachAuditEvent(
  // The client that reads JSON only: the audit lists also answer CSV, which the pager never asks for.
  api: ResourcesClient,
  filters: Omit<AuditEventsQuery, 'cursor' | 'after' | 'format'> = {},
): AsyncGenerator<Schemas['AuditEvent']> {
  return everyItem(async (cursor) => {
    const page = pageOf(await api.GET('/api/audit/events', { params: { query: { ...filters, cursor } } }));
    return { list: page.items, nextCursor: page.nextCursor };
  });
}

import type { Collection, Doc, Filter, Sort } from '../infra/read-store/read-store';

/**
 * The read side of the pagination convention (SPEC.md "Paginated endpoints"): which page, and
 * the answer `{count, list}` with count the total available. The request side (take, skip, the
 * pageSize alias and their limits) is src/api/pagination.ts.
 */
export type PageRequest = { readonly skip: number; readonly take: number };

export type PageResponse<T> = { count: number; list: T[] };

/** One page of a read-model collection, total and items from a single query. */
export async function readPage<T extends Doc>(
  collection: Collection<T>,
  filter: Filter,
  sort: Sort,
  page: PageRequest,
): Promise<PageResponse<T>> {
  if (page.take === 0) return { count: await collection.count(filter), list: [] };
  const { count, list } = await collection.findPage(filter, { sort, skip: page.skip, limit: page.take });
  return { count, list };
}

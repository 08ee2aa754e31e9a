/**
 * The read side of the pagination convention (docs/api.md "Paginated endpoints"): which page, and
 * the answer `{count, list}` with count the total available. The request side (take, skip, the
 * pageSize alias and their limits) is src/api/pagination.ts.
 */
export type PageRequest = { readonly skip: number; readonly take: number };

export type PageResponse<T> = { count: number; list: T[] };

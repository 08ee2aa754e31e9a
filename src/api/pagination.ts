import { z } from 'zod';
import type { Collection, Doc, Filter, Page, Sort } from '../infra/read-store/read-store';

/**
 * The one pagination convention (SPEC.md "Paginated endpoints", DESIGN.md): `take` and `skip`
 * in the JSON body, `pageSize` accepted as an alias of `take`; the answer carries `count` (the
 * total available) and `list` (the page).
 */
export const DEFAULT_TAKE = 50;
export const MAX_TAKE = 1000;

const take = z.number().int().min(0).max(MAX_TAKE);

export const paginationShape = {
  skip: z.number().int().min(0).optional(),
  take: take.optional(),
  pageSize: take.optional(),
};

type PaginationFields = { skip?: number; take?: number; pageSize?: number };

export type PageRequest = { readonly skip: number; readonly take: number };

/** A request schema with the pagination fields, resolved to `{skip, take}`. */
export function paginated<Shape extends z.ZodRawShape>(shape: Shape) {
  return z
    .object({ ...shape, ...paginationShape })
    .refine((body) => agreeingAliases(body as PaginationFields), {
      message: 'take and pageSize are aliases; when both are sent they must be equal',
      path: ['pageSize'],
    });
}

function agreeingAliases(b: PaginationFields): boolean {
  return b.take === undefined || b.pageSize === undefined || b.take === b.pageSize;
}

export function pageRequestOf(body: PaginationFields): PageRequest {
  return { skip: body.skip ?? 0, take: body.take ?? body.pageSize ?? DEFAULT_TAKE };
}

/** One page of a read-model collection, total and items from a single query. */
export async function readPage<T extends Doc>(
  collection: Collection<T>,
  filter: Filter,
  sort: Sort,
  page: PageRequest,
): Promise<Page<T>> {
  if (page.take === 0) return { count: await collection.count(filter), list: [] };
  return collection.findPage(filter, { sort, skip: page.skip, limit: page.take });
}

export type PageResponse<T> = { count: number; list: T[] };

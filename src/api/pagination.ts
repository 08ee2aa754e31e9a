import { z } from 'zod';
import type { PageRequest } from '../projections/paging';

/**
 * The one pagination convention (docs/api.md "Paginated endpoints", docs/api.md): `take` and `skip`
 * in the JSON body, `pageSize` accepted as an alias of `take`. The answer, `{count, list}`, and
 * the query behind it are src/projections/paging.ts.
 */
export const DEFAULT_TAKE = 50;
export const MAX_TAKE = 1000;

const take = z.number().int().min(0).max(MAX_TAKE);

export const paginationShape = {
  skip: z.number().int().min(0).optional().meta({ description: 'Items to skip; default 0', default: 0, example: 0 }),
  take: take.optional().meta({
    description: `Items to answer, 0 to ${MAX_TAKE}; default ${DEFAULT_TAKE}; 0 answers the count alone`,
    default: DEFAULT_TAKE,
    example: 10,
  }),
  pageSize: take.optional().meta({
    description: 'An alias of `take`; when both are sent they must be equal; absent: `take` decides',
    example: 10,
  }),
};

type PaginationFields = { skip?: number; take?: number; pageSize?: number };

/** A request schema with the pagination fields, resolved to `{skip, take}`. */
export function paginated<Shape extends z.ZodRawShape>(shape: Shape, { strict = false }: { strict?: boolean } = {}) {
  const fields = { ...shape, ...paginationShape };
  return (strict ? z.strictObject(fields) : z.object(fields)).refine(
    (body) => agreeingAliases(body as PaginationFields),
    {
      message: 'take and pageSize are aliases; when both are sent they must be equal',
      path: ['pageSize'],
    },
  );
}

function agreeingAliases(b: PaginationFields): boolean {
  return b.take === undefined || b.pageSize === undefined || b.take === b.pageSize;
}

export function pageRequestOf(body: PaginationFields): PageRequest {
  return { skip: body.skip ?? 0, take: body.take ?? body.pageSize ?? DEFAULT_TAKE };
}

import { z } from 'zod';
import type { PageRequest } from '../projections/paging';
import { MAX_CURSOR_LENGTH } from './page-cursor';

/**
 * The one pagination convention (docs/api.md "Paginated endpoints", docs/api.md): `take` and `skip`
 * in the JSON body, `pageSize` accepted as an alias of `take`, or `cursor`, the `nextCursor` of the
 * page before (src/api/page-cursor.ts), in place of `skip`. The answer, `{count, list}`, and
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
  cursor: z
    .string()
    .min(1)
    .max(MAX_CURSOR_LENGTH)
    .nullish()
    .meta({
      description:
        'The `nextCursor` of the page before, sent with the same other fields: the page starts after its last ' +
        'item, however the list changed meanwhile; not with `skip` > 0; absent or null (the `nextCursor` of no page ' +
        'before): the page starts at `skip`',
    }),
};

/** `nextCursor` of an answer: where the next page starts, null when this page ends the list. */
export const nextCursorSchema = z.string().nullable().meta({
  description: 'Send it as `cursor` (with the same other fields) for the page after this one; null: the list ends here',
  example: null,
});

type PaginationFields = { skip?: number; take?: number; pageSize?: number; cursor?: string | null | undefined };

/** A request schema with the pagination fields, resolved to `{skip, take}`. */
export function paginated<Shape extends z.ZodRawShape>(shape: Shape, { strict = false }: { strict?: boolean } = {}) {
  const fields = { ...shape, ...paginationShape };
  return (strict ? z.strictObject(fields) : z.object(fields))
    .refine((body) => agreeingAliases(body as PaginationFields), {
      message: 'take and pageSize are aliases; when both are sent they must be equal',
      path: ['pageSize'],
    })
    .refine((body) => (body as PaginationFields).cursor == null || ((body as PaginationFields).skip ?? 0) === 0, {
      message: 'a cursor says where the page starts: send it without skip (or with skip 0)',
      path: ['cursor'],
    });
}

function agreeingAliases(b: PaginationFields): boolean {
  return b.take === undefined || b.pageSize === undefined || b.take === b.pageSize;
}

export function pageRequestOf(body: PaginationFields): PageRequest {
  return { skip: body.skip ?? 0, take: body.take ?? body.pageSize ?? DEFAULT_TAKE };
}

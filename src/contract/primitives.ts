import { z } from 'zod';

/** The value types docs/api.md's response records are written in, shared by every record schema. */
export const integer = z.number().int();
export const count = z.number().int().min(0);
export const isoTimestamp = z.iso.datetime({ offset: true });

/**
 * A record of the API, written once for every record: strict (an extra or a missing field fails)
 * and named `id` as an OpenAPI component, referenced wherever it is used.
 */
export const component = <const S extends z.ZodRawShape>(
  id: string,
  shape: S,
  meta: { readonly description?: string; readonly example?: z.input<z.ZodObject<S>> } = {},
) => z.strictObject(shape).meta({ id, ...meta });

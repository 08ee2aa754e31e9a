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

/** Decimal digits, no sign, no leading zero, within the safe integers' length. */
const DECIMAL_DIGITS = /^(0|[1-9][0-9]{0,15})$/;

/**
 * A whole number in a query string, read from decimal digits only: `0x17`, `1e0`, `22.0` and ` 1`
 * are refused, not read as the numbers JavaScript would make of them (an id that deletes must be
 * the id the client wrote). `bounds` limits it as a number; the OpenAPI document shows that number.
 */
export const queryInteger = (bounds: (whole: z.ZodNumber) => z.ZodNumber) =>
  z.preprocess(
    (value) => (typeof value === 'string' ? (DECIMAL_DIGITS.test(value) ? Number(value) : Number.NaN) : value),
    bounds(z.number({ error: 'must be a whole number in decimal digits' }).int()),
  );

/**
 * An id in a path: decimal digits naming a positive safe integer (`0`, `-1`, `1.5`, `1e3`, `abc`
 * are 400), documented as the string a path segment is.
 */
export const pathId = z
  .string()
  .regex(/^[1-9][0-9]{0,15}$/, 'must be a positive integer')
  .transform(Number)
  .pipe(z.number().int().positive().max(Number.MAX_SAFE_INTEGER));

import type { z } from 'zod';
import { DomainError } from '../domain/errors';
import type { FieldError } from '../domain/errors';

/** `sharesToUpsert[1].privacyLevel` from zod's path `['sharesToUpsert', 1, 'privacyLevel']`. */
export function fieldPath(path: readonly PropertyKey[], prefix = ''): string {
  let out = prefix;
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out === '' ? '(body)' : out;
}

export function zodFieldErrors(error: z.ZodError, prefix = ''): FieldError[] {
  return error.issues.flatMap((issue) =>
    // An unknown field of a strict body is named itself, one error each (`pagesize`, not `(body)`).
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({ field: fieldPath([...issue.path, key], prefix), message: 'unknown field' }))
      : [{ field: fieldPath(issue.path, prefix), message: issue.message }],
  );
}

/** Parses input with a schema; a mismatch is a 400 naming every bad field. */
export function parseWith<S extends z.ZodType>(schema: S, input: unknown, prefix = ''): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const errors = zodFieldErrors(result.error, prefix);
  throw new DomainError('validation', `invalid ${errors.map((e) => e.field).join(', ')}`, errors);
}

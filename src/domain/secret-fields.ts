import { z } from 'zod';

/**
 * Secret material in event data (a key's hash, anything an attacker could test guesses against).
 * Each event schema marks such a field where it declares it, with `secret(...)`; the audit's
 * answers derive what they leave out from that mark, so that a field declared secret can never be
 * forgotten by a reader. The log keeps the field as stored: the hash chain covers it.
 */
const SECRET = new WeakSet<z.ZodType>();

/** Marks a field of an event schema as secret: the audit never shows it. */
export function secret<T extends z.ZodType>(schema: T): T {
  SECRET.add(schema);
  return schema;
}

function isSecret(field: z.ZodType): boolean {
  if (SECRET.has(field)) return true;
  if (field instanceof z.ZodOptional || field instanceof z.ZodNullable) return isSecret(field.unwrap() as z.ZodType);
  return false;
}

/** The names of an event schema's fields marked secret; none for a schema that is not an object. */
export function secretFieldsOf(schema: z.ZodType): readonly string[] {
  if (!(schema instanceof z.ZodObject)) return [];
  return Object.entries(schema.shape as Record<string, z.ZodType>)
    .filter(([, field]) => isSecret(field))
    .map(([name]) => name);
}

/** `data` without the fields in `secretFields` (the same object when there is nothing to leave out). */
export function withoutSecrets(data: unknown, secretFields: readonly string[]): unknown {
  if (secretFields.length === 0 || typeof data !== 'object' || data === null || Array.isArray(data)) return data;
  return Object.fromEntries(Object.entries(data).filter(([name]) => !secretFields.includes(name)));
}

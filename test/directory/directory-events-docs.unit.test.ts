import type { z } from 'zod';
import { directoryBatchSchema, directoryEventSchema } from '../../src/directory/directory-events';

/**
 * The directory feed's schema is also its documentation (the OpenAPI document is generated from
 * it): every event type and every field of its record says what it is, and every example or
 * default it shows is one the schema itself accepts.
 */
type Documented = { description?: unknown; example?: unknown; default?: unknown };
const docsOf = (schema: z.ZodType): Documented => (schema.meta() ?? {}) as Documented;
const isText = (value: unknown): boolean => typeof value === 'string' && value.trim() !== '';

const fieldsOf = directoryEventSchema.options.flatMap((option) => {
  const type = option.shape.type.value;
  const data = option.shape.data as z.ZodObject;
  return Object.entries(data.shape).map(([field, schema]) => [`${type}.${field}`, schema as z.ZodType] as const);
});

describe('directory feed schema documentation', () => {
  it.each(directoryEventSchema.options.map((o) => [o.shape.type.value, o] as const))(
    'given the event type %s, then it is described and its example is its own name',
    (type, option) => {
      const docs = docsOf(option.shape.type);

      expect(isText(docs.description)).toBe(true);
      expect(docs.example).toBe(type);
    },
  );

  it.each(directoryEventSchema.options.map((o) => [o.shape.type.value, o.shape.data as z.ZodType] as const))(
    'given the record of %s, then it is described',
    (_type, data) => {
      expect(isText(docsOf(data).description)).toBe(true);
    },
  );

  it.each(fieldsOf)('given the field %s, then it is described', (_field, schema) => {
    expect(isText(docsOf(schema).description)).toBe(true);
  });

  it.each(fieldsOf)(
    'given the field %s, then the example and default it shows are accepted by it',
    (_field, schema) => {
      const { example, default: byDefault } = docsOf(schema);
      const shown = [example, byDefault].filter((value) => value !== undefined);

      expect(shown.map((value) => schema.safeParse(value).success)).toEqual(shown.map(() => true));
    },
  );

  it('given the batch, then its example and its events example are accepted', () => {
    const events = directoryBatchSchema.shape.events;

    expect(isText(docsOf(events).description)).toBe(true);
    expect(events.safeParse(docsOf(events).example).success).toBe(true);
    expect(directoryBatchSchema.safeParse(docsOf(directoryBatchSchema).example).success).toBe(true);
  });
});

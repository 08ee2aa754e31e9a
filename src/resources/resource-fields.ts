import { z } from 'zod';

/*
 * A resource's editable fields: what SaveProjectResource writes. Each is one entry of FIELDS, and
 * everything else that names them takes them from here: the state and the events
 * (`ResourceFields`), their stored schema (`resourceFieldsSchema`), the view record and the
 * resource record (`ApiFields`, `RECORD_FIELDS`), the save request (`REQUEST_FIELDS`) and the
 * audit's list of edited fields (`EDITABLE_FIELDS`, `editableFieldSchema`). A field added here
 * is saved, stored, shown and audited without another file changing.
 */

/**
 * An http(s) link or a path the upload endpoint returned (`folder/<random id>/<file name>`).
 * Anything else — `javascript:`, `file:`, `../` — is refused.
 */
const storedPath = /^[A-Za-z0-9_-]{1,64}\/[A-Za-z0-9_-]{1,64}\/[^/\\\0]{1,255}$/;
const resourceUrlSchema = z
  .string()
  .trim()
  .min(1)
  .max(2048)
  .refine((value) => {
    if (storedPath.test(value)) return !value.split('/').includes('..');
    try {
      const url = new URL(value);
      return url.protocol === 'http:' || url.protocol === 'https:';
    } catch {
      return false;
    }
  }, 'must be an http(s) URL or a path returned by the upload endpoint');

type FieldEntry<S extends z.ZodType> = {
  /**
   * As the events and the state hold it. No rule a save checks today: the log keeps what older
   * rules accepted, and it must still parse.
   */
  readonly stored: S;
  /** What SaveProjectResource accepts: its rules, its default and its words in the OpenAPI document. */
  readonly request: z.ZodType<z.output<S>, unknown>;
  /** How the resource record describes it. */
  readonly record: { readonly description: string; readonly example: z.output<S> };
  /**
   * For a field added after resources were created: the value a resource has whose events do not
   * carry it, so that the log written before it still folds and parses.
   */
  readonly absent?: z.output<S>;
  /**
   * Whether GetResourceList's free-text `concept` matches a substring of it (a text, or each of a
   * list of texts).
   */
  readonly searched?: true;
};

/** Checks an entry's request and record against its stored type, and keeps its literal types. */
const field = <S extends z.ZodType>(entry: FieldEntry<S>): FieldEntry<S> => entry;

const FIELDS = {
  name: field({
    stored: z.string(),
    request: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .meta({ description: 'Trimmed, 1 to 200 characters', example: 'Pitch deck' }),
    record: { description: 'Its name, at most 200 characters', example: 'Pitch deck' },
    searched: true,
  }),
  description: field({
    stored: z.string(),
    request: z
      .string()
      .max(4000)
      .nullish()
      .transform((v) => v ?? '')
      .meta({
        description: 'At most 4000 characters; default empty',
        default: '',
        example: 'The deck we show investors',
      }),
    record: { description: 'Empty when none was given', example: 'The deck we show investors' },
    searched: true,
  }),
  resourceUrl: field({
    stored: z.string(),
    request: resourceUrlSchema.meta({
      description: 'An http(s) link, or a path the upload endpoint answered (`folder/<id>/<name>`)',
      example: 'https://example.org/deck.pdf',
    }),
    record: {
      description: 'An http(s) link, or an upload path for GET /api/File/Download',
      example: 'https://example.org/deck.pdf',
    },
  }),
  icon: field({
    stored: z.string(),
    request: z
      .string()
      .max(200)
      .nullish()
      .transform((v) => v ?? '')
      .meta({ description: 'An icon name; default empty', default: '', example: 'book' }),
    record: { description: 'An icon name for the client; empty when none', example: 'book' },
  }),
  tags: field({
    stored: z.array(z.string()),
    request: z
      .array(z.string().max(64))
      .max(50)
      .nullish()
      .transform((v) => v ?? [])
      .meta({
        description: 'At most 50 tags of 64 characters, trimmed and deduplicated case-insensitively; default none',
        default: [],
        example: ['pitch'],
      }),
    record: { description: 'Its tags, deduplicated case-insensitively, in the order given', example: ['pitch'] },
    searched: true,
  }),
};

type Fields = typeof FIELDS;

/** The name of an editable field in the state, the events and the audit. */
export type EditableField = keyof Fields;

/** Every editable field, in the order of FIELDS. */
export const EDITABLE_FIELDS = Object.keys(FIELDS) as EditableField[];

/** The API's name of a field where it is not the stored one (the API has always said `resourceTags`). */
const API_NAMES = { tags: 'resourceTags' } as const;
type ApiName<K extends EditableField> = K extends keyof typeof API_NAMES ? (typeof API_NAMES)[K] : K;
const apiNameOf = (key: EditableField): string => (API_NAMES as Partial<Record<EditableField, string>>)[key] ?? key;

type Stored<K extends EditableField> = z.output<Fields[K]['stored']>;
/** Arrays read-only, as the state holds them. */
type Held<T> = T extends readonly (infer E)[] ? readonly E[] : T;

/** The editable fields as the state and the events hold them. */
export type ResourceFields = { readonly [K in EditableField]: Held<Stored<K>> };

/** The editable fields under the API's names, as the view record holds them. */
export type ApiFields = { readonly [K in EditableField as ApiName<K>]: Held<Stored<K>> };

/** The same, as a new resource record holds them (its arrays its own). */
type RecordFields = { [K in EditableField as ApiName<K>]: Stored<K> };

const byField = <V>(value: (key: EditableField) => V, name: (key: EditableField) => string = (key) => key) =>
  Object.fromEntries(EDITABLE_FIELDS.map((key) => [name(key), value(key)]));

/**
 * The stored shape: each event that records the fields (ResourceCreated, ResourceUpdated)
 * spreads it. A field with an `absent` value may be missing from an event written before it.
 */
export const resourceFieldsSchema = z.strictObject(
  byField((key) => {
    const entry: FieldEntry<z.ZodType> = FIELDS[key];
    return entry.absent === undefined ? entry.stored : entry.stored.optional();
  }) as { readonly [K in EditableField]: z.ZodType<Stored<K> | undefined> },
);

/** The audit's `field` of an edit: one of the stored names. */
export const editableFieldSchema = resourceFieldsSchema.keyof();

/** The save request's fields, under the API's names, with the request's rules. */
export const REQUEST_FIELDS = byField((key) => FIELDS[key].request, apiNameOf) as {
  [K in EditableField as ApiName<K>]: Fields[K]['request'];
};

/** The resource record's fields, under the API's names, as the record describes them. */
export const RECORD_FIELDS = byField((key) => {
  const entry: FieldEntry<z.ZodType> = FIELDS[key];
  return entry.stored.meta(entry.record);
}, apiNameOf) as { [K in EditableField as ApiName<K>]: Fields[K]['stored'] };

const ABSENT: Readonly<Partial<Record<EditableField, unknown>>> = byField(
  (key) => (FIELDS[key] as FieldEntry<z.ZodType>).absent,
);

// Arrays are copied: a state or a record never shares one with the value it was made from.
const copied = (value: unknown): unknown => (Array.isArray(value) ? [...(value as unknown[])] : value);

/**
 * The editable fields of an event's or a command's data, copied; a field an older event does not
 * carry takes its `absent` value.
 */
export function fieldsOf(data: ResourceFields): ResourceFields {
  // A loop rather than byField: evolve calls it once per created resource, on every rebuild.
  const held = data as Readonly<Record<string, unknown>>;
  const fields: Record<string, unknown> = {};
  for (const key of EDITABLE_FIELDS) fields[key] = copied(held[key] ?? ABSENT[key]);
  return fields as ResourceFields;
}

/** The fields under the API's names (a view record from the state). */
export function apiFieldsOf(fields: ResourceFields): ApiFields {
  const held = fields as Readonly<Record<string, unknown>>;
  return byField((key) => copied(held[key]), apiNameOf) as ApiFields;
}

/** The fields under the API's names, copied out of a record that holds more (a record from a view record). */
export function apiFieldsIn(record: ApiFields): RecordFields {
  const held = record as Readonly<Record<string, unknown>>;
  return byField((key) => copied(held[apiNameOf(key)]), apiNameOf) as RecordFields;
}

/** The fields under their stored names, out of what the API sent (a save request). */
export function storedFieldsOf(sent: ApiFields): ResourceFields {
  const held = sent as Readonly<Record<string, unknown>>;
  return byField((key) => copied(held[apiNameOf(key)])) as ResourceFields;
}

/** The API's names of the fields the free-text search matches, in the order of FIELDS. */
const SEARCHED = EDITABLE_FIELDS.filter((key) => (FIELDS[key] as FieldEntry<z.ZodType>).searched).map(apiNameOf);

/**
 * What GetResourceList's `concept` is matched against: the searched fields' texts (a list's one
 * by one), lower-cased. Each read model stores them beside a view and keeps a view whose terms
 * include the lower-cased concept as a substring; lower-cased here, not by the database, since
 * SQL's lower() folds some characters differently from toLowerCase.
 */
export function searchTermsOf(fields: ApiFields): string[] {
  const held = fields as Readonly<Record<string, unknown>>;
  return SEARCHED.flatMap((name) => [held[name] as string | readonly string[]].flat()).map((t) => t.toLowerCase());
}

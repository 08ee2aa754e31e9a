import type { z } from 'zod';
import { openApiDocument, ROUTE_DOCS } from '../../src/app/route-groups';
import { documentSchemaErrors } from '../support/documented-request';

/**
 * The OpenAPI document for people: every operation's request (each parameter, the body) and
 * its success answer carry an example, and each example is valid: against the JSON schema the document
 * shows (with its `$ref`s), and, for what the route declaration parses or answers with zod, against
 * that zod schema too. The examples use the demo directory's ids (docs/api.md "Try it"). Every field of
 * a request or an answer, and every parameter, says what it is (a description), and every optional
 * request field either says its default or what its absence means.
 */

type Schema = Record<string, unknown> & { $ref?: string; example?: unknown };
type Media = { schema?: Schema; example?: unknown };
type Parameter = {
  name: string;
  in: string;
  example?: unknown;
  schema?: Schema;
  $ref?: string;
  deprecated?: boolean;
};
type Operation = {
  parameters?: Parameter[];
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, { content?: Record<string, Media> }>;
};
type Doc = {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema>; parameters?: Record<string, Parameter> };
};

const doc = openApiDocument() as unknown as Doc;
/** Media types whose example would be bytes or text, not a JSON value: documented, not exemplified. */
const NOT_JSON = ['application/octet-stream', 'text/plain', 'text/html'];

const resolved = (schema: Schema | undefined): Schema | undefined =>
  schema?.$ref ? resolved(doc.components.schemas[schema.$ref.split('/').pop() as string]) : schema;

type Composed = { readonly example: unknown } | { readonly missing: readonly string[] };
/**
 * A schema's example as a reader of the document sees it (Swagger UI composes it the same way): its own,
 * or, for an object, one made of its fields' examples, for an array one of its items', for a union its
 * first branch that has one. `missing` names the fields that have none.
 */
function composed(schema: Schema | undefined, at: string): Composed {
  const s = resolved(schema);
  if (!s) return { missing: [at] };
  if (s.example !== undefined) return { example: s.example };
  if (s.const !== undefined) return { example: s.const };
  if (Array.isArray(s.enum) && s.enum.length > 0) return { example: s.enum[0] };
  const properties = s.properties as Record<string, Schema> | undefined;
  if (properties) {
    const fields = Object.entries(properties).map(([name, field]) => [name, composed(field, `${at}.${name}`)] as const);
    const missing = fields.flatMap(([, c]) => ('missing' in c ? c.missing : []));
    if (missing.length > 0) return { missing };
    return { example: Object.fromEntries(fields.map(([name, c]) => [name, 'example' in c ? c.example : null])) };
  }
  if (s.items) {
    const item = composed(s.items as Schema, `${at}[]`);
    return 'missing' in item ? item : { example: [item.example] };
  }
  const branches = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
  if (branches) {
    const tried = branches.filter((b) => b.type !== 'null').map((b, i) => composed(b, `${at}|${i}`));
    return tried.find((c) => 'example' in c) ?? { missing: tried.flatMap((c) => ('missing' in c ? c.missing : [])) };
  }
  return { missing: [at] };
}
/** The example of a parameter or a media type: its own, or its schema's (see `composed`). */
function exampleOf(media: Media | Parameter, at: string): unknown {
  if (media.example !== undefined) return media.example;
  const c = composed(media.schema, at);
  if ('missing' in c) throw new Error(`no example for ${c.missing.join(', ')}`);
  return c.example;
}

const zodErrors = (schema: z.ZodType | undefined, example: unknown): string[] => {
  const parsed = schema?.safeParse(example);
  return !parsed || parsed.success
    ? []
    : parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'} ${i.message}`);
};

/** A parameter as a reader sees it: one the operation refers to (`Api-Version`) is the component's. */
const parameterOf = (p: Parameter): Parameter =>
  p.$ref ? (doc.components.parameters?.[p.$ref.split('/').pop() as string] ?? p) : p;

const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, op]) => ({
    name: `${method.toUpperCase()} ${path}`,
    op: { ...op, parameters: op.parameters?.map(parameterOf) },
    route: ROUTE_DOCS.find((r) => r.path === path && r.method === method),
  })),
);

describe('the OpenAPI examples', () => {
  it.each(operations)('given $name, then each parameter has a valid example', ({ op, route }) => {
    const examples: Record<string, Record<string, unknown>> = {};
    const older: Parameter[] = [];
    for (const parameter of op.parameters ?? []) {
      const example = exampleOf(parameter, `${parameter.in}.${parameter.name}`);
      expect(documentSchemaErrors(parameter.schema, example)).toEqual([]);
      // A deprecated parameter is the older name of another, sent instead of it and never beside it.
      if (parameter.deprecated) older.push({ ...parameter, example });
      else (examples[parameter.in] ??= {})[parameter.name] = example;
    }
    // The query and path as the route parses them: a query arrives as text.
    const asText = (values: Record<string, unknown> = {}) =>
      Object.fromEntries(Object.entries(values).map(([k, v]) => [k, String(v)]));
    expect(zodErrors(route?.request?.query, asText(examples.query))).toEqual([]);
    expect(zodErrors(route?.request?.params, asText(examples.path))).toEqual([]);
    for (const { name, example } of older.filter((p) => p.in === 'query'))
      expect(zodErrors(route?.request?.query, asText({ [name]: example }))).toEqual([]);
  });

  it.each(operations.filter(({ op }) => op.requestBody))(
    'given $name, then its body has a valid example',
    ({ op, route }) => {
      for (const [mediaType, media] of Object.entries(op.requestBody?.content ?? {})) {
        const example = exampleOf(media, `body ${mediaType}`);
        expect(documentSchemaErrors(media.schema, example)).toEqual([]);
        if (mediaType === 'application/json') expect(zodErrors(route?.request?.body, example)).toEqual([]);
      }
    },
  );

  it.each(operations)('given $name, then its success answer has a valid example', ({ op, route }) => {
    const status = Object.keys(op.responses).find((s) => s.startsWith('2')) as string;
    const content = Object.entries(op.responses[status]?.content ?? {}).filter(([type]) => !NOT_JSON.includes(type));
    for (const [mediaType, media] of content) {
      const example = exampleOf(media, `${status} ${mediaType}`);
      expect(documentSchemaErrors(media.schema, example)).toEqual([]);
      const answer = route?.answers[Number(status)];
      // The route's zod schema is its JSON answer's; another media type (a CSV text) is checked above.
      if (answer && 'json' in answer && mediaType === 'application/json') {
        expect(zodErrors(answer.json, example)).toEqual([]);
      }
    }
  });

  it('given the problem schema, then its example is valid', () => {
    const problem = doc.components.schemas.Problem;
    expect(documentSchemaErrors(problem, exampleOf({ schema: problem }, 'Problem'))).toEqual([]);
  });

  it('given every parameter and every field of a request or a success answer, then each has a description', () => {
    expect(undescribed()).toEqual([]);
  });

  it('given every optional field of a request, then it has a default or says what its absence means', () => {
    expect(optionalWithoutDefault()).toEqual([]);
  });
});

/** The parameters and fields (by path) that say nothing about themselves, nor does the component they refer to. */
function undescribed(): string[] {
  const missing = new Set<string>();
  const walk = (schema: Schema | undefined, at: string, seen: Set<string>): void => {
    if (!schema) return;
    if (schema.$ref) {
      const name = schema.$ref.split('/').pop() as string;
      if (seen.has(name)) return;
      return walk(doc.components.schemas[name], `#${name}`, new Set([...seen, name]));
    }
    for (const [name, field] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
      if (!field.description && !resolved(field)?.description) missing.add(`${at}.${name}`);
      walk(field, `${at}.${name}`, seen);
    }
    if (schema.items) walk(schema.items as Schema, `${at}[]`, seen);
    for (const branch of (schema.anyOf ?? schema.oneOf ?? []) as Schema[]) walk(branch, at, seen);
  };
  for (const { name, op } of operations) {
    for (const p of op.parameters ?? []) {
      const described = (p as Parameter & { description?: string }).description ?? resolved(p.schema)?.description;
      if (!described) missing.add(`${name} parameter ${p.name}`);
    }
    for (const media of Object.values(op.requestBody?.content ?? {})) walk(media.schema, `${name} body`, new Set());
    for (const [status, answer] of Object.entries(op.responses)) {
      if (!status.startsWith('2')) continue;
      for (const media of Object.values(answer.content ?? {})) walk(media.schema, `${name} ${status}`, new Set());
    }
  }
  return [...missing];
}

/**
 * An optional field of a request (body or query) that gives no `default` must say what its absence means:
 * its description names a default or what `absent` does, or it is a filter (`Only ...`).
 */
function optionalWithoutDefault(): string[] {
  const says = (text: string | undefined) => /default|absent/i.test(text ?? '') || /^Only /.test(text ?? '');
  const silent: string[] = [];
  const walk = (schema: Schema | undefined, at: string): void => {
    const s = resolved(schema);
    if (!s) return;
    const required = new Set((s.required ?? []) as string[]);
    for (const [name, field] of Object.entries((s.properties ?? {}) as Record<string, Schema>)) {
      const own = resolved(field);
      const text = (field.description ?? own?.description) as string | undefined;
      if (!required.has(name) && field.default === undefined && own?.default === undefined && !says(text)) {
        silent.push(`${at}.${name}`);
      }
      walk(field, `${at}.${name}`);
    }
    if (s.items) walk(s.items as Schema, `${at}[]`);
    for (const branch of (s.anyOf ?? s.oneOf ?? []) as Schema[]) walk(branch, at);
  };
  for (const { name, op } of operations) {
    for (const p of (op.parameters ?? []) as (Parameter & { required?: boolean; description?: string })[]) {
      if (p.in === 'header' || p.required || p.schema?.default !== undefined) continue;
      if (!says(p.description ?? (resolved(p.schema)?.description as string | undefined))) {
        silent.push(`${name} parameter ${p.name}`);
      }
    }
    for (const media of Object.values(op.requestBody?.content ?? {})) walk(media.schema, `${name} body`);
  }
  return silent;
}

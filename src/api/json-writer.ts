import fastJsonStringify from 'fast-json-stringify';
import { z } from 'zod';

/** Writes one JSON answer of a declared schema. */
export type JsonWriter = (value: unknown) => string;

type JsonSchema = { [key: string]: unknown };

/**
 * A writer compiled from the answer's declared schema by fast-json-stringify: the list answer
 * (10 KB, 20 records) is written in half the time JSON.stringify takes, and it is the largest
 * single cost of a list request after the socket write. The compiled writer writes only the
 * declared fields, so an answer can never carry one its schema does not show.
 *
 * Only plain records compile: objects, arrays, strings, numbers, booleans, each possibly null.
 * A schema with a union, an open record (`z.record`) or an unknown value would make
 * fast-json-stringify validate every value to pick a branch, slower than JSON.stringify, so
 * those answers keep JSON.stringify. Validation keywords are dropped (the handlers' types and
 * the tests' schema checks hold them), and so is `required`: a field that is missing is left out,
 * as JSON.stringify leaves out `undefined`, instead of failing the answer.
 */
export function jsonWriterFor(schema: z.ZodType): JsonWriter {
  const plain = plainSchemaOf(z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' }) as JsonSchema);
  return plain === undefined ? JSON.stringify : (fastJsonStringify(plain as unknown as Parameters<typeof fastJsonStringify>[0]) as JsonWriter);
}

const PRIMITIVE = new Set(['string', 'integer', 'number', 'boolean']);

/** The schema with its `$ref`s inlined and only what fast-json-stringify writes by; undefined when it is not a plain record. */
export function plainSchemaOf(root: JsonSchema): JsonSchema | undefined {
  const defs = (root.$defs ?? {}) as Record<string, JsonSchema>;
  const seen = new Set<string>();
  const plain = (node: JsonSchema): JsonSchema | undefined => {
    if (typeof node.$ref === 'string') {
      const id = /^#\/\$defs\/(.+)$/.exec(node.$ref)?.[1];
      const target = id === undefined ? undefined : defs[id];
      // A recursive record would need its $ref kept: none is declared, so none compiles.
      if (id === undefined || target === undefined || seen.has(id)) return undefined;
      seen.add(id);
      const inlined = plain(target);
      seen.delete(id);
      return inlined;
    }
    if (Array.isArray(node.anyOf)) return nullable(node.anyOf as JsonSchema[]);
    return typed(node);
  };
  // `T | null` of a primitive T, as zod writes it for `.nullable()`.
  const nullable = (branches: JsonSchema[]): JsonSchema | undefined => {
    const [value, other] = branches;
    if (branches.length !== 2 || value === undefined || other?.type !== 'null') return undefined;
    const inner = plain(value);
    return inner !== undefined && typeof inner.type === 'string' && PRIMITIVE.has(inner.type) ? { type: [inner.type, 'null'] } : undefined;
  };
  const typed = (node: JsonSchema): JsonSchema | undefined => {
    if (node.type === 'null' || (typeof node.type === 'string' && PRIMITIVE.has(node.type))) return { type: node.type };
    // zod writes a nullable string or boolean as `type: [T, 'null']`.
    if (Array.isArray(node.type) && node.type.every((t) => t === 'null' || PRIMITIVE.has(t as string))) return { type: node.type };
    if (node.type === 'array') {
      const items = typeof node.items === 'object' && node.items !== null ? plain(node.items as JsonSchema) : undefined;
      return items === undefined ? undefined : { type: 'array', items };
    }
    if (node.type === 'object' && node.additionalProperties === false && typeof node.properties === 'object' && node.properties !== null) {
      const properties: Record<string, JsonSchema> = {};
      for (const [name, property] of Object.entries(node.properties as Record<string, JsonSchema>)) {
        const schema = plain(property);
        if (schema === undefined) return undefined;
        properties[name] = schema;
      }
      return { type: 'object', properties, additionalProperties: false };
    }
    return undefined;
  };
  return plain(root);
}

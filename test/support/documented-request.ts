import Ajv2020 from 'ajv/dist/2020';
import type { ValidateFunction } from 'ajv';
import { openApiDocument } from '../../src/app/route-groups';

/**
 * Values checked against the OpenAPI document's own schemas: its examples
 * (test/api/openapi-examples.unit.test.ts) and the JSON bodies the service accepted. The document
 * and the service must accept the same bodies, so a client (or a validating proxy) that follows the
 * document never refuses what the service takes: the test server runs `documentRefuses` on every
 * JSON body that got a 2xx, in every suite.
 */
type Doc = {
  paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: object }> } }>>;
  components?: object;
};

const doc = openApiDocument() as unknown as Doc;
// The document is OpenAPI 3.1, whose schemas are JSON Schema 2020-12. Not strict: an OpenAPI schema
// carries keywords JSON Schema does not define (`example`), and formats are documentation here.
const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
const compiled = new Map<string, ValidateFunction | null>();

/** A schema of the document made a validator: its `$ref`s resolve against the document's components. */
const validatorFor = (schema: object | undefined): ValidateFunction =>
  ajv.compile({ ...schema, components: doc.components });

const errorsOf = (validate: ValidateFunction, value: unknown): string[] =>
  validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? ''}`);

/** The errors of `value` against a schema of the document; [] when it fits. */
export function documentSchemaErrors(schema: object | undefined, value: unknown): string[] {
  return errorsOf(validatorFor(schema), value);
}

/** The document's path template matching `pathname` (`/api/apikey/{id}/rotate` for `/api/apikey/3/rotate`). */
function templateOf(pathname: string): string | undefined {
  const lower = pathname.toLowerCase().replace(/\/$/, '');
  return Object.keys(doc.paths).find((template) => {
    const pattern = new RegExp(`^${template.toLowerCase().replace(/\{[^}]+\}/g, '[^/]+')}$`);
    return pattern.test(lower);
  });
}

function bodyValidatorOf(method: string, template: string): ValidateFunction | null {
  const key = `${method} ${template}`;
  if (!compiled.has(key)) {
    const schema = doc.paths[template]?.[method]?.requestBody?.content?.['application/json']?.schema;
    compiled.set(key, schema ? validatorFor(schema) : null);
  }
  return compiled.get(key) ?? null;
}

/** Why the document refuses a body the service accepted; undefined when it accepts it (or documents no JSON body). */
export function documentRefuses(method: string, pathname: string, body: unknown): string | undefined {
  const template = templateOf(pathname);
  if (!template) return undefined;
  const validate = bodyValidatorOf(method.toLowerCase(), template);
  const errors = validate ? errorsOf(validate, body) : [];
  return errors.length === 0 ? undefined : errors.join('; ');
}

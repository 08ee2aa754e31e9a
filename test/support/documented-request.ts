import Ajv2020 from 'ajv/dist/2020';
import type { ValidateFunction } from 'ajv';
import { openApiDocument } from '../../src/app/route-groups';

/**
 * Checks a JSON request body the service accepted against the OpenAPI document's schema of that
 * operation's body: the document and the service must accept the same bodies, so a client (or a
 * validating proxy) that follows the document never refuses what the service takes. The test
 * server runs it on every JSON body that got a 2xx, in every suite.
 */
type Doc = {
  paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: object }> } }>>;
  components?: object;
};

const doc = openApiDocument() as unknown as Doc;
// OpenAPI 3.1 schemas are JSON Schema 2020-12; `example` and formats are documentation here.
const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
const compiled = new Map<string, ValidateFunction | null>();

/** The document's path template matching `pathname` (`/api/apikey/{id}/rotate` for `/api/apikey/3/rotate`). */
function templateOf(pathname: string): string | undefined {
  const lower = pathname.toLowerCase().replace(/\/$/, '');
  return Object.keys(doc.paths).find((template) => {
    const pattern = new RegExp(`^${template.toLowerCase().replace(/\{[^}]+\}/g, '[^/]+')}$`);
    return pattern.test(lower);
  });
}

function validatorOf(method: string, template: string): ValidateFunction | null {
  const key = `${method} ${template}`;
  if (!compiled.has(key)) {
    const schema = doc.paths[template]?.[method]?.requestBody?.content?.['application/json']?.schema;
    compiled.set(key, schema ? ajv.compile({ ...schema, components: doc.components }) : null);
  }
  return compiled.get(key) ?? null;
}

/** Why the document refuses a body the service accepted; undefined when it accepts it (or documents no JSON body). */
export function documentRefuses(method: string, pathname: string, body: unknown): string | undefined {
  const template = templateOf(pathname);
  if (!template) return undefined;
  const validate = validatorOf(method.toLowerCase(), template);
  if (!validate || validate(body)) return undefined;
  return (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? ''}`).join('; ');
}

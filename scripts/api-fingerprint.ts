/**
 * The fingerprint of the API's answers: the sha256 of the canonical JSON of every operation's
 * responses (status, headers, media types, schemas) with the components they reach, wordings
 * left out. CHANGELOG.md's newest entry records it (`<!-- api-fingerprint: <hex> -->`) and
 * test/api/changelog.http.test.ts fails when the served document no longer matches it, so an
 * answer cannot change without an entry saying so. `npm run changelog:fingerprint` prints it.
 */
import { createHash } from 'node:crypto';
import { openApiDocument } from '../src/app/route-groups';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Words for readers, not the contract: a reworded description does not change an answer. */
const WORDING = new Set(['description', 'summary', 'title', 'example', 'examples']);
/** Objects whose keys are names (of properties), where a key called `description` is a field. */
const NAMED = new Set(['properties', 'patternProperties', '$defs']);

/** The value with its keys sorted and its wording dropped, so that only what a client parses counts. */
function canonical(value: Json, names = false): Json {
  if (Array.isArray(value)) return value.map((item) => canonical(item));
  if (value === null || typeof value !== 'object') return value;
  const out: { [key: string]: Json } = {};
  for (const key of Object.keys(value).sort()) {
    if (!names && WORDING.has(key)) continue;
    out[key] = canonical(value[key] as Json, NAMED.has(key));
  }
  return out;
}

/** `#/components/<kind>/<name>` of every `$ref` in `value`. */
function refsIn(value: Json, out: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((item) => refsIn(item, out));
  else if (value !== null && typeof value === 'object')
    for (const [key, v] of Object.entries(value)) {
      if (key === '$ref' && typeof v === 'string') out.push(v);
      else refsIn(v, out);
    }
  return out;
}

export function apiFingerprint(document: unknown): string {
  const doc = document as {
    paths: Record<string, Record<string, { responses?: Json }>>;
    components?: Record<string, Record<string, Json>>;
  };
  const responses: { [operation: string]: Json } = {};
  for (const [path, item] of Object.entries(doc.paths))
    for (const [method, operation] of Object.entries(item))
      responses[`${method.toUpperCase()} ${path}`] = operation.responses ?? null;
  // The components the answers reach, followed through their own references.
  const reached: { [ref: string]: Json } = {};
  const pending = refsIn(responses);
  for (let ref = pending.pop(); ref !== undefined; ref = pending.pop()) {
    if (ref in reached) continue;
    const [, , kind, name] = ref.split('/');
    const component = (kind && name && doc.components?.[kind]?.[name]) ?? null;
    reached[ref] = component;
    refsIn(component, pending);
  }
  const text = JSON.stringify(canonical({ responses, components: reached }));
  return createHash('sha256').update(text).digest('hex');
}

if (require.main === module) process.stdout.write(`${apiFingerprint(openApiDocument())}\n`);

import fs from 'node:fs';
import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { packageFile } from '../config/package-file';
import { API_VERSION, API_VERSION_HEADER, SUPPORTED_API_VERSIONS } from './api-version';
import { registerComponents, registerRoute } from './openapi-operations';
import { PROBLEM_TYPES } from './problem';
import type { RouteDoc } from './route-declaration';

/**
 * The OpenAPI 3.1 document of every route the app serves, built from the routes' own declarations
 * (src/api/route-declaration.ts) in the order of the route-group list (src/app/route-groups.ts):
 * the same zod schemas validate the requests and describe the responses. Served at
 * GET /openapi.json; test/api/openapi.http.test.ts fails when a served route is missing here.
 */

function buildRegistry(routes: readonly RouteDoc[]): OpenAPIRegistry {
  const registry = new OpenAPIRegistry();
  registerComponents(registry);
  for (const route of routes) registerRoute(registry, route);
  return registry;
}

type PackageInfo = { name?: string; version?: string; description?: string; license?: string };

const readPackage = (file: string): PackageInfo => JSON.parse(fs.readFileSync(file, 'utf8')) as PackageInfo;

/** Every problem `type` the service answers, for the document's description. */
const problemCatalogue = (): string =>
  [
    '| status | type | title |',
    '|---|---|---|',
    ...Object.values(PROBLEM_TYPES).map((p) => `| ${p.status} | \`${p.type}\` | ${p.title} |`),
  ].join('\n');

const LICENSE_URLS: Record<string, string> = {
  // npm's meaning of UNLICENSED: not licensed for use by others.
  UNLICENSED: 'https://docs.npmjs.com/cli/v10/configuring-npm/package-json#license',
};

/** The operations whose JSON body is closed (`additionalProperties: false`) and those whose body is open. */
type BodyKinds = { readonly closed: readonly string[]; readonly open: readonly string[] };

type SchemaObject = { $ref?: string; additionalProperties?: unknown };
type DocumentParts = {
  paths?: Record<string, Record<string, { operationId?: string; requestBody?: unknown }>>;
  components?: { schemas?: Record<string, SchemaObject> };
};

/** Which JSON bodies are closed and which open, read from the generated document itself, so the text cannot drift. */
function bodyKindsOf(document: DocumentParts): BodyKinds {
  const closed: string[] = [];
  const open: string[] = [];
  for (const item of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(item)) {
      const body = operation.requestBody as { content?: Record<string, { schema?: SchemaObject }> } | undefined;
      let schema = body?.content?.['application/json']?.schema;
      if (!schema || !operation.operationId) continue;
      if (schema.$ref) schema = document.components?.schemas?.[schema.$ref.split('/').pop() as string];
      (schema?.additionalProperties === false ? closed : open).push(operation.operationId);
    }
  }
  return { closed, open };
}

const bodiesParagraph = ({ closed, open }: BodyKinds): string =>
  'Request bodies: `application/json` (the upload: `multipart/form-data`), ' +
  'anything else is a 415. The bodies of ' +
  closed.join(', ') +
  ' are closed (`additionalProperties: false`): an unknown field is a 400 naming it, except ' +
  "that saveProjectResource ignores the record's read-only fields, so a client may send back " +
  'the record it was given. ' +
  (open.length > 0 ? `The other JSON bodies (${open.join(', ')}) are open: they ignore unknown fields.` : '');

/** title and license of this service's package.json (not of a dependency's on the way up); the API's version. */
function packageInfo(bodies: BodyKinds) {
  const file = packageFile('package.json', (f) => Boolean(readPackage(f).name && readPackage(f).version));
  if (!file) throw new Error('package.json not found');
  const pkg = readPackage(file);
  const license = pkg.license ?? 'UNLICENSED';
  return {
    title: pkg.name ?? '',
    // The API's version, not the package's: the date a client names in `Api-Version`.
    version: API_VERSION,
    description: [
      pkg.description ?? '',
      `API version ${API_VERSION}: every answer carries \`${API_VERSION_HEADER}: ${API_VERSION}\`. A request may ` +
        `name the version it was written for in \`${API_VERSION_HEADER}\` (supported: ` +
        `${SUPPORTED_API_VERSIONS.join(', ')}); another one is a 400 naming the header, and a request that ` +
        'names none is served as the current version. CHANGELOG.md lists what each version changed.',
      'Credentials: an interactive session (`Authorization: Bearer <token>`) or an API ' +
        'key (`X-API-Key: <keyId>.<secret>`), never both. ' +
        'API-key requests carry the `RateLimit-*` headers and answer 429 with `Retry-After` over the limit.',
      bodiesParagraph(bodies),
      'A known path called with another method is a 405 with `Allow`. Browser origins ' +
        'listed in CORS_ORIGINS may call the API; their preflights are answered before ' +
        'authentication.',
      'Every error is an RFC 9457 problem (`application/problem+json`) whose stable `type` is one of:',
      problemCatalogue(),
    ].join('\n\n'),
    license: LICENSE_URLS[license]
      ? { name: license, url: LICENSE_URLS[license] }
      : { name: license, identifier: license },
  };
}

export type OpenApiDocument = ReturnType<OpenApiGeneratorV31['generateDocument']>;

const generated = new WeakMap<readonly RouteDoc[], OpenApiDocument>();

/** The OpenAPI 3.1 document of `routes`, generated once per process. */
export function openApiDocumentOf(routes: readonly RouteDoc[]): OpenApiDocument {
  const known = generated.get(routes);
  if (known) return known;
  const document = new OpenApiGeneratorV31(buildRegistry(routes).definitions).generateDocument({
    openapi: '3.1.0',
    info: packageInfo({ closed: [], open: [] }),
    // Relative: the document describes the service that serves it, wherever that is.
    servers: [{ url: '/', description: 'This service' }],
    tags: [
      {
        name: 'resources',
        description:
          'Project resources: files and links attached to a project, in a community ' +
          'project, a project or a paragraph scope',
      },
      {
        name: 'privacy',
        description: 'Privacy levels, granted circles and cross-community sharing, each share with its own level',
      },
      { name: 'files', description: 'Upload and protected download of resource files' },
      {
        name: 'applications',
        description: 'The paginated example endpoint: `skip`/`take` in the body, `{count, list}` in the answer',
      },
      { name: 'user', description: 'The current user' },
      { name: 'audit', description: 'The audit trail, for users with the platform role auditor (either credential)' },
      {
        name: 'apikeys',
        description: 'API keys for machine clients: creation, listing, revocation, rotation with a grace',
      },
      { name: 'internal', description: 'Directory feed and operator endpoints, X-Directory-Token' },
      { name: 'health', description: 'Public: probes, this document and the problem type pages' },
    ],
  });
  // The description says which bodies are closed: read from the paths just generated.
  document.info = packageInfo(bodyKindsOf(document as DocumentParts));
  generated.set(routes, document);
  return document;
}

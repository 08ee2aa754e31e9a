/**
 * Builds the service once per cache or shortcut with that piece switched off (`npx tsx
 * bench/machinery-off.ts [name ...]`), each into `dist-off-<name>`, for `bench/ab-pairs.ts` to
 * serve against the build as it is (`AB_A=dist AB_B=dist-off-<name>`): the measurements of
 * docs/architecture.md "Machinery kept, and what it earns". Each switch is one edit of the source,
 * made for the build and undone after it; an edit that no longer finds its text stops the script,
 * so a switch cannot silently measure nothing.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.join(__dirname, '..');

type Switch = { readonly file: string; readonly find: string; readonly replace: string };

const SWITCHES: Record<string, readonly Switch[]> = {
  // The middleware as a router of layers, as `app.use(a, b, c)` makes them.
  dispatch: [
    {
      file: 'src/api/middleware/in-sequence.ts',
      find: 'export function inSequence(...handlers: readonly RequestHandler[]): RequestHandler {',
      replace:
        "import { Router } from 'express';\nexport function inSequence(...handlers: readonly RequestHandler[]): RequestHandler {\n" +
        '  if (handlers.length > 0) return Router().use(...handlers);',
    },
    {
      file: 'src/api/middleware/mounted-at.ts',
      find: 'export function mountedAt(prefix: string, handler: RequestHandler): RequestHandler {',
      replace:
        "import { Router } from 'express';\nexport function mountedAt(prefix: string, handler: RequestHandler): RequestHandler {\n" +
        '  if (prefix) return Router().use(prefix, handler);',
    },
    { file: 'src/api/exact-path-routes.ts', find: "if (path.includes(':')) {", replace: 'if (path.length > 0) {' },
  ],
  token: [
    {
      file: 'src/infra/auth/verified-token-cache.ts',
      find: '    const now = this.clock().getTime();\n    const hit',
      replace:
        '    if (token.length > 0) return this.inner.verify(token);\n    const now = this.clock().getTime();\n    const hit',
    },
  ],
  hash: [{ file: 'src/audit/log-hash.ts', find: 'if (most > SCRATCH_BYTES) {', replace: 'if (most > 0) {' }],
  directory: [
    {
      file: 'src/directory/directory-reader.ts',
      find: '    const version = this.version();\n    if (version === null) return read',
      replace: '    const version = null as string | null;\n    if (version === null) return read',
    },
  ],
  texts: [
    {
      file: 'src/resources/resource-queries.ts',
      find: '  const version = directory.version();\n  const texts',
      replace: '  const version = null as string | null;\n  const texts',
    },
  ],
  'kept-docs': [
    {
      file: 'src/resources/view-index.ts',
      find: '  keep(view: IndexedView, id: number, doc: ResourceViewRecord): void {\n',
      replace: '  keep(view: IndexedView, id: number, doc: ResourceViewRecord): void {\n    if (id > 0) return;\n',
    },
  ],
  'key-checks': [
    {
      file: 'src/api-keys/api-key-queries.ts',
      find: '    if (version === null) return read(keyId);',
      replace: '    if (version === null || keyId) return read(keyId);',
    },
  ],
};

function build(name: string): void {
  const originals = new Map<string, string>();
  try {
    for (const { file, find, replace } of SWITCHES[name] ?? []) {
      const full = path.join(ROOT, file);
      const text = originals.get(full) ?? fs.readFileSync(full, 'utf8');
      originals.set(full, text);
      const current = fs.readFileSync(full, 'utf8');
      const count = current.split(find).length - 1;
      if (count === 0) throw new Error(`${name}: ${file} no longer holds ${JSON.stringify(find)}`);
      fs.writeFileSync(full, current.split(find).join(replace));
    }
    const outDir = `dist-off-${name}`;
    execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json', '--outDir', outDir], { cwd: ROOT, stdio: 'inherit' });
    console.log(`built ${outDir}`);
  } finally {
    for (const [full, text] of originals) fs.writeFileSync(full, text);
  }
}

const wanted = process.argv.slice(2);
for (const name of wanted.length > 0 ? wanted : Object.keys(SWITCHES)) {
  if (!SWITCHES[name]) throw new Error(`no switch ${name}: ${Object.keys(SWITCHES).join(', ')}`);
  build(name);
}

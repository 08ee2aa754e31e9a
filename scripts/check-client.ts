/**
 * Drift check of the typed client: regenerates the OpenAPI document and schema.d.ts into a
 * temporary directory and compares them with the committed ones in clients/typescript.
 * Fails (exit 1) when they differ: run `npm run client:generate` and commit the result.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeOpenApi } from './write-openapi';

const root = path.join(__dirname, '..');
const client = path.join(root, 'clients', 'typescript');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'client-check-'));
try {
  writeOpenApi(path.join(tmp, 'openapi.json'));
  execFileSync(
    path.join(root, 'node_modules', '.bin', 'openapi-typescript'),
    [path.join(tmp, 'openapi.json'), '--output', path.join(tmp, 'schema.d.ts')],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const drifted = ['openapi.json', 'schema.d.ts'].filter((file) => {
    const committed = path.join(client, file);
    return (
      !fs.existsSync(committed) || fs.readFileSync(committed, 'utf8') !== fs.readFileSync(path.join(tmp, file), 'utf8')
    );
  });
  if (drifted.length > 0) {
    console.error(`clients/typescript is out of date (${drifted.join(', ')}): run npm run client:generate and commit`);
    process.exitCode = 1;
  } else {
    process.stdout.write('clients/typescript matches the OpenAPI document\n');
  }
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}

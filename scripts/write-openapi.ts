/**
 * Writes the service's OpenAPI document (the one GET /openapi.json serves) to a file, for the
 * linter and the client generator: `tsx scripts/write-openapi.ts [out.json]`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { openApiDocument } from '../src/app/route-groups';

export const DEFAULT_OUT = path.join(__dirname, '..', 'clients', 'typescript', 'openapi.json');

export function writeOpenApi(out: string): void {
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, `${JSON.stringify(openApiDocument(), null, 2)}\n`);
}

if (require.main === module) writeOpenApi(path.resolve(process.argv[2] ?? DEFAULT_OUT));

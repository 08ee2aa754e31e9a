import fs from 'node:fs';
import { dropSchemasOf } from './postgres';

/** Drops the schemas the run's servers used on PostgreSQL (test/support/backend.ts), then the registry. */
export default async function globalTeardown(): Promise<void> {
  const registry = process.env.TEST_POSTGRES_REGISTRY;
  const url = process.env.TEST_POSTGRES_URL;
  if (!registry || !url || !fs.existsSync(registry)) return;
  const schemas = [...new Set(fs.readFileSync(registry, 'utf8').split('\n').filter(Boolean))];
  for (const schema of schemas) await dropSchemasOf(url, schema);
  fs.rmSync(registry, { force: true });
}

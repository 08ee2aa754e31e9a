import fs from 'node:fs';
import { freshSchema } from './postgres';

/*
 * The backend the suites run on: the embedded default, or, in the jest project `postgres`
 * (TEST_BACKEND=postgres), the PostgreSQL server of the suites. Every process a test starts on one
 * DATA_DIR (a test server, a spawned service, the CLI) gets the same schema, so a second server or
 * a CLI rebuild on that DATA_DIR meets the same stores, as on the embedded default. The schemas are
 * listed in the run's registry and dropped when the run ends (test/support/global-teardown.ts):
 * a process may still use one after its test file's own hooks have run.
 */
const schemas = new Map<string, string>();

export function backendEnv(env: Record<string, string | undefined>): Record<string, string> {
  if (process.env.TEST_BACKEND !== 'postgres' || env.MONGODB_URL || env.EVENTSTORE_URL || env.POSTGRES_URL) return {};
  const url = process.env.TEST_POSTGRES_URL;
  if (!url) throw new Error(`TEST_BACKEND=postgres, but ${process.env.TEST_POSTGRES_SKIP ?? 'no PostgreSQL answers'}`);
  const key = env.DATA_DIR;
  let schema = key === undefined ? undefined : schemas.get(key);
  if (schema === undefined) {
    schema = freshSchema('srv');
    if (key !== undefined) schemas.set(key, schema);
    const registry = process.env.TEST_POSTGRES_REGISTRY;
    if (registry) fs.appendFileSync(registry, `${schema}\n`);
  }
  // Small pools: the suites run several servers at once against one server's 100 connections.
  return { POSTGRES_URL: url, POSTGRES_SCHEMA: schema, POSTGRES_POOL_SIZE: '4' };
}

/**
 * `it` for a test that looks inside the embedded store (its files, its SQLite connections), or
 * `it.skip` with the reason printed in the `postgres` project, where there is no such store.
 */
export function embeddedOnly(reason: string): jest.It {
  if (process.env.TEST_BACKEND !== 'postgres') return it;
  process.stderr.write(`\nSKIPPED on PostgreSQL: ${reason}\n`);
  return it.skip;
}

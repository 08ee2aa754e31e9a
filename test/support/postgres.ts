import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * Schemas of their own for the PostgreSQL suites (test/support/global-setup.ts finds the server):
 * each test, or each file, works in a fresh schema, so no two share state, and drops it after.
 */
export function freshSchema(purpose: string): string {
  return `t_${purpose}_${randomBytes(6).toString('hex')}`;
}

/** Runs `work` on a connection of its own to the server (outside any store), then closes it. */
export async function onServer<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export async function dropSchema(url: string, schema: string): Promise<void> {
  await onServer(url, (client) => client.query(`drop schema if exists "${schema}" cascade`));
}

/** Drops `base` and every schema named after it (a service's `<base>_read`, `<base>_read_g1`, `<base>_files`). */
export async function dropSchemasOf(url: string, base: string): Promise<void> {
  await onServer(url, async (client) => {
    const { rows } = await client.query<{ nspname: string }>(
      "select nspname from pg_namespace where nspname = $1 or nspname like $1 || '\\_%'",
      [base],
    );
    for (const { nspname } of rows) await client.query(`drop schema if exists "${nspname}" cascade`);
  });
}

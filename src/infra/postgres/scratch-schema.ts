import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** Two keys of pg_advisory_lock: this constant for a scratch schema in use, and the schema's hash. */
const SCRATCH_LOCK_CLASS = 0x70_72_73_63; // 'prsc'

/**
 * A schema of its own for read models projected afresh (`resources-cli digest`), named after
 * `base`. The connection that claims it holds a session lock on it for as long as it is used,
 * so a process killed mid-way leaves a schema whose lock the server freed with its connection:
 * the next claim drops every such schema of `base`, and never one that another claim still holds.
 * `release` drops the schema and ends the connection.
 */
export async function claimScratchSchema(
  connectionString: string,
  base: string,
): Promise<{ schema: string; release: () => Promise<void> }> {
  const schema = `${base}_scratch_${randomBytes(3).toString('hex')}`;
  const holder = new pg.Client({ connectionString });
  // A cut connection is seen by the next query; without a listener its 'error' would end the process.
  holder.on('error', () => undefined);
  await holder.connect();
  try {
    await holder.query('select pg_advisory_lock($1, hashtext($2))', [SCRATCH_LOCK_CLASS, schema]);
    await dropAbandoned(holder, base, schema);
  } catch (error) {
    await holder.end().catch(() => undefined);
    throw error;
  }
  return {
    schema,
    release: async () => {
      try {
        await holder.query(`drop schema if exists "${schema}" cascade`);
      } finally {
        await holder.end().catch(() => undefined);
      }
    },
  };
}

/** The scratch schemas of `base` no connection holds: left by a claim whose process died. */
async function dropAbandoned(holder: pg.Client, base: string, own: string): Promise<void> {
  const { rows } = await holder.query<{ nspname: string }>(
    // `base` is a schema name the stores take (letters, digits, underscores): nothing to escape.
    'select nspname from pg_namespace where nspname ~ $1',
    [`^${base}_scratch_[0-9a-f]{6}$`],
  );
  for (const { nspname } of rows) {
    if (nspname === own) continue;
    const { rows: taken } = await holder.query<{ free: boolean }>(
      'select pg_try_advisory_lock($1, hashtext($2)) as free',
      [SCRATCH_LOCK_CLASS, nspname],
    );
    if (!taken[0]?.free) continue;
    try {
      await holder.query(`drop schema if exists "${nspname}" cascade`);
    } finally {
      await holder.query('select pg_advisory_unlock($1, hashtext($2))', [SCRATCH_LOCK_CLASS, nspname]);
    }
  }
}

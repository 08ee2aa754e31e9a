/**
 * `resources-cli digest` on PostgreSQL projects the log into a schema of its own and drops it at
 * the end. A digest killed on the way cannot drop it: the next digest does, and never the schema
 * of a digest still running (here one held stopped with SIGSTOP, its connection open).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { backendEnv } from '../support/backend';
import { describeExternal, externalTarget } from '../support/external';
import { dropSchemasOf, freshSchema, onServer } from '../support/postgres';
import { cli, root, waitFor } from '../support/service-process';

const postgres = externalTarget('postgres');

describeExternal('the scratch schema of a digest on PostgreSQL', postgres, () => {
  jest.setTimeout(90_000);
  const url = postgres.kind === 'url' ? postgres.url : '';
  const schema = freshSchema('digest_scratch');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'prs-pg-digest-'));
  const env = {
    POSTGRES_URL: url,
    POSTGRES_SCHEMA: schema,
    DATA_DIR: dataDir,
    AUTH_JWT_SECRET: 'digest-scratch-test-secret-'.padEnd(48, 'x'),
    DIRECTORY_SYNC_TOKEN: 'digest-scratch-directory-token-'.padEnd(48, 'y'),
    POSTGRES_POOL_SIZE: '2',
  };
  const children: ChildProcess[] = [];
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    if (url) await dropSchemasOf(url, schema);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const scratchSchemas = () =>
    onServer(url, async (client) =>
      (
        await client.query<{ nspname: string }>(
          "select nspname from pg_namespace where nspname like $1 || '\\_scratch\\_%' order by nspname",
          [schema],
        )
      ).rows.map((row) => row.nspname),
    );

  /** A digest as one node process (no wrapper), so that a signal reaches it; once its scratch schema exists. */
  const digestUnderWay = async (before: readonly string[]) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'digest'], {
      cwd: root,
      env: { ...process.env, ...backendEnv(env), ...env },
      stdio: 'ignore',
    });
    children.push(child);
    const own = await waitFor(async () => {
      const found = (await scratchSchemas()).filter((name) => !before.includes(name));
      return found.length === 1 ? found[0] : undefined;
    }, 'the digest to create its scratch schema');
    return { child, own };
  };

  const killed = (child: ChildProcess, signal: NodeJS.Signals) =>
    new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill(signal);
    });

  it('a digest drops the scratch schemas of digests that died, and keeps those of digests still running', async () => {
    // Given a log on PostgreSQL with the demo directory in it
    await cli(env, 'seed');
    const full = JSON.parse(await cli(env, 'digest')) as { digest: string };
    expect(await scratchSchemas()).toEqual([]);

    // When a digest is killed once its scratch schema exists, that schema stays behind
    const dead = await digestUnderWay([]);
    await killed(dead.child, 'SIGKILL');
    expect(await scratchSchemas()).toEqual([dead.own]);

    // Then the next digest drops it as it starts
    const paused = await digestUnderWay([dead.own]);
    paused.child.kill('SIGSTOP');
    expect(await scratchSchemas()).toEqual([paused.own]);

    // And a digest meanwhile (that one stopped, alive, its connection open) answers as before and leaves its schema
    expect((JSON.parse(await cli(env, 'digest')) as { digest: string }).digest).toBe(full.digest);
    expect(await scratchSchemas()).toEqual([paused.own]);

    // And once that one is killed too, the next digest drops its schema as well
    paused.child.kill('SIGKILL');
    await new Promise<void>((resolve) => {
      if (paused.child.exitCode !== null || paused.child.signalCode !== null) resolve();
      else paused.child.once('exit', () => resolve());
    });
    // (its session ends once the server sees the connection closed, and with it the lock it held)
    await waitFor(
      async () =>
        (
          await onServer(url, (client) =>
            client.query('select 1 from pg_stat_activity where application_name = $1', [
              `prs-cli-digest-${paused.child.pid}`,
            ]),
          )
        ).rowCount === 0 || undefined,
      "the paused digest's sessions to end",
    );
    await cli(env, 'digest');
    expect(await scratchSchemas()).toEqual([]);
  });
});

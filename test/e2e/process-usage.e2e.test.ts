/**
 * What an operator meets at the command line: a port in use ends the server with exit code 1
 * naming PORT, the CLI names an unknown command and exits 2 on usage errors, dev-token warns for
 * a user the directory lacks, and rebuild reports progress lines up to 100% when stderr is not a
 * terminal.
 */
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { describeExternal, externalTarget } from '../support/external';
import { root, startServiceProcess } from '../support/service-process';

const run = promisify(execFile);
const tsx = path.join(root, 'node_modules', '.bin', 'tsx');

/** The CLI's exit code, stdout and stderr (stderr is a pipe here, not a terminal). */
async function cli(env: Record<string, string>, ...args: string[]) {
  try {
    const { stdout, stderr } = await run(tsx, ['src/cli/main.ts', ...args], {
      cwd: root,
      env: { ...process.env, LOG_LEVEL: 'silent', ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** The server started with `env`, run until it stops by itself: its exit code and stderr. */
async function serverThatStops(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'silent', NODE_ENV: 'development', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, stderr };
}

describe('the processes at the command line', () => {
  jest.setTimeout(120_000);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'prs-usage-'));
  const env = { DATA_DIR: dataDir };
  // A secret given as configuration: dev-token needs no server to have started in DATA_DIR.
  const withSecret = { ...env, AUTH_JWT_SECRET: randomBytes(32).toString('base64url') };

  it('given the port taken, when the server starts, then it exits 1 naming PORT', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as net.AddressInfo).port;
    try {
      const { code, stderr } = await serverThatStops({ ...env, PORT: String(port) });

      expect(code).toBe(1);
      expect(stderr).toContain('PORT');
    } finally {
      taken.close();
    }
  });

  it('given a PostgreSQL that does not answer, when the server starts, then it exits 1 naming the stores it was given, and no password', async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const { code, stderr } = await serverThatStops({
      ...env,
      PORT: '0',
      POSTGRES_URL: `postgresql://svc:s3cr3t-pw@127.0.0.1:${port}/resources?password=also-s3cr3t`,
      POSTGRES_SCHEMA: 'usage_closed',
    });

    expect(code).toBe(1);
    expect(stderr).toContain('failed to start: connect ECONNREFUSED');
    expect(stderr).toContain(
      `the stores it was given: the event log: PostgreSQL postgresql://127.0.0.1:${port}/resources, schema usage_closed`,
    );
    expect(stderr).not.toMatch(/s3cr3t|svc:/);
  });

  it('given an unknown command, then the CLI names it and exits 2', async () => {
    const result = await cli(env, 'rebuld');

    expect(result.code).toBe(2);
    expect(result.stderr).toContain("'rebuld'");
  });

  it('given no command, then the CLI says so, prints its usage on stderr and exits 2', async () => {
    const result = await cli(env);

    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('usage: npm run cli -- <command>');
  });

  it.each(['help', '--help'])('given %s, then the usage goes to stdout and the CLI exits 0', async (asked) => {
    const result = await cli(env, asked);

    expect(result.code).toBe(0);
    expect(result.stdout).toContain('usage: npm run cli -- <command>');
  });

  it('given an invalid configuration, then the CLI names the variable and exits 2, as the server does', async () => {
    const result = await cli({ ...env, POSTGRES_SCHEMA: 'Not-A-Schema' }, 'seed');

    expect(result.code).toBe(2);
    expect(result.stderr).toContain('POSTGRES_SCHEMA');
  });

  it('given production, then seed refuses to load the demo directory (exit 2) and writes nothing', async () => {
    const production = fs.mkdtempSync(path.join(os.tmpdir(), 'prs-usage-production-'));
    const secret = () => randomBytes(32).toString('base64url');

    const result = await cli(
      { DATA_DIR: production, NODE_ENV: 'production', AUTH_JWT_SECRET: secret(), DIRECTORY_SYNC_TOKEN: secret() },
      'seed',
    );

    expect(result.code).toBe(2);
    expect(result.stderr).toContain('seed is not available in production');
    expect(fs.readdirSync(production)).toEqual([]);
  });

  it.each([['audit', 'verify'], ['audit', 'events'], ['digest'], ['rebuild'], ['erase-person', '3']])(
    'given a DATA_DIR that holds no log (a mistyped one), then %s refuses naming it (exit 2) and makes no log',
    async (...command) => {
      const mistyped = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'prs-usage-nolog-')), 'data');

      const result = await cli({ DATA_DIR: mistyped }, ...command);

      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`no event log at ${path.join(mistyped, 'events.sqlite')}`);
      expect(fs.existsSync(path.join(mistyped, 'events.sqlite'))).toBe(false);
    },
  );

  it("given a line the CLI's log writes, then it goes to stderr: stdout keeps the command's answer alone", async () => {
    const { stdout, stderr } = await run(
      tsx,
      ['-e', "require('./src/cli/cli-logger').cliLogger().error('the log line'); console.log('{\"answer\":1}')"],
      { cwd: root },
    );

    expect(stdout).toBe('{"answer":1}\n');
    expect(stderr).toContain('the log line');
  });

  it.each([
    ['a negative lifetime', ['--ttl', '-100']],
    ['a lifetime over 7 days', ['--ttl', '604801']],
    ['a lifetime that is no number', ['--ttl', 'abc']],
    ['an impersonator that is no user id', ['--impersonator', 'abc']],
    ['an impersonation over 1 hour', ['--impersonator', '2', '--ttl', '3601']],
  ])('given %s, then dev-token mints nothing the service would refuse: exit 2', async (_what, options) => {
    const result = await cli(withSecret, 'dev-token', '--user', '1', ...options);

    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
  });

  it('given an unknown option, then the CLI exits 2', async () => {
    const result = await cli(env, 'dev-token', '--usr', '1');

    expect(result.code).toBe(2);
  });

  it('given a DATA_DIR the server never started in, then dev-token names it, exits 1 and makes no secret', async () => {
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'prs-usage-other-'));

    const result = await cli({ DATA_DIR: elsewhere }, 'dev-token', '--user', '1');

    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(elsewhere);
    expect(fs.readdirSync(elsewhere)).toEqual([]);
  });

  it("given the server's secret, then dev-token signs with it: the server accepts the token", async () => {
    // What the server made in its DATA_DIR on first start is what dev-token must sign with.
    expect((await cli(env, 'seed')).code).toBe(0);
    const server = await startServiceProcess(env);
    try {
      const result = await cli(env, 'dev-token', '--user', '1');
      expect(result.code).toBe(0);

      const answer = await fetch(`${server.url}/api/user/getcurrent`, {
        headers: { authorization: `Bearer ${result.stdout.trim()}` },
      });
      expect(answer.status).toBe(200);
    } finally {
      await server.stop();
    }
  });

  it('given a user the directory lacks, then dev-token still prints a token and warns on stderr', async () => {
    const result = await cli(withSecret, 'dev-token', '--user', '999');

    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(result.stderr).toContain('999');
    expect(result.stderr).toContain(`the directory of the embedded store in ${path.resolve(dataDir)}`);
  });

  it('given a seeded user, then dev-token does not warn', async () => {
    const seeded = await cli(env, 'seed');
    expect(seeded.code).toBe(0);
    expect(seeded.stdout).toMatch(
      new RegExp(
        `^imported \\d+ directory events \\(position \\d+\\) into the embedded store in ${path.resolve(dataDir)}$`,
        'm',
      ),
    );

    const result = await cli(withSecret, 'dev-token', '--user', '1');

    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
  });

  it('given stderr is not a terminal, when rebuild runs, then it prints progress lines ending at 100%', async () => {
    expect((await cli(env, 'seed')).code).toBe(0);

    const result = await cli(env, 'rebuild');

    expect(result.code).toBe(0);
    const lines = result.stderr.split('\n').filter((l) => l.startsWith('rebuilding:'));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.at(-1)).toMatch(/^rebuilding: 100%/);
  });
});

const postgres = externalTarget('postgres');
describeExternal('the CLI on a PostgreSQL schema that holds no log', postgres, () => {
  const env = { DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'prs-usage-pg-')) };

  it('given a database in another encoding than UTF8, when the server starts, then it exits 1 naming it and creates no schema there', async () => {
    const url = postgres.kind === 'url' ? postgres.url : '';
    const database = `usage_ascii_${randomBytes(3).toString('hex')}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query(
        `create database ${database} encoding 'SQL_ASCII' template template0 lc_collate 'C' lc_ctype 'C'`,
      );
      const other = new URL(url);
      other.pathname = `/${database}`;

      const { code, stderr } = await serverThatStops({
        ...env,
        PORT: '0',
        POSTGRES_URL: other.toString(),
        POSTGRES_SCHEMA: 'usage_ascii',
      });

      expect(code).toBe(1);
      expect(stderr).toContain('the event log needs UTF8');
      const inside = new pg.Client({ connectionString: other.toString() });
      await inside.connect();
      try {
        const { rows } = await inside.query("select nspname from pg_namespace where nspname like 'usage\\_ascii%'");
        expect(rows).toEqual([]);
      } finally {
        await inside.end();
      }
    } finally {
      await admin.query(`drop database if exists ${database} with (force)`);
      await admin.end();
    }
  });

  it('given a PostgreSQL schema that holds no log, then audit verify refuses naming it (exit 2) and creates no schema', async () => {
    const url = postgres.kind === 'url' ? postgres.url : '';
    const schema = `usage_nolog_${randomBytes(3).toString('hex')}`;

    const result = await cli({ ...env, POSTGRES_URL: url, POSTGRES_SCHEMA: schema }, 'audit', 'verify');

    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`no event log at PostgreSQL schema ${schema}`);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rowCount } = await client.query('select 1 from information_schema.schemata where schema_name = $1', [
        schema,
      ]);
      expect(rowCount).toBe(0);
    } finally {
      await client.end();
    }
  });
});

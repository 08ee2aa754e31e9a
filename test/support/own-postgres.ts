/**
 * A PostgreSQL cluster of the test's own, for tests that stop, start and cut it: the suites'
 * shared server must never be the one killed. `initdb` into a temporary directory, a free port,
 * trust for local connections, `pg_ctl -w start`; stopped and started again on the same data.
 *
 * initdb and pg_ctl refuse to run as root: as root they run as `postgres`, or `nobody` where the
 * machine has no such user (a container's server may run under a bare uid).
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { announceSkip } from './external';

const run = promisify(execFile);
const bin = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';

export type OwnPostgres = {
  /** postgresql://postgres@<host>:<port>/postgres */
  readonly url: string;
  readonly port: number;
  /** The PostgreSQL server log, for a failing test's message. */
  log(): string;
  start(): Promise<void>;
  stop(options?: { mode?: 'immediate' | 'fast' }): Promise<void>;
  /**
   * Ends every client backend but the caller's whose application_name is LIKE `applicationName`
   * (every one when omitted): the pids ended.
   */
  terminateBackends(filter?: { applicationName?: string }): Promise<number[]>;
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<R[]>;
  cleanup(): Promise<void>;
};

/** The user initdb and pg_ctl run as, when this process is root. */
function serverUser(): string {
  try {
    execFileSync('id', ['-u', 'postgres'], { stdio: 'ignore' });
    return 'postgres';
  } catch {
    return 'nobody';
  }
}

/** Why no cluster of the test's own can be made here, or undefined when it can. */
export function ownPostgresUnavailable(): string | undefined {
  if (!fs.existsSync(path.join(bin, 'initdb')) || !fs.existsSync(path.join(bin, 'pg_ctl')))
    return `no PostgreSQL binaries in ${bin} (set PG_BIN)`;
  const uid = process.getuid?.();
  if (uid === 0) return undefined;
  if (os.userInfo().username === 'postgres') return undefined;
  return 'initdb needs this process to run as root (to run it as postgres) or as postgres';
}

/**
 * `describe` where a cluster can be made, `describe.skip` with the reason printed elsewhere; under
 * CI=true the CI runs as root, so a missing cluster is a failure there, not a skip.
 */
export function describeWithOwnPostgres(name: string, body: () => void): void {
  const reason = ownPostgresUnavailable();
  if (reason === undefined) return describe(name, body);
  if (process.env.CI === 'true') throw new Error(`${name}: cannot make a PostgreSQL cluster under CI: ${reason}`);
  announceSkip(name, reason);
  describe.skip(`${name} (skipped: ${reason})`, body);
}

export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, host, () => {
      const address = s.address();
      s.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * Makes and starts a cluster. `listen`: the addresses it listens on (127.0.0.1 by default);
 * `trustNetwork`: a CIDR whose hosts connect without a password too (the namespaces of a test);
 * `netns`: the network namespace the server runs in.
 */
export async function ownPostgres(
  options: { listen?: string[]; trustNetwork?: string; netns?: string; settings?: Record<string, string> } = {},
): Promise<OwnPostgres> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'own-pg-'));
  const asRoot = process.getuid?.() === 0;
  const user = asRoot ? serverUser() : undefined;
  if (user) execFileSync('chown', [user, root]);
  const command = (tool: string, args: string[]) =>
    user ? ['runuser', '-u', user, '--', path.join(bin, tool), ...args] : [path.join(bin, tool), ...args];
  const exec = (tool: string, args: string[]) => {
    const [file, ...rest] = options.netns
      ? ['ip', 'netns', 'exec', options.netns, ...command(tool, args)]
      : command(tool, args);
    return run(file!, rest);
  };
  const data = path.join(root, 'data');
  const logFile = path.join(root, 'server.log');
  const listen = options.listen ?? ['127.0.0.1'];
  const port = await freePort();
  await exec('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const hba = [
    'local all all trust',
    'host all all 127.0.0.1/32 trust',
    ...(options.trustNetwork ? [`host all all ${options.trustNetwork} trust`] : []),
  ];
  fs.writeFileSync(path.join(data, 'pg_hba.conf'), `${hba.join('\n')}\n`);
  const settings: Record<string, string> = {
    listen_addresses: `'${listen.join(',')}'`,
    port: String(port),
    unix_socket_directories: `'${root}'`,
    max_connections: '200',
    shared_buffers: '32MB',
    ...options.settings,
  };
  fs.appendFileSync(
    path.join(data, 'postgresql.conf'),
    Object.entries(settings)
      .map(([k, v]) => `${k} = ${v}\n`)
      .join(''),
  );
  const url = `postgresql://postgres@${listen[0] === '*' ? '127.0.0.1' : listen[0]}:${port}/postgres`;
  let running = false;
  const cluster: OwnPostgres = {
    url,
    port,
    log: () => (fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : ''),
    async start() {
      await exec('pg_ctl', ['-w', '-t', '60', '-D', data, '-l', logFile, 'start']);
      running = true;
    },
    async stop({ mode = 'fast' } = {}) {
      await exec('pg_ctl', ['-w', '-D', data, '-m', mode, 'stop']);
      running = false;
    },
    async terminateBackends(filter = {}) {
      const rows = await cluster.query<{ pid: number }>(
        `select pid from pg_stat_activity
          where pid <> pg_backend_pid() and backend_type = 'client backend'
            and ($1::text is null or application_name like $1)
            and pg_terminate_backend(pid)`,
        [filter.applicationName ?? null],
      );
      return rows.map((r) => r.pid);
    },
    async query(sql, params) {
      const client = new pg.Client({ connectionString: url, application_name: 'own-postgres-test' });
      await client.connect();
      try {
        return (await client.query(sql, params)).rows;
      } finally {
        await client.end();
      }
    },
    async cleanup() {
      if (running) await cluster.stop({ mode: 'immediate' }).catch(() => undefined);
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
  await cluster.start();
  return cluster;
}

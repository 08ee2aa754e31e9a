/**
 * The service and its CLI as real processes, for end-to-end tests: one node process each (no
 * wrapper), so that a signal reaches the server itself.
 */
import type { ChildProcess } from 'node:child_process';
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { backendEnv } from './backend';

const run = promisify(execFile);
export const root = path.join(__dirname, '..', '..');
const tsx = path.join(root, 'node_modules', '.bin', 'tsx');

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      s.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export type Running = { child: ChildProcess; url: string };

/**
 * Each service started is listed in the run's directory of services (global-setup.ts) until it
 * exits: the run's teardown stops any still running, a test that failed, timed out or had its
 * worker replaced before its own stop, and names the test file that started it.
 */
function listUntilExit(child: ChildProcess): void {
  const dir = process.env.TEST_SERVICE_PIDS;
  if (!dir || child.pid === undefined) return;
  const file = path.join(dir, String(child.pid));
  fs.writeFileSync(file, expect.getState().testPath ?? 'unknown test file');
  child.once('exit', () => fs.rmSync(file, { force: true }));
}

/**
 * `netns`: the network namespace to run in (`ip netns exec` replaces itself with node, so the
 * child is still the server), listening on `host`, where the test reaches it.
 */
export async function startService(
  env: Record<string, string>,
  options: { ready?: boolean; netns?: string; host?: string } = {},
): Promise<Running> {
  const port = await freePort();
  const node = [process.execPath, '--import', 'tsx', 'src/main.ts'];
  const [file, ...args] = options.netns ? ['ip', 'netns', 'exec', options.netns, ...node] : node;
  // One process (no wrapper), so that a signal reaches the server itself.
  const child = spawn(file!, args, {
    cwd: root,
    env: {
      ...process.env,
      // A test's stop needs no window for load balancers (the lifecycle tests set their own).
      SHUTDOWN_LISTEN_SECONDS: '0',
      ...backendEnv(env),
      ...env,
      ...(options.host ? { HOST: options.host } : {}),
      PORT: String(port),
      LOG_LEVEL: 'warn',
      NODE_ENV: 'development',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  listUntilExit(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = `http://${options.host ?? '127.0.0.1'}:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      const res = await fetch(`${url}/health/${options.ready === false ? 'live' : 'ready'}`);
      if (res.status === 200) return { child, url };
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`service did not start: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

export function stop(running: Running, signal: NodeJS.Signals): Promise<void> {
  return new Promise((resolve) => {
    if (running.child.exitCode !== null || running.child.signalCode !== null) return resolve();
    running.child.once('exit', () => resolve());
    running.child.kill(signal);
  });
}

export async function cli(env: Record<string, string>, ...args: string[]): Promise<string> {
  const { stdout } = await run(tsx, ['src/cli/main.ts', ...args], {
    cwd: root,
    env: { ...process.env, ...backendEnv(env), ...env },
  });
  return stdout.trim();
}

export async function waitFor<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A started service that stops itself with SIGTERM. */
export type ServiceProcess = Running & { stop(): Promise<void> };

export async function startServiceProcess(env: Record<string, string>): Promise<ServiceProcess> {
  const running = await startService(env);
  return { ...running, stop: () => stop(running, 'SIGTERM') };
}

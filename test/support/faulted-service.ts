/**
 * The service on a PostgreSQL cluster of the test's own, as real processes, with the demo
 * directory seeded and a caller's headers: what the fault tests share.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { mintSessionToken } from '../../src/infra/auth/session-verifier';
import { demo, demoDirectory } from './demo-directory';
import { startService, stop, type Running } from './service-process';

export const faultSecrets = {
  AUTH_JWT_SECRET: 'postgres-faults-test-secret-'.padEnd(48, 'x'),
  DIRECTORY_SYNC_TOKEN: 'postgres-faults-directory-'.padEnd(48, 'y'),
};
export const operatorHeaders = {
  'content-type': 'application/json',
  'x-directory-token': faultSecrets.DIRECTORY_SYNC_TOKEN,
};

export type FaultedService = {
  readonly env: Record<string, string>;
  readonly processes: Running[];
  start(extra: Record<string, string>, options?: Parameters<typeof startService>[1]): Promise<Running>;
  seed(url: string): Promise<void>;
  headersOf(userId: number): Promise<Record<string, string>>;
  stopAll(): Promise<void>;
};

export function faultedService(postgresUrl: string, extraEnv: Record<string, string> = {}): FaultedService {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'prs-faults-'));
  // Small pools: several processes share the test cluster's 100 connections.
  const env = { DATA_DIR: dataDir, POSTGRES_URL: postgresUrl, POSTGRES_POOL_SIZE: '4', ...faultSecrets, ...extraEnv };
  const processes: Running[] = [];
  return {
    env,
    processes,
    async start(extra, options) {
      const service = await startService({ ...env, ...extra }, options);
      processes.push(service);
      return service;
    },
    async seed(url) {
      const seeded = await fetch(`${url}/internal/directory/events`, {
        method: 'POST',
        headers: operatorHeaders,
        body: JSON.stringify(demoDirectory),
      });
      if (seeded.status !== 200) throw new Error(`seeding the directory: ${seeded.status} ${await seeded.text()}`);
    },
    async headersOf(userId = demo.users.team) {
      const token = await mintSessionToken(faultSecrets.AUTH_JWT_SECRET, { userId });
      return { 'content-type': 'application/json', authorization: `Bearer ${token}` };
    },
    async stopAll() {
      await Promise.all(processes.map((p) => stop(p, 'SIGKILL')));
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Polls `url` until it answers `status`: the milliseconds it took. */
export async function untilStatus(url: string, status: number, withinMs = 30_000): Promise<number> {
  const start = Date.now();
  for (;;) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
      await res.arrayBuffer();
      if (res.status === status) return Date.now() - start;
    } catch {
      // not answering yet
    }
    if (Date.now() - start > withinMs) throw new Error(`${url} did not answer ${status} within ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

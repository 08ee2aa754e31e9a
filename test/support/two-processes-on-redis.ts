import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { demoDirectory } from './demo-directory';
import type { TestServer } from './test-server';
import { startTestServer } from './test-server';

/**
 * Two API processes sharing one DATA_DIR and one Redis under `prefix` (a key prefix of the
 * suite's own), the demo directory fed through the first: what a revocation, a quota or a budget
 * must hold across.
 */
export async function startTwoProcessesOnRedis(
  prefix: string,
  env: Record<string, string>,
): Promise<{ a: TestServer; b: TestServer }> {
  const shared = {
    REDIS_URL: process.env.TEST_REDIS_URL ?? '',
    REDIS_KEY_PREFIX: prefix,
    DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'prs-two-processes-')),
    ...env,
  };
  const a = await startTestServer(shared);
  expect((await a.directory(demoDirectory.events)).status).toBe(200);
  const b = await startTestServer(shared);
  return { a, b };
}

/** Stops both processes and removes every Redis key under `prefix`. */
export async function stopTwoProcessesOnRedis(
  prefix: string,
  a: TestServer | undefined,
  b: TestServer | undefined,
): Promise<void> {
  await Promise.all([a?.close(), b?.close()]);
  const admin = new Redis(process.env.TEST_REDIS_URL ?? '', { lazyConnect: true });
  const keys = await admin.keys(`${prefix}*`);
  if (keys.length > 0) await admin.del(...keys);
  admin.disconnect();
}

import { demoDirectory } from './demo-directory';
import type { TestServer } from './test-server';
import { startTestServer } from './test-server';

/** A clock the test moves by hand. */
export function manualClock(start = Date.UTC(2025, 5, 1, 12)) {
  let nowMs = start;
  return { now: () => new Date(nowMs), advance: (ms: number) => (nowMs += ms) };
}

/** A test server holding the demo directory, on `clock` when given. */
export async function seeded(env: Record<string, string> = {}, clock?: () => Date): Promise<TestServer> {
  const server = await startTestServer(env, clock ? { clock } : {});
  expect((await server.directory(demoDirectory.events)).status).toBe(200);
  return server;
}

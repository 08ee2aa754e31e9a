import { demoDirectory } from './demo-directory';
import type { TestServer } from './test-server';
import { startTestServer } from './test-server';

export type DirectoryEvents = readonly { type: string; data: Record<string, unknown> }[];

/**
 * One test server for the enclosing describe block: started (on its own DATA_DIR) before the
 * block's tests and fed each batch of directory events in turn — the demo directory unless told
 * otherwise — each batch insisted on (200); closed after the block. It answers at once a
 * TestServer that forwards to the running one, so that a suite builds its clients (resourceApi,
 * privacyApi) where it declares them; using it before the block's first beforeAll throws.
 */
export function serverForSuite(
  directory: readonly DirectoryEvents[] = [demoDirectory.events],
  env: Record<string, string> = {},
): TestServer {
  let server: TestServer | undefined;
  beforeAll(async () => {
    server = await startTestServer(env);
    for (const events of directory) expect((await server.directory(events)).status).toBe(200);
  });
  afterAll(() => server?.close());

  const running = (): TestServer => {
    if (!server) throw new Error('the suite server was used before its beforeAll started it');
    return server;
  };
  return {
    get url() {
      return running().url;
    },
    get dataDir() {
      return running().dataDir;
    },
    get services() {
      return running().services;
    },
    token: (userId, options) => running().token(userId, options),
    sessionToken: (userId) => running().sessionToken(userId),
    directory: (events) => running().directory(events),
    request: (method, path, body, options) => running().request(method, path, body, options),
    get: (path, options) => running().get(path, options),
    post: (path, body, options) => running().post(path, body, options),
    close: () => running().close(),
  };
}

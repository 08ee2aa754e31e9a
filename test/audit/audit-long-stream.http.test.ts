/**
 * The directory's stream grows with every change of the directory, without bound. An auditor's
 * reads of it go a page at a time (src/audit/stream-pages.ts): its events page by page, each
 * once, across the store's own read pages; and a person's access, which folds the whole
 * directory, knows a user the directory learned of last.
 */
import { createResourcesClient } from '../../clients/typescript/client';
import { demo, demoDirectory } from '../support/demo-directory';
import type { TestServer } from '../support/test-server';
import { startTestServer } from '../support/test-server';

/** More than two of the store's read pages (1,000 events each). */
const EXTRA_USERS = 2300;
const FIRST_EXTRA = 5000;

describe('audit: a long directory stream', () => {
  jest.setTimeout(60_000);
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
    expect((await server.directory(demoDirectory.events)).status).toBe(200);
    const users = Array.from({ length: EXTRA_USERS }, (_, i) => ({
      type: 'UserUpserted',
      data: { userId: FIRST_EXTRA + i, name: `User ${FIRST_EXTRA + i}`, status: 'active' },
    }));
    for (let i = 0; i < users.length; i += 500)
      expect((await server.directory(users.slice(i, i + 500))).status).toBe(200);
  });
  afterAll(() => server.close());

  it('given pages of 1,000 followed by their cursor, then they hold every directory event once, in log order', async () => {
    const auditor = createResourcesClient({
      baseUrl: server.url,
      token: await server.sessionToken(demo.users.auditor),
    });
    const positions: bigint[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page++) {
      const res = await auditor.GET('/api/audit/events', {
        params: { query: { stream: 'directory', limit: 1000, ...(cursor ? { cursor } : {}) } },
      });
      expect(res.response.status).toBe(200);
      positions.push(...res.data!.items.map((e) => BigInt(e.position)));
      if (!res.data!.nextCursor) break;
      cursor = res.data!.nextCursor;
    }

    expect(positions).toHaveLength(demoDirectory.events.length + EXTRA_USERS);
    expect(new Set(positions).size).toBe(positions.length);
    expect(positions.every((p, i) => i === 0 || p > positions[i - 1]!)).toBe(true);
  });

  it('given the last user the directory learned of, then their access is answered; an id it never knew is a 404', async () => {
    const token = await server.sessionToken(demo.users.auditor);
    const last = FIRST_EXTRA + EXTRA_USERS - 1;

    const known = await server.get(`/api/audit/users/${last}/access`, { token });
    const unknown = await server.get(`/api/audit/users/${FIRST_EXTRA + EXTRA_USERS}/access`, { token });

    expect(known.status).toBe(200);
    expect(unknown.status).toBe(404);
  });
});

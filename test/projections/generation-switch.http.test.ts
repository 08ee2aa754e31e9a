/**
 * A blue/green rebuild seen by two processes on one store: A, which projects and runs the
 * rebuilds, and B, an API process that only follows. Once a rebuild has moved the shared pointer,
 * a write answered by A is in B's next read, and a resource A made private is no longer listed by
 * B, whenever B would have noticed the new generation by itself: B reads from the generation the
 * pointer names when its request starts, and serves a new generation only once it holds the log.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { demo, demoDirectory } from '../support/demo-directory';
import { newResource, resourceApi, scope } from '../support/resource-api';
import { rebuildAndWait } from '../support/rebuild-job';
import { startTestServer, type TestServer } from '../support/test-server';

const { users, projects, communities, communityProjects } = demo;

/**
 * On PostgreSQL each process holds a pool per generation, and a replaced one for a grace after a
 * switch: three quick rebuilds in two processes would otherwise take most of the server's 100
 * connections, which the suites running beside this one need too.
 */
const SMALL_POOLS = { POSTGRES_POOL_SIZE: '2' };

describe('a rebuild seen by two processes on one store', () => {
  jest.setTimeout(90_000);
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'prs-generation-switch-'));
    a = await startTestServer({ DATA_DIR: dataDir, ROLE: 'all', PROJECTION_WAIT_MS: '3000', ...SMALL_POOLS });
    expect((await a.directory(demoDirectory.events)).status).toBe(200);
    b = await startTestServer({ DATA_DIR: dataDir, ROLE: 'api', PROJECTION_WAIT_MS: '3000', ...SMALL_POOLS });
  });
  afterAll(async () => {
    await Promise.all([b?.close(), a?.close()]);
  });

  const listedByOutsider = async (via: TestServer, id: number) => {
    const res = await resourceApi(via).list(users.outsider, {
      projectId: projects.solar,
      communityId: communities.public1,
      take: 1000,
    });
    expect(res.status).toBe(200);
    return res.body.resources.list.some((resource: { id: number }) => resource.id === id);
  };

  it('given rebuilds run by A, when A answers a write right after each, then B reads it at once: a resource made private gone, a new one listed', async () => {
    const team = { token: await a.sessionToken(users.team) };
    const outcomes: string[] = [];
    for (let round = 0; round < 3; round++) {
      const shown = await resourceApi(a).create(
        users.team,
        newResource(scope.communityProject(communityProjects.solarIn1), { privacyLevel: 1 }),
      );
      expect(await listedByOutsider(b, shown.id)).toBe(true);
      const { job } = await rebuildAndWait(a);
      expect(job.outcome).toBe('succeeded');

      const hidden = await a.post(
        '/api/Privacy/SaveResourcePrivacy',
        { resourceId: shown.id, owner: { privacyLevel: 3 } },
        team,
      );
      expect(hidden.status).toBe(200);
      const stillListed = await listedByOutsider(b, shown.id);
      const created = await resourceApi(a).create(
        users.team,
        newResource(scope.communityProject(communityProjects.solarIn1), { privacyLevel: 1 }),
      );
      const newListed = await listedByOutsider(b, created.id);
      outcomes.push(`round ${round}: private one listed ${stillListed}, new one listed ${newListed}`);
    }
    expect(outcomes).toEqual([0, 1, 2].map((round) => `round ${round}: private one listed false, new one listed true`));
  });

  it('given writes through B while A rebuilds, then every write is answered 200 and read back through A', async () => {
    const ids: number[] = [];
    const statuses: number[] = [];
    let rebuilding = true;
    const writer = (async () => {
      while (rebuilding) {
        const res = await resourceApi(b).save(
          users.team,
          newResource(scope.communityProject(communityProjects.solarIn1), { privacyLevel: 1 }),
        );
        statuses.push(res.status);
        if (res.status === 200) ids.push(res.body.id);
      }
    })();
    try {
      for (let round = 0; round < 3; round++) expect((await rebuildAndWait(a)).job.outcome).toBe('succeeded');
    } finally {
      rebuilding = false;
      await writer;
    }
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    for (const id of ids) expect([id, await listedByOutsider(a, id)]).toEqual([id, true]);
  });
});

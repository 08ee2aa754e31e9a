/**
 * Read models are tied to the event log they were built from, by an id written into the
 * log itself. A log reached under another path keeps its read models; a recreated, empty log under
 * the same path is refused (EventLogMismatchError) rather than served or reset in place, and the
 * CLI's rebuild builds a new generation from it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EventLogMismatchError } from '../../src/projections/event-log-identity';
import { demo, demoDirectory } from '../support/demo-directory';
import { cli } from '../support/service-process';
import { startTestServer, type TestServer } from '../support/test-server';

const LOG_FILES = ['events.sqlite', 'events.sqlite-wal', 'events.sqlite-shm'];

describe('the event log the read models were built from', () => {
  jest.setTimeout(60_000);
  let dataDir: string;
  let savedId: number;
  const servers: TestServer[] = [];
  const start = async (dir = dataDir) => {
    const server = await startTestServer({ DATA_DIR: dir });
    servers.push(server);
    return server;
  };
  const listedIds = async (server: TestServer) =>
    (
      await server.post(
        '/api/Project/GetResourceList',
        { projectId: demo.projects.solar, communityId: demo.communities.public1, take: 100 },
        { token: await server.token(demo.users.team) },
      )
    ).body.resources.list.map((r: { id: number }) => r.id) as number[];

  beforeEach(async () => {
    // given: a service that projected a directory and one resource from its log, then stopped
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'prs-log-identity-'));
    const server = await start();
    await server.directory(demoDirectory.events);
    const saved = await server.post(
      '/api/Resource/SaveProjectResource',
      {
        id: 0,
        name: 'built from the first log',
        resourceUrl: 'https://example.org/a.pdf',
        privacyLevel: 2,
        communityProjectId: demo.communityProjects.solarIn1,
      },
      { token: await server.token(demo.users.team) },
    );
    savedId = saved.body.id as number;
    await servers.pop()?.close();
  });

  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  /** Moves the log aside and leaves an empty place: the next start creates a new, empty log there. */
  const recreateEmptyLog = (aside: string) => {
    fs.mkdirSync(aside, { recursive: true });
    for (const file of LOG_FILES) {
      if (fs.existsSync(path.join(dataDir, file))) fs.renameSync(path.join(dataDir, file), path.join(aside, file));
    }
  };
  const restoreLog = (aside: string) => {
    for (const file of LOG_FILES) fs.rmSync(path.join(dataDir, file), { force: true });
    for (const file of LOG_FILES) {
      if (fs.existsSync(path.join(aside, file))) fs.renameSync(path.join(aside, file), path.join(dataDir, file));
    }
  };

  it('given the log and its read models reached under another path, when the service starts there, then it serves them as they are', async () => {
    // given
    const moved = fs.mkdtempSync(path.join(os.tmpdir(), 'prs-log-moved-'));
    fs.cpSync(dataDir, moved, { recursive: true });
    // when
    const server = await start(moved);
    // then
    expect(await listedIds(server)).toContain(savedId);
  });

  it('given a recreated, empty log under the same path, when the service starts, then it refuses and leaves the read models untouched', async () => {
    // given
    const aside = path.join(dataDir, 'aside');
    recreateEmptyLog(aside);
    // when
    const starting = start();
    // then
    await expect(starting).rejects.toBeInstanceOf(EventLogMismatchError);
    restoreLog(aside);
    expect(await listedIds(await start())).toContain(savedId);
  });

  it('given that refusal, when the operator rebuilds with the CLI, then the service starts on a new generation built from the new log', async () => {
    // given
    recreateEmptyLog(path.join(dataDir, 'aside'));
    await expect(start()).rejects.toBeInstanceOf(EventLogMismatchError);
    // when
    const closing = JSON.parse(
      (await cli({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }, 'rebuild')).split('\n').at(-1) ?? '{}',
    ) as { rebuilt: boolean; generation: number };
    // then
    expect(closing).toMatchObject({ rebuilt: true, generation: 1 });
    const server = await start();
    const digest = await server.get<{ generation: number }>('/internal/read-models/digest', {
      headers: { 'x-directory-token': server.services.secrets.directoryToken },
    });
    expect(digest.body.generation).toBe(1);
    await server.directory(demoDirectory.events);
    expect(await listedIds(server)).not.toContain(savedId);
  });
});

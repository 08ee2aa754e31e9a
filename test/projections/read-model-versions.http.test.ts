/**
 * A deployment whose read-model code changed needs no hand-run rebuild: a projecting process that
 * starts on a generation built at another version of a read model builds a new generation beside
 * it and switches, serving the old one meanwhile; a follower (ROLE=api) leaves that to projectors.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { READ_MODELS } from '../../src/app/read-model-list';
import { demo, demoDirectory } from '../support/demo-directory';
import { waitFor } from '../support/service-process';
import { startTestServer, type TestServer } from '../support/test-server';

type DigestBody = { generation: number; digest: string; counts: Record<string, number> };

/** The code of one read model at another version, as a deployment of changed code has it. */
function declareVersion(version: number | undefined): void {
  (READ_MODELS.applications as { version?: number }).version = version;
}

describe('read models at another version than their code', () => {
  jest.setTimeout(60_000);
  let dataDir: string;
  const servers: TestServer[] = [];
  const start = async (env: Record<string, string> = {}) => {
    const server = await startTestServer({ DATA_DIR: dataDir, ...env });
    servers.push(server);
    return server;
  };
  const digest = async (server: TestServer) =>
    (
      await server.get<DigestBody>('/internal/read-models/digest', {
        headers: { 'x-directory-token': server.services.secrets.directoryToken },
      })
    ).body;

  beforeEach(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'prs-versions-'));
    const first = await start();
    await first.directory(demoDirectory.events);
    const team = await first.token(demo.users.team);
    for (let i = 0; i < 5; i++)
      await first.post(
        '/api/Resource/SaveProjectResource',
        {
          id: 0,
          name: `resource ${i}`,
          resourceUrl: 'https://example.org/a.pdf',
          privacyLevel: 2,
          communityProjectId: demo.communityProjects.solarIn1,
        },
        { token: team },
      );
    await first.close();
    servers.length = 0;
  });
  afterEach(async () => {
    declareVersion(undefined);
    await Promise.all(servers.map((server) => server.close()));
    servers.length = 0;
  });

  it('given a read model whose code is at a new version, when a projecting process starts, then it serves the old generation, builds a new one by itself and switches to it, equal in content', async () => {
    // given: what the generation served holds, at version 1
    const before = await digest(await start());
    await servers.pop()?.close();
    declareVersion(2);
    // when
    const server = await start();
    const serving = await digest(server);
    const switched = await waitFor(async () => {
      const now = await digest(server);
      return now.generation > before.generation ? now : undefined;
    }, 'a new generation');
    // then
    expect(serving.digest).toBe(before.digest);
    expect(switched.digest).toBe(before.digest);
    expect(switched.counts).toEqual(before.counts);
  });

  it('given the new generation built at the new version, when a process starts again, then nothing is rebuilt', async () => {
    // given
    declareVersion(2);
    const first = await start();
    const built = await waitFor(async () => {
      const now = await digest(first);
      return now.generation > 0 ? now : undefined;
    }, 'a new generation');
    await servers.pop()?.close();
    // when
    const again = await start();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    // then
    expect((await digest(again)).generation).toBe(built.generation);
  });

  it('given a read model at a new version, when only a follower (ROLE=api) starts, then it rebuilds nothing and serves the generation there is', async () => {
    // given
    const before = await digest(await start());
    await servers.pop()?.close();
    declareVersion(2);
    // when
    const follower = await start({ ROLE: 'api' });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    // then
    expect(await digest(follower)).toMatchObject({ generation: before.generation, digest: before.digest });
  });
});

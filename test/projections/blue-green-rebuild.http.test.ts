/**
 * Blue/green rebuild: a rebuild projects the log into a new generation of the read
 * models while the current one keeps answering, then switches. From the HTTP operator route, and
 * from the CLI while the service runs.
 */
import os from 'node:os';
import { demo, demoDirectory } from '../support/demo-directory';
import { newResource, resourceApi, scope } from '../support/resource-api';
import { cli, waitFor } from '../support/service-process';
import { startTestServer, type TestServer } from '../support/test-server';
import { rebuildAndWait, waitForJob } from '../support/rebuild-job';
import { embeddedOnly } from '../support/backend';

describe('blue/green rebuild of the read models', () => {
  jest.setTimeout(60_000);
  let server: TestServer;
  let team: string;
  const internal = () => ({ headers: { 'x-directory-token': server.services.secrets.directoryToken } });
  const digest = async () =>
    (
      await server.get<{ generation: number; digest: string; counts: Record<string, number> }>(
        '/internal/read-models/digest',
        internal(),
      )
    ).body;
  const list = () =>
    server.post(
      '/api/Project/GetResourceList',
      { projectId: demo.projects.solar, communityId: demo.communities.public1, take: 5 },
      { token: team },
    );
  const save = async (name: string) =>
    (
      await resourceApi(server).create(
        demo.users.team,
        newResource(scope.communityProject(demo.communityProjects.solarIn1), { name, privacyLevel: 2 }),
      )
    ).id;

  beforeAll(async () => {
    server = await startTestServer();
    await server.directory(demoDirectory.events);
    team = await server.token(demo.users.team);
    for (let i = 0; i < 40; i++) await save(`resource ${i}`);
  });
  afterAll(() => server.close());

  it('given lists being served, when an operator rebuilds, then every list answers in full throughout and the new generation equals the old', async () => {
    // given
    const before = await digest();
    const listed = (await list()).body.resources.count as number;
    expect(listed).toBeGreaterThanOrEqual(40);
    let listing = true;
    const answers: { status: number; count: number }[] = [];
    const reader = (async () => {
      while (listing) {
        const res = await list();
        answers.push({ status: res.status, count: res.body?.resources?.count });
      }
    })();
    // when
    const { job, after: rebuilt } = await rebuildAndWait(server);
    listing = false;
    await reader;
    // then
    expect(job.outcome).toBe('succeeded');
    expect(rebuilt.generation).toBe(before.generation + 1);
    expect(rebuilt.digest).toBe(before.digest);
    expect(answers.length).toBeGreaterThan(0);
    expect(answers.every((a) => a.status === 200 && a.count === listed)).toBe(true);
  });

  it('given the service running, when the CLI rebuilds, then the service switches to the new generation and keeps projecting into it', async () => {
    // given
    const before = await digest();
    // when
    const closing = JSON.parse(
      (await cli({ DATA_DIR: server.dataDir, LOG_LEVEL: 'silent' }, 'rebuild')).split('\n').at(-1) ?? '{}',
    ) as { rebuilt: boolean; niceness: number };
    // then: the rebuild ran below this process's CPU priority, as background work
    expect(closing).toMatchObject({ rebuilt: true, niceness: Math.min(19, os.getPriority() + 10) });
    for (let tries = 0; (await digest()).generation === before.generation; tries++) {
      if (tries > 100) throw new Error('the service never switched generation');
      await new Promise((r) => setTimeout(r, 50));
    }
    const after = await digest();
    expect(after.digest).toBe(before.digest);
    const id = await save('after the switch');
    const ids = (
      await server.post(
        '/api/Project/GetResourceList',
        { projectId: demo.projects.solar, communityId: demo.communities.public1, take: 100 },
        { token: team },
      )
    ).body.resources.list.map((r: { id: number }) => r.id);
    expect(ids).toContain(id);
  });

  it('given the service running, when the CLI rebuilds one read model alone, then its job names it and the service switches to a generation equal to the old', async () => {
    // given
    const before = await digest();
    // when
    const closing = JSON.parse(
      (await cli({ DATA_DIR: server.dataDir, LOG_LEVEL: 'silent' }, 'rebuild', '--read-model', 'files'))
        .split('\n')
        .at(-1) ?? '{}',
    ) as { rebuilt: boolean; jobId: string; readModels: string[] };
    // then
    expect(closing).toMatchObject({ rebuilt: true, jobId: expect.any(String), readModels: ['files'] });
    await waitFor(
      async () => ((await digest()).generation !== before.generation ? true : undefined),
      'the service to switch generation',
    );
    expect((await digest()).digest).toBe(before.digest);
  });

  embeddedOnly("it watches the replaced SQLite generation's connection close")(
    'given a rebuild switched generations, when the replaced one has closed, then writes that consult the directory still answer (nothing holds the old read models)',
    async () => {
      // given: the generation serving now, replaced by a rebuild and then closed after its grace
      const replaced = server.services.readSide.current.readDb;
      expect(replaced.kind).toBe('sqlite');
      const closed = () => replaced.kind === 'sqlite' && !replaced.sqlite.db.open;
      expect(closed()).toBe(false);
      expect((await rebuildAndWait(server)).job.outcome).toBe('succeeded');
      await waitFor(async () => (closed() ? true : undefined), 'the replaced generation to close');
      // when
      const key = await server.post(
        '/api/apikey',
        { name: 'after the switch' },
        { token: await server.token(demo.users.admin1) },
      );
      const saved = await save('after the old generation closed');
      // then
      expect(key.status).toBe(200);
      expect(saved).toBeGreaterThan(0);
    },
  );

  it('given a key used, when the read models are rebuilt, then the key list still says when it was last used (it is no event: the rebuild cannot project it)', async () => {
    // given: a key used once, its use recorded
    const token = await server.token(demo.users.admin2);
    const created = await server.post('/api/apikey', { name: 'used before the rebuild' }, { token });
    expect(created.status).toBe(200);
    expect((await server.get('/api/user/getcurrent', { apiKey: created.body.key })).status).toBe(200);
    const lastUsedAt = async () =>
      ((await server.get('/api/apikey', { token })).body as { id: number; lastUsedAt: string | null }[]).find(
        (k) => k.id === created.body.id,
      )?.lastUsedAt;
    const usedAt = await waitFor(async () => (await lastUsedAt()) ?? undefined, 'the use to be recorded');
    const before = server.services.readSide.current.number;
    // when
    expect((await rebuildAndWait(server)).job.outcome).toBe('succeeded');
    // then: another generation answers, with the key's last use
    expect(server.services.readSide.current.number).toBe(before + 1);
    expect(await lastUsedAt()).toBe(usedAt);
  });

  it('given a rebuild running, when an operator asks for another, then the second is refused with a conflict and the first switches', async () => {
    // given / when: two rebuilds asked at once
    const before = server.services.readSide.current.number;
    const answers = await Promise.all([
      server.post('/internal/read-models/rebuild', {}, internal()),
      server.post('/internal/read-models/rebuild', {}, internal()),
    ]);
    // then: one started, the other was refused naming it; the one started switched one generation on
    expect(answers.map((a) => a.status).sort()).toEqual([202, 409]);
    const started = answers.find((a) => a.status === 202)?.body.jobId as string;
    expect(answers.find((a) => a.status === 409)?.body).toMatchObject({ type: '/problems/conflict', jobId: started });
    expect((await waitForJob(server, started)).job.outcome).toBe('succeeded');
    expect(server.services.readSide.current.number).toBe(before + 1);
    // and the lock went with the rebuild: the next one runs
    expect((await rebuildAndWait(server)).job.outcome).toBe('succeeded');
  });
});

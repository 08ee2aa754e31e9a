/**
 * Rebuilds of the read models as jobs: the operator route answers 202 with the job at once, the
 * job runs in the background of the process and is followed at its own URL until it ends; one
 * read model can be rebuilt alone; a second rebuild while one runs is refused naming the first.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { RebuildOptions } from '../../src/app/read-side';
import { demo, demoDirectory } from '../support/demo-directory';
import { newResource, resourceApi, scope } from '../support/resource-api';
import {
  operator,
  rebuildAndWait,
  rebuildJob,
  waitForJob,
  type DigestBody,
  type RebuildJobBody,
} from '../support/rebuild-job';
import { startTestServer, type TestServer } from '../support/test-server';
import { embeddedOnly } from '../support/backend';

const PHASES: RebuildJobBody['phase'][] = ['queued', 'replaying', 'switching', 'done'];

describe('rebuild jobs', () => {
  jest.setTimeout(60_000);
  let server: TestServer;
  let team: string;
  const metricsToken = randomBytes(32).toString('base64url');
  /** A sample of the metrics as Prometheus scrapes them, with the metrics credential; 0 when absent. */
  const metric = async (series: string) => {
    const scraped = await server.get('/internal/metrics', { headers: { authorization: `Bearer ${metricsToken}` } });
    expect(scraped.status).toBe(200);
    const line = scraped.text.split('\n').find((l) => l.startsWith(`${series} `));
    return line === undefined ? 0 : Number(line.slice(series.length + 1));
  };
  const succeeded = 'read_model_rebuilds_total{outcome="succeeded"}';
  const failed = 'read_model_rebuilds_total{outcome="failed"}';
  const running = 'read_model_rebuild_running';
  const digest = async () => (await server.get<DigestBody>('/internal/read-models/digest', operator(server))).body;
  const start = (body?: unknown, options = operator(server)) =>
    server.post('/internal/read-models/rebuild', body, options);
  const save = async (name: string) =>
    (
      await resourceApi(server).create(
        demo.users.team,
        newResource(scope.communityProject(demo.communityProjects.solarIn1), { name, privacyLevel: 2 }),
      )
    ).id;
  const listedIds = async () =>
    (
      await server.post(
        '/api/Project/GetResourceList',
        { projectId: demo.projects.solar, communityId: demo.communities.public1, take: 100 },
        { token: team },
      )
    ).body.resources.list.map((r: { id: number }) => r.id) as number[];

  /** Holds the next rebuild before it opens its generation (its job stays queued) until `release`. */
  const holdNextRebuild = () => {
    const side = server.services.readSide;
    const rebuild = side.rebuild.bind(side);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    jest.spyOn(side, 'rebuild').mockImplementationOnce(async (options: RebuildOptions) => {
      await released;
      return rebuild(options);
    });
    return release;
  };

  beforeAll(async () => {
    server = await startTestServer({ METRICS_TOKEN: metricsToken });
    await server.directory(demoDirectory.events);
    team = await server.token(demo.users.team);
    for (let i = 0; i < 20; i++) await save(`resource ${i}`);
  });
  afterEach(() => jest.restoreAllMocks());
  afterAll(() => server.close());

  it('given read models served, when an operator asks for a rebuild, then 202 names the job, which goes through its phases to done with the read models equal to before', async () => {
    // given
    const before = await digest();
    const succeededBefore = await metric(succeeded);
    const failedBefore = await metric(failed);
    expect(await metric(running)).toBe(0);
    const release = holdNextRebuild();
    // when
    const started = await start({});
    // then: answered at once, the job queued behind the held rebuild, and counted as running
    expect(started.status).toBe(202);
    expect(await metric(running)).toBe(1);
    expect(started.body).toEqual({ jobId: expect.any(String) });
    expect(started.headers.get('location')).toBe(`/internal/read-models/rebuild/${started.body.jobId}`);
    const queued = await rebuildJob(server, started.body.jobId);
    expect(queued.status).toBe(200);
    expect(queued.body).toMatchObject({
      jobId: started.body.jobId,
      readModels: ['directory', 'resources', 'applications', 'apiKeys', 'files'],
      phase: 'queued',
      finishedAt: null,
      outcome: null,
      error: null,
    });
    release();
    const { job, phases: polled } = await waitForJob(server, started.body.jobId);
    // every phase seen comes in order, from queued to done (the short ones may pass between two polls)
    const phases = ['queued' as const, ...polled];
    expect(phases.at(-1)).toBe('done');
    expect(phases.map((p) => PHASES.indexOf(p))).toEqual([...phases.map((p) => PHASES.indexOf(p))].sort());
    expect(job.outcome).toBe('succeeded');
    expect(Date.parse(job.finishedAt ?? '')).toBeGreaterThanOrEqual(Date.parse(job.startedAt));
    expect(BigInt(job.progress.position)).toBe(BigInt(job.progress.head));
    expect(job.progress.eventsApplied).toBeGreaterThan(20);
    const after = await digest();
    expect(after.generation).toBe(before.generation + 1);
    expect(after.digest).toBe(before.digest);
    expect(after.counts).toEqual(before.counts);
    // and the metrics count it succeeded, once, and nothing running
    expect(await metric(succeeded)).toBe(succeededBefore + 1);
    expect(await metric(failed)).toBe(failedBefore);
    expect(await metric(running)).toBe(0);
  });

  it('given a read model named, when it is rebuilt alone, then the job names it alone, the read models equal before and every one keeps projecting', async () => {
    // given
    const before = await digest();
    // when
    const { job, after } = await rebuildAndWait(server, { readModel: 'resources' });
    // then
    expect(job).toMatchObject({ readModels: ['resources'], phase: 'done', outcome: 'succeeded' });
    // it was projected again from the whole log, not merely carried over
    expect(job.progress.eventsApplied).toBeGreaterThan(20);
    expect(after.generation).toBe(before.generation + 1);
    expect(after.digest).toBe(before.digest);
    // the rebuilt read model and those carried over both show a write made after the switch
    const id = await save('after rebuilding one alone');
    expect(await listedIds()).toContain(id);
    const admin = await server.token(demo.users.admin1);
    const key = await server.post('/api/apikey', { name: 'after rebuilding one alone' }, { token: admin });
    expect(key.status).toBe(200);
    const keys = (await server.get('/api/apikey', { token: admin })).body as { id: number }[];
    expect(keys.map((k) => k.id)).toContain(key.body.id);
  });

  it('given a rebuild running, when another is asked (all, or one read model), then each is refused with a conflict naming the running job', async () => {
    // given
    const release = holdNextRebuild();
    const running = await start({});
    expect(running.status).toBe(202);
    try {
      // when
      const again = await start({});
      const one = await start({ readModel: 'files' });
      // then
      for (const refused of [again, one]) {
        expect(refused.status).toBe(409);
        expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(refused.body).toMatchObject({ type: '/problems/conflict', status: 409, jobId: running.body.jobId });
      }
    } finally {
      release();
    }
    expect((await waitForJob(server, running.body.jobId)).job.outcome).toBe('succeeded');
  });

  embeddedOnly(
    "it plants the embedded store's rebuild lock file (on PostgreSQL the lock is a lease, which records no job)",
  )(
    'given another process holds the rebuild lock, when a rebuild is asked, then it is refused naming the job the lock records',
    async () => {
      // given: the lock file of a live process (this one's parent) running job "elsewhere-1"
      const lock = path.join(server.dataDir, 'read-models.rebuild.lock');
      fs.writeFileSync(lock, `${process.ppid}\nelsewhere-1\n`);
      try {
        // when
        const refused = await start({});
        // then
        expect(refused.status).toBe(409);
        expect(refused.body).toMatchObject({ type: '/problems/conflict', jobId: 'elsewhere-1' });
      } finally {
        fs.rmSync(lock, { force: true });
      }
    },
  );

  it('given a rebuild that fails, then its job ends failed with a reason and the generation served stays', async () => {
    // given
    const before = await digest();
    const failedBefore = await metric(failed);
    const succeededBefore = await metric(succeeded);
    jest.spyOn(server.services.readSide, 'rebuild').mockRejectedValueOnce(new Error('disk on fire'));
    // when
    const started = await start({});
    const { job } = await waitForJob(server, started.body.jobId);
    // then: the reason is said without the internal error's words, and the metrics count it failed
    expect(job).toMatchObject({ phase: 'failed', outcome: 'failed' });
    expect(await metric(failed)).toBe(failedBefore + 1);
    expect(await metric(succeeded)).toBe(succeededBefore);
    expect(await metric(running)).toBe(0);
    expect(job.error).toEqual(expect.stringContaining(started.body.jobId));
    expect(job.error).not.toContain('disk on fire');
    expect((await digest()).generation).toBe(before.generation);
    // and the next rebuild runs
    expect((await rebuildAndWait(server)).job.outcome).toBe('succeeded');
  });

  it('given no such job, then GET answers 404 as a problem', async () => {
    const res = await rebuildJob(server, 'no-such-job');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ type: '/problems/not-found', status: 404 });
  });

  it('given an unknown read model or an unknown field, then the rebuild is refused with 400 naming the field', async () => {
    const unknown = await start({ readModel: 'nope' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.type).toBe('/problems/validation');
    expect(unknown.body.errors.map((e: { field: string }) => e.field)).toEqual(['readModel']);
    const extra = await start({ readModels: ['files'] });
    expect(extra.status).toBe(400);
    expect(extra.body.errors.map((e: { field: string }) => e.field)).toEqual(['readModels']);
  });

  it('given a body of JSON null, then the rebuild is refused with 400 naming the body, not started as if none were sent', async () => {
    const refused = await start('null');

    expect(refused.status).toBe(400);
    expect(refused.body.errors.map((e: { field: string }) => e.field)).toEqual(['(body)']);
  });

  it('given no operator credential, or a wrong one, then both routes answer 401 and no rebuild starts', async () => {
    const before = await digest();
    const wrong = { headers: { 'x-directory-token': 'not-the-token' } };
    for (const options of [{}, wrong]) {
      const post = await start({}, options as ReturnType<typeof operator>);
      expect(post.status).toBe(401);
      expect(post.body.type).toBe('/problems/unauthenticated');
      const get = await server.get('/internal/read-models/rebuild/any', options);
      expect(get.status).toBe(401);
    }
    // with a session of a user, too: the operator routes take the directory token only
    const asUser = await server.post('/internal/read-models/rebuild', {}, { token: team });
    expect(asUser.status).toBe(401);
    expect((await digest()).generation).toBe(before.generation);
  });
});

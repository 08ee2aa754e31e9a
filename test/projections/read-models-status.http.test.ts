/**
 * GET /internal/read-models: what the projections console shows of every read model — its state,
 * where this process and the leader stand, how far behind the log it is, its rate and last error —
 * and the rebuild running in this process, behind the operator token.
 */
import { demo, demoDirectory } from '../support/demo-directory';
import { newResource, resourceApi, scope } from '../support/resource-api';
import { operator, waitForJob } from '../support/rebuild-job';
import { startTestServer, type TestServer } from '../support/test-server';
import { embeddedOnly } from '../support/backend';
import { READ_MODEL_NAMES } from '../../src/app/read-model-list';

type Row = {
  name: string;
  generation: number;
  state: string;
  position: string | null;
  leaderPosition: string | null;
  lag: { events: number; seconds: number };
  eventsPerSecond: number;
  lastError: { message: string; position: string | null; at: string } | null;
  problem: string | null;
  parked: unknown[];
};
type Status = {
  at: string;
  generation: number;
  head: string | null;
  readModels: Row[];
  rebuild: { jobId: string; phase: string; readModels: string[]; generation: number | null; progress: unknown } | null;
};

describe('GET /internal/read-models', () => {
  jest.setTimeout(60_000);
  let server: TestServer;

  const status = async () => {
    const answer = await server.get<Status>('/internal/read-models', operator(server));
    expect(answer.status).toBe(200);
    return answer.body;
  };
  const row = (body: Status, name: string, generation = body.generation) =>
    body.readModels.find((r) => r.name === name && r.generation === generation) as Row;
  /** Polls the status until `accept` holds (answers are reused for up to a second). */
  const until = async (accept: (body: Status) => boolean, what: string) => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const body = await status();
      if (accept(body)) return body;
      if (Date.now() > deadline) throw new Error(`never ${what}: ${JSON.stringify(body)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  const save = (name: string) =>
    resourceApi(server).save(
      demo.users.team,
      newResource(scope.communityProject(demo.communityProjects.solarIn1), { name, privacyLevel: 2 }),
    );
  const names = () => [...READ_MODEL_NAMES].sort();
  const runner = (name: string) => {
    const found = server.services.readModels.runners.find((r) => r.name === name);
    if (!found) throw new Error(`no runner ${name}`);
    return found;
  };

  beforeAll(async () => {
    server = await startTestServer();
    await server.directory(demoDirectory.events);
    expect((await save('first')).status).toBe(200);
  });
  afterEach(() => jest.restoreAllMocks());
  afterAll(() => server.close());

  it('given no operator token, or a wrong one, when the read models are asked for, then 401 and nothing of them', async () => {
    // when
    const none = await server.get('/internal/read-models');
    const wrong = await server.get('/internal/read-models', { headers: { 'x-directory-token': 'not-the-token' } });
    // then
    for (const answer of [none, wrong]) {
      expect(answer.status).toBe(401);
      expect(answer.headers.get('content-type')).toContain('application/problem+json');
      expect(answer.text).not.toContain('resources');
    }
  });

  it('given read models caught up, when an operator asks, then every read model of the served generation is listed leading, level with the log, with no error and nothing parked', async () => {
    // given a save folded by this generation's runners
    expect((await save('counted')).status).toBe(200);
    // when
    const body = await until(
      // A read model that ignores the newest events stores its checkpoint a moment after it moved
      // past them: its leader's position shows once stored.
      (b) =>
        b.readModels.every((r) => r.lag.events === 0 && r.leaderPosition !== null) &&
        row(b, 'resources').eventsPerSecond > 0,
      'level with the log',
    );
    // then
    expect(body.rebuild).toBeNull();
    expect(body.readModels.map((r) => r.name).sort()).toEqual(names());
    expect(body.head).toMatch(/^[0-9]+$/);
    for (const r of body.readModels) {
      expect(r).toEqual({
        name: r.name,
        generation: body.generation,
        state: 'leading',
        position: body.head,
        leaderPosition: expect.stringMatching(/^[0-9]+$/),
        lag: { events: 0, seconds: 0 },
        eventsPerSecond: expect.any(Number),
        lastError: null,
        problem: null,
        parked: [],
      });
    }
  });

  it('given the resources projection held on an event, when a write is made, then its lag grows in events and seconds, and once it folds the event the lag is 0 and its position the new head', async () => {
    // given
    const before = await status();
    const projection = runner('resources').projection;
    const apply = projection.apply.bind(projection);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    jest.spyOn(projection, 'apply').mockImplementation(async (event) => {
      await released;
      return apply(event);
    });
    // when
    const write = save('held');
    // then: behind the log, and the oldest event waiting ages
    try {
      const behind = await until((b) => row(b, 'resources').lag.events > 0, 'behind');
      expect(BigInt(row(behind, 'resources').position ?? '0')).toBeLessThan(BigInt(behind.head ?? '0'));
      const older = await until((b) => row(b, 'resources').lag.seconds > 0, 'an aging lag');
      expect(row(older, 'resources').lag.events).toBeGreaterThan(0);
    } finally {
      // and once the event is folded (the write may have given up waiting for it: 503, stored)
      release();
    }
    expect([200, 503]).toContain((await write).status);
    const caughtUp = await until((b) => row(b, 'resources').lag.events === 0, 'caught up');
    expect(row(caughtUp, 'resources')).toMatchObject({ position: caughtUp.head, lag: { events: 0, seconds: 0 } });
    expect(BigInt(row(caughtUp, 'resources').position ?? '0')).toBeGreaterThan(
      BigInt(row(before, 'resources').position ?? '0'),
    );
  });

  embeddedOnly("the replay is held at the embedded log's shared catch-up read, a batch of 2,000")(
    'given a rebuild replaying, when an operator asks, then the rebuild is named with its job and the generation it builds has a row per read model, rebuilding; once done, the new generation is served',
    async () => {
      // given: the rebuild's replay held at its first read of the log
      const events = server.services.eventStore;
      const readAll = events.readAll.bind(events);
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let replaying!: () => void;
      const replayStarted = new Promise<void>((resolve) => (replaying = resolve));
      jest.spyOn(events, 'readAll').mockImplementation(async (...args) => {
        // The shared catch-up of a rebuild reads the log in batches of 2,000.
        if (args[1] === 2000) {
          replaying();
          await released;
        }
        return readAll(...args);
      });
      const served = (await status()).generation;
      const projections = names();
      const started = await server.post<{ jobId: string }>('/internal/read-models/rebuild', {}, operator(server));
      expect(started.status).toBe(202);
      await replayStarted;
      // when
      const during = await until((b) => b.rebuild?.phase === 'replaying', 'replaying').finally(release);
      // then
      expect(during.rebuild).toEqual({
        jobId: started.body.jobId,
        phase: 'replaying',
        readModels: ['directory', 'resources', 'applications', 'apiKeys', 'files'],
        generation: served + 1,
        progress: { position: expect.any(String), head: expect.any(String), eventsApplied: expect.any(Number) },
      });
      const building = during.readModels.filter((r) => r.generation === served + 1);
      expect(building.map((r) => r.name).sort()).toEqual(projections);
      for (const r of building) expect(r).toMatchObject({ state: 'rebuilding', lag: { events: Number(during.head) } });
      expect(during.readModels.filter((r) => r.generation === served)).toHaveLength(projections.length);
      // and once it is done
      expect((await waitForJob(server, started.body.jobId)).job.outcome).toBe('succeeded');
      const after = await until((b) => b.rebuild === null, 'the rebuild gone');
      expect(after.generation).toBe(served + 1);
      expect(after.readModels.map((r) => r.generation)).toEqual(projections.map(() => served + 1));
    },
  );
});

describe('GET /internal/read-models when a projection fails', () => {
  jest.setTimeout(60_000);
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
    await server.directory(demoDirectory.events);
  });
  afterAll(() => server.close());

  it('given the resources projection throwing on an event, when a write is made, then the read model is stopped and its last error names the event, when and what failed, without the error message', async () => {
    // given
    const projection = server.services.readModels.runners.find((r) => r.name === 'resources')?.projection;
    if (!projection) throw new Error('no resources runner');
    jest.spyOn(projection, 'apply').mockRejectedValue(new TypeError('secret detail of the failure'));
    // when
    const write = resourceApi(server).save(
      demo.users.team,
      newResource(scope.communityProject(demo.communityProjects.solarIn1), { name: 'fails', privacyLevel: 2 }),
    );
    let stopped: Status;
    for (let tries = 0; ; tries++) {
      stopped = (await server.get<Status>('/internal/read-models', operator(server))).body;
      if (stopped.readModels.find((r) => r.name === 'resources')?.state === 'stopped') break;
      if (tries > 200) throw new Error(`never stopped: ${JSON.stringify(stopped)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // then
    const r = stopped.readModels.find((x) => x.name === 'resources') as Row;
    expect(r.lastError).toEqual({
      message: 'the projection failed on an event (TypeError)',
      position: stopped.head,
      at: expect.any(String),
    });
    expect(Math.abs(Date.parse(r.lastError?.at ?? '') - Date.now())).toBeLessThan(30_000);
    expect(r.problem).toBe('projection resources failed');
    expect(JSON.stringify(stopped)).not.toContain('secret detail');
    expect((stopped.readModels.find((x) => x.name === 'files') as Row).state).toBe('leading');
    await write.catch(() => undefined);
  });
});

// A server of its own: the rebuild below serves a new generation, which the tests above do not expect.
describe('GET /internal/read-models names what the operator routes take', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
    await server.directory(demoDirectory.events);
  });
  afterAll(() => server.close());

  it('given the rows an operator reads, when each is acted on by its name, then the parked-event and rebuild routes take it', async () => {
    // given
    const rows = (await server.get<Status>('/internal/read-models', operator(server))).body.readModels;
    expect(rows.length).toBeGreaterThan(1);
    // when: each row's parked events asked for by the row's name
    const parked = await Promise.all(
      rows.map((r) => server.get(`/internal/read-models/${r.name}/parked`, operator(server))),
    );
    // then
    expect(parked.map((answer) => answer.status)).toEqual(rows.map(() => 200));
    // and a read model other than resources rebuilt alone by its row's name
    const other = rows.find((r) => r.name !== 'resources') as Row;
    const started = await server.post<{ jobId: string }>(
      '/internal/read-models/rebuild',
      { readModel: other.name },
      operator(server),
    );
    expect(started.status).toBe(202);
    expect((await waitForJob(server, started.body.jobId)).job.outcome).toBe('succeeded');
  });
});

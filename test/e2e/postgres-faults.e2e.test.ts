/**
 * The PostgreSQL backend broken on purpose, for real: a cluster of the test's own (never the
 * suites' shared server) killed with `pg_ctl stop -m immediate` and started again under 32
 * clients; its backends ended under the projector and an API process; a read-model table locked
 * past the statement timeout. The service runs as real processes (an API and a projector) and must
 * answer 503 with Retry-After while a store is gone, never hang or answer 500, recover without a
 * restart of its own, and lose or duplicate no acknowledged write.
 */
import { demo } from '../support/demo-directory';
import { faultedService, operatorHeaders, sleep, untilStatus, type FaultedService } from '../support/faulted-service';
import { describeWithOwnPostgres, ownPostgres, type OwnPostgres } from '../support/own-postgres';
import { listedOf, lostAndDuplicated, startWorkload, type Observation } from '../support/save-workload';

/** A request must be answered within this, even while PostgreSQL is gone. */
const ANSWER_BOUND_MS = 15_000;

const serverErrors = (observations: Observation[]) =>
  observations.filter((o) => o.hung || (o.status >= 500 && o.status !== 503)).map((o) => `${o.kind} ${o.status}`);

describeWithOwnPostgres('the service on PostgreSQL, with its server killed and restarted under load', () => {
  jest.setTimeout(120_000);
  let cluster: OwnPostgres | undefined;
  let service: FaultedService | undefined;
  afterAll(async () => {
    await service?.stopAll();
    await cluster?.cleanup();
  });

  it('given 32 clients saving and reading, when the server is killed and started again, then it answers 503 while down and no acknowledged write is lost or duplicated', async () => {
    // given: an API process and a projector on the cluster, the directory seeded, clients at work
    cluster = await ownPostgres();
    service = faultedService(cluster.url, { PROJECTION_WAIT_MS: '3000' });
    const api = await service.start({ ROLE: 'api' });
    const projector = await service.start({ ROLE: 'projector' });
    await service.seed(api.url);
    const headers = await service.headersOf(demo.users.team);
    const workload = startWorkload({ targets: () => [api.url], headers, boundMs: ANSWER_BOUND_MS + 5000 });
    while (workload.answered.size < 60) await sleep(50);

    // when: the server is killed (no shutdown checkpoint, every connection cut), left down, started again
    await cluster.stop({ mode: 'immediate' });
    const downAt = Date.now();
    const readyWhileDown = await Promise.all(
      [api, projector].map(async (p) => (await fetch(`${p.url}/health/ready`)).status),
    );
    // The metrics are what an operator reads during an outage: they need no database.
    const metricsWhileDown = await Promise.all(
      [api, projector].map(
        async (p) => (await fetch(`${p.url}/internal/metrics`, { headers: operatorHeaders })).status,
      ),
    );
    await sleep(2500);
    const upAt = Date.now();
    await cluster.start();
    const startedAt = Date.now();
    const readyAfter = await Promise.all([api, projector].map((p) => untilStatus(`${p.url}/health/ready`, 200)));
    while (!workload.observations.some((o) => o.kind === 'save' && o.status === 200 && o.startedAt >= startedAt))
      await sleep(20);
    const firstWriteAfter = Date.now() - startedAt;
    const answeredAtRestart = workload.answered.size;
    while (workload.answered.size < answeredAtRestart + 60) await sleep(50);
    await workload.stop();

    // then: down, every answer was a 503 with Retry-After; none hung or was a 500
    const whileDown = workload.observations.filter((o) => o.startedAt >= downAt + 200 && o.endedAt <= upAt);
    const longest = Math.max(...workload.observations.map((o) => o.endedAt - o.startedAt));
    process.stderr.write(
      `\nserver restart: ${whileDown.length} answers while down; ready again after ${readyAfter.join(' / ')} ms ` +
        `(api / projector); first write ${firstWriteAfter} ms after start; longest answer ${longest} ms; ` +
        `${workload.answered.size} saves acknowledged, ${workload.observations.length} requests\n`,
    );
    expect(readyWhileDown).toEqual([503, 503]);
    expect(metricsWhileDown).toEqual([200, 200]);
    expect(whileDown.length).toBeGreaterThan(0);
    expect(whileDown.filter((o) => o.status !== 503 || o.retryAfter === null).map((o) => o.status)).toEqual([]);
    expect(serverErrors(workload.observations)).toEqual([]);
    expect(longest).toBeLessThan(ANSWER_BOUND_MS);
    // and: the same processes serve again, without a restart of their own
    expect([api, projector].map((p) => p.child.exitCode)).toEqual([null, null]);
    // and: every acknowledged save is listed once, under the id it was answered; none twice
    expect(workload.answered.size).toBe(workload.attempted.size);
    const listed = await listedOf(api.url, headers, workload.run);
    expect(lostAndDuplicated(workload, listed)).toEqual({ lost: [], duplicated: [] });
    expect(listed).toHaveLength(workload.answered.size);
  });
});

type Digest = { generation: number; checkpoint: string | null; digest: string; counts: Record<string, number> };
const digestOf = async (url: string): Promise<Digest> => {
  const res = await fetch(`${url}/internal/read-models/digest`, { headers: operatorHeaders });
  if (res.status !== 200) throw new Error(`digest: ${res.status} ${await res.text()}`);
  return (await res.json()) as Digest;
};
/** POST /internal/read-models/rebuild, then polls its job to the end: the digest of the generation it built. */
const rebuiltDigestOf = async (url: string): Promise<Digest> => {
  const started = await fetch(`${url}/internal/read-models/rebuild`, { method: 'POST', headers: operatorHeaders });
  expect(started.status).toBe(202);
  const { jobId } = (await started.json()) as { jobId: string };
  for (const deadline = Date.now() + 30_000; ;) {
    const job = (await (
      await fetch(`${url}/internal/read-models/rebuild/${jobId}`, { headers: operatorHeaders })
    ).json()) as {
      outcome: string | null;
      error: string | null;
    };
    if (job.outcome !== null) {
      expect(job).toMatchObject({ outcome: 'succeeded' });
      break;
    }
    if (Date.now() > deadline) throw new Error(`rebuild ${jobId} did not end`);
    await sleep(100);
  }
  return digestOf(url);
};

describeWithOwnPostgres('the service on PostgreSQL, with its connections cut and its statements timed out', () => {
  jest.setTimeout(120_000);
  let cluster: OwnPostgres | undefined;
  let service: FaultedService | undefined;
  afterAll(async () => {
    await service?.stopAll();
    await cluster?.cleanup();
  });

  it('given clients saving, when the projector and API backends are ended mid-work and a read-model table is locked past the statement timeout, then nothing is half-applied and the projection resumes', async () => {
    // given: an API process and a projector whose statements are bound to 1 s, clients at work
    cluster = await ownPostgres();
    service = faultedService(cluster.url, { PROJECTION_WAIT_MS: '3000', POSTGRES_STATEMENT_TIMEOUT_MS: '1000' });
    const api = await service.start({ ROLE: 'api' });
    const projector = await service.start({ ROLE: 'projector' });
    await service.seed(api.url);
    const headers = await service.headersOf(demo.users.team);
    const workload = startWorkload({ targets: () => [api.url], headers, boundMs: ANSWER_BOUND_MS + 5000 });
    while (workload.answered.size < 40) await sleep(50);

    // when: every backend of the projector, then of the API, is ended while saves run, five times over
    const ended = { projector: 0, api: 0 };
    for (let round = 0; round < 5; round++) {
      ended.projector += (await cluster.terminateBackends({ applicationName: 'prs-projector-%' })).length;
      await sleep(300);
      ended.api += (await cluster.terminateBackends({ applicationName: 'prs-api-%' })).length;
      await sleep(700);
    }
    // and: the resources' views locked for 3 s, three times the statements' bound
    const lockedAt = Date.now();
    await cluster.query(
      'begin; lock table resources_read.res_views in access exclusive mode; select pg_sleep(3); commit;',
    );
    const unlockedAt = Date.now();
    const answeredAfterFaults = workload.answered.size;
    while (workload.answered.size < answeredAfterFaults + 40) await sleep(50);
    await workload.stop();

    // then: no answer was a 500 or hung; answers during the lock were 503 with Retry-After, or went through
    const duringLock = workload.observations.filter((o) => o.startedAt >= lockedAt && o.endedAt <= unlockedAt);
    const statuses = [...new Set(workload.observations.map((o) => o.status))].sort();
    process.stderr.write(
      `\ncut connections: ended ${ended.projector} projector and ${ended.api} API backends; statuses ${statuses.join(',')}; ` +
        `${duringLock.filter((o) => o.status === 503).length} of ${duringLock.length} answers 503 during the lock; ` +
        `${workload.answered.size} saves acknowledged\n`,
    );
    expect(ended.projector).toBeGreaterThan(0);
    expect(ended.api).toBeGreaterThan(0);
    expect(serverErrors(workload.observations)).toEqual([]);
    expect(workload.observations.filter((o) => o.status === 503 && o.retryAfter === null)).toEqual([]);
    // and: the projection resumed: both processes ready, every acknowledged save listed once
    await untilStatus(`${api.url}/health/ready`, 200);
    await untilStatus(`${projector.url}/health/ready`, 200);
    expect(workload.answered.size).toBe(workload.attempted.size);
    const listed = await listedOf(api.url, headers, workload.run);
    expect(lostAndDuplicated(workload, listed)).toEqual({ lost: [], duplicated: [] });
    expect(listed).toHaveLength(workload.answered.size);
    // and: the read models are what a rebuild from the log makes of it: nothing half-applied
    const served = await digestOf(api.url);
    const rebuilt = await rebuiltDigestOf(api.url);
    expect(rebuilt.generation).toBe(served.generation + 1);
    expect({ digest: rebuilt.digest, counts: rebuilt.counts, checkpoint: rebuilt.checkpoint }).toEqual({
      digest: served.digest,
      counts: served.counts,
      checkpoint: served.checkpoint,
    });
  });
});

/**
 * `npm run bench`: the service on its embedded default, in its own process, loaded over loopback
 * HTTP by autocannon from this one. Every read scenario is measured against the ceiling, a bare
 * Express app in its own process (bench/bare-express.ts), in alternating slices, ceiling then
 * scenario, ROUNDS times, and reported as a share of it, with p50/p99. Asserts nothing: speed is
 * measured here, never in tests. Prints its tables (markdown) and records them in
 * docs/benchmarks/latest.json, the newest run of each scale, and draws its charts again (`npm run bench:plot`).
 *
 *   BENCH_SCALE=5k|20k|200k (default 20k)   BENCH_SECONDS=6 (per scenario)   BENCH_CONNECTIONS=50
 *   BENCH_ONLY=lists,varied,saves,rebuild,soak (the groups to run; all by default)
 *   BENCH_SOAK_SECONDS=300 (0 leaves the soak out)   BENCH_KEEP=1 (keep the seeded data set)
 *   BENCH_DATA_DIR=<dir> (reuse a kept data set)   BENCH_JSON=<file> (record there instead; none: nowhere)
 *   BENCH_SERVICE_FLAGS="<node flags>" (added to the service's: `--cpu-prof`, `-r ./bench/statement-counts.cjs`)
 *
 * With POSTGRES_URL set, every store of the service, of the seed and of the rebuilds is in that
 * PostgreSQL database, in a fresh POSTGRES_SCHEMA (`bench_<hex>`, with its `_read*` and `_files`
 * schemas) that is dropped at the end unless BENCH_KEEP; the run is recorded as `<scale> PostgreSQL`.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { mintSessionToken } from '../src/infra/auth/session-verifier';
import { LATEST, plotBenchmarks, withRun, type BenchFile, type BenchRun } from '../scripts/plot-benchmarks';
import { CALLERS, MANY_CALLERS, SCALES, VIEWS, communityOf, seed, teamOf, type Scale } from './scale-data';
import { serviceNodeFlags } from './service-node-flags';
import {
  bareExpressRequest,
  landSave,
  privacyReads,
  randomSequence,
  savesRequest,
  startBareExpress,
  startWriteLoad,
  variedRequest,
} from './varied-load';
import { percentile } from './percentile';

const SCALE_NAME = process.env.BENCH_SCALE ?? '20k';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
/** Node flags added to the service's own: a profile (`--cpu-prof`) or a preload of bench/ (`-r ./bench/…`). */
const SERVICE_FLAGS = (process.env.BENCH_SERVICE_FLAGS ?? '').split(' ').filter(Boolean);
/**
 * On a shared VM the machine's speed drifts: the no-op alone moved by a third within a minute here.
 * Measured in alternating slices, a scenario and the no-op share the same drift, so their ratio
 * does not depend on which of them happened to run in a slow second.
 */
const ROUNDS = 3;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const QUIET_REBUILDS = 3;
const ROOT = path.join(__dirname, '..');
/** Where the stores are: PostgreSQL when POSTGRES_URL is set, the embedded default otherwise. */
const POSTGRES_URL = process.env.POSTGRES_URL || undefined;
const BACKEND = POSTGRES_URL
  ? 'PostgreSQL (event log, read models and files; local server)'
  : 'embedded default (SQLite event store and read models)';

/** Drops a bench schema and every schema named after it (`<schema>_read`, `<schema>_read_g1`, `<schema>_files`). */
async function dropBenchSchemas(url: string, base: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ nspname: string }>(
      "select nspname from pg_namespace where nspname = $1 or nspname like $1 || '\\_%'",
      [base],
    );
    for (const { nspname } of rows) await client.query(`drop schema if exists "${nspname}" cascade`);
  } finally {
    await client.end();
  }
}

type Measured = { rps: number; p50: number; p99: number; errors: number };
/** `noop`: the no-op measured in the slices between this scenario's, where it was (read scenarios). */
type Result = Measured & { scenario: string; noop?: Measured };

const log = (line: string) => process.stderr.write(`${line}\n`);

function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

async function startService(
  env: Record<string, string>,
): Promise<{ child: ChildProcess; url: string; readyMs: number }> {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [...serviceNodeFlags(), ...SERVICE_FLAGS, path.join(ROOT, 'dist', 'src', 'main.js')],
    {
      // No listening window after SIGTERM: nothing balances load onto the bench's service.
      env: { ...process.env, SHUTDOWN_LISTEN_SECONDS: '0', ...env, PORT: String(port), LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}`);
    try {
      const res = await fetch(`${url}/health/ready`);
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  return { child, url, readyMs: Math.round(performance.now() - started) };
}

async function stopService(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

function run(options: autocannon.Options, seconds: number): Promise<autocannon.Result> {
  return new Promise((resolve, reject) =>
    autocannon({ connections: CONNECTIONS, ...options, duration: seconds }, (error, result) =>
      error ? reject(error) : resolve(result),
    ),
  );
}

/** Slices of one load, as one: req/s over all of them, the request-weighted p50, the worst p99. */
function combined(slices: readonly autocannon.Result[]): Measured {
  const requests = slices.reduce((n, r) => n + r.requests.total, 0);
  const seconds = slices.reduce((n, r) => n + r.duration, 0);
  return {
    rps: Math.round(requests / seconds),
    p50: Math.round(slices.reduce((n, r) => n + r.latency.p50 * r.requests.total, 0) / Math.max(1, requests)),
    p99: Math.max(...slices.map((r) => r.latency.p99)),
    errors: slices.reduce((n, r) => n + r.errors + r.timeouts + r.non2xx, 0),
  };
}

/** One scenario: a second of it unmeasured first, so that warm code is compared with warm code. */
async function load(scenario: string, options: autocannon.Options): Promise<Result> {
  await run(options, 1);
  return { scenario, ...combined([await run(options, SECONDS)]) };
}

/**
 * One request after another at `perSecond` from one client, for SECONDS after a second unmeasured,
 * each timed to the microsecond (autocannon rounds to the millisecond, too coarse for a path of a
 * few): what a request costs when the machine is not saturated.
 */
async function paced(scenario: string, options: autocannon.Options, perSecond: number): Promise<Result> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const body = options.body === undefined ? undefined : String(options.body);
  const send = () =>
    new Promise<{ ms: number; ok: boolean }>((resolve, reject) => {
      const started = performance.now();
      const req = http.request(
        String(options.url),
        { method: options.method ?? 'GET', headers: options.headers as http.OutgoingHttpHeaders, agent },
        (res) => {
          res.resume();
          res.on('end', () => resolve({ ms: performance.now() - started, ok: (res.statusCode ?? 500) < 400 }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const times: number[] = [];
  let errors = 0;
  const started = performance.now();
  let measuredFrom = started;
  // Where a request takes longer than the pace allows, the next one goes at once: the pace is a most.
  for (let n = 0; performance.now() - started < (SECONDS + 1) * 1000; n++) {
    const due = started + (n * 1000) / perSecond;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
    const warm = performance.now() - started >= 1000;
    if (warm && times.length === 0) measuredFrom = performance.now();
    const { ms, ok } = await send();
    if (!warm) continue;
    times.push(ms);
    if (!ok) errors += 1;
  }
  const seconds = (performance.now() - measuredFrom) / 1000;
  agent.destroy();
  const sorted = times.sort((a, b) => a - b);
  const at = (q: number) => Math.round(10 * percentile(sorted, q)) / 10;
  return { scenario, rps: Math.round(times.length / seconds), p50: at(0.5), p99: at(0.99), errors };
}

/** One read scenario against the no-op, in alternating slices (see ROUNDS). */
async function versusNoop(scenario: string, options: autocannon.Options, noop: autocannon.Options): Promise<Result> {
  await run(options, 1);
  const mine: autocannon.Result[] = [];
  const noops: autocannon.Result[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    noops.push(await run(noop, SECONDS / ROUNDS));
    mine.push(await run(options, SECONDS / ROUNDS));
  }
  return { scenario, ...combined(mine), noop: combined(noops) };
}

/** `resources-cli rebuild` in its own process: its closing line says how many events and how long. */
function cliRebuild(env: Record<string, string>): Promise<{ events: number; seconds: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'dist', 'src', 'cli', 'main.js'), 'rebuild'], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`rebuild exited with ${code}`));
      resolve(JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as { events: number; seconds: number });
    });
  });
}

/** A histogram's cumulative bucket counts in a Prometheus text, by upper bound. */
function histogramBuckets(text: string, name: string): { le: string; n: number }[] {
  return [...text.matchAll(new RegExp(`^${name}_bucket\\{le="([^"]+)"\\} (\\d+)$`, 'gm'))].map((m) => ({
    le: m[1] ?? '',
    n: Number(m[2]),
  }));
}

/**
 * The bucket bounds (ms) under which these quantiles of a histogram's observations fall, counting
 * only those made between two readings of the metrics (`before` empty: all of them).
 */
function histogramQuantiles(before: string, after: string, name: string, quantiles: readonly number[]): string[] {
  const earlier = new Map(histogramBuckets(before, name).map((b) => [b.le, b.n]));
  const buckets = histogramBuckets(after, name).map((b) => ({ le: b.le, n: b.n - (earlier.get(b.le) ?? 0) }));
  const total = buckets.at(-1)?.n ?? 0;
  return quantiles.map((q) => {
    const bucket = buckets.find((b) => b.n >= q * total);
    return bucket === undefined || bucket.le === '+Inf' ? 'n/a' : String(Number(bucket.le) * 1000);
  });
}

/** Which groups of scenarios to run (BENCH_ONLY=lists,varied,...); all of them by default. */
const ONLY = new Set((process.env.BENCH_ONLY ?? 'lists,varied,saves,rebuild,soak').split(',').map((g) => g.trim()));
/** The varied soak's length; 0 leaves it out. */
const SOAK_SECONDS = Number(process.env.BENCH_SOAK_SECONDS ?? 300);
/** Saves a second landing on a view while the write-load scenarios run. */
const SAVES_PER_SECOND = 30;
/** The pace of the saves scenario's first part, which one client keeps on any machine this runs on. */
const PACED_SAVES_PER_SECOND = 50;

async function main(): Promise<void> {
  const scale = SCALES[SCALE_NAME];
  if (!scale) throw new Error(`BENCH_SCALE must be one of ${Object.keys(SCALES).join(', ')}`);
  log('building dist/ ...');
  execFileSync(
    process.execPath,
    [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', path.join(ROOT, 'tsconfig.build.json')],
    { stdio: 'inherit' },
  );

  // BENCH_DATA_DIR: a data set kept by an earlier run (BENCH_KEEP), reused without seeding.
  const reused = process.env.BENCH_DATA_DIR;
  const dataDir = reused ?? fs.mkdtempSync(path.join(os.tmpdir(), 'prs-bench-'));
  const secretsFile = path.join(dataDir, 'bench-secrets.json');
  type Kept = { AUTH_JWT_SECRET: string; DIRECTORY_SYNC_TOKEN: string; POSTGRES_SCHEMA?: string };
  const kept: Kept = reused
    ? (JSON.parse(fs.readFileSync(secretsFile, 'utf8')) as Kept)
    : {
        AUTH_JWT_SECRET: randomBytes(32).toString('base64url'),
        DIRECTORY_SYNC_TOKEN: randomBytes(32).toString('base64url'),
        ...(POSTGRES_URL ? { POSTGRES_SCHEMA: `bench_${randomBytes(6).toString('hex')}` } : {}),
      };
  if (POSTGRES_URL && !kept.POSTGRES_SCHEMA) throw new Error(`${dataDir} was kept by a run on the embedded default`);
  if (!POSTGRES_URL && kept.POSTGRES_SCHEMA)
    throw new Error(`${dataDir} was kept by a run on PostgreSQL: set POSTGRES_URL`);
  const secrets = { AUTH_JWT_SECRET: kept.AUTH_JWT_SECRET, DIRECTORY_SYNC_TOKEN: kept.DIRECTORY_SYNC_TOKEN };
  const backend: Record<string, string> =
    POSTGRES_URL && kept.POSTGRES_SCHEMA ? { POSTGRES_URL, POSTGRES_SCHEMA: kept.POSTGRES_SCHEMA } : {};
  // The API-key scenario sends far more than the default 1,000 requests an hour.
  const env = { NODE_ENV: 'test', DATA_DIR: dataDir, RATE_LIMIT_PER_HOUR: '1000000000', ...secrets, ...backend };

  let resources = 0;
  let seedSeconds = 0;
  if (!reused) {
    fs.writeFileSync(secretsFile, JSON.stringify(kept));
    log(`seeding ${SCALE_NAME} through the commands into ${backend.POSTGRES_SCHEMA ?? dataDir} ...`);
    const seedStarted = performance.now();
    resources = await seed(dataDir, scale, secrets.AUTH_JWT_SECRET, secrets.DIRECTORY_SYNC_TOKEN, log, backend);
    seedSeconds = (performance.now() - seedStarted) / 1000;
    log(`  ${resources} resources in ${seedSeconds.toFixed(1)} s`);
  }

  const bare = await startBareExpress();
  const ceiling = bareExpressRequest(bare);
  // Two restarts: the first after the seed process, the second after a clean stop.
  const first = await startService(env);
  await stopService(first.child);
  let service = await startService(env);
  const idleRss = rssMb(service.child.pid ?? 0);
  const tokens = new Map<number, string>();
  const token = async (userId: number) => {
    let minted = tokens.get(userId);
    if (!minted) {
      minted = await mintSessionToken(secrets.AUTH_JWT_SECRET, { userId });
      tokens.set(userId, minted);
    }
    return minted;
  };
  const auth = async (userId: number) => ({
    authorization: `Bearer ${await token(userId)}`,
    'content-type': 'application/json',
  });
  const noop = { url: `${service.url}/health/live` };
  /** A GetResourceList body: 20 records, most recent first, `body` saying which. */
  const listBody = (body: object) => JSON.stringify({ take: 20, orderBy: 1, ...body });
  const listRequest = async (userId: number, body: object) =>
    ({
      url: `${service.url}/api/Project/GetResourceList`,
      method: 'POST',
      headers: await auth(userId),
      body: listBody(body),
    }) as const;
  const list = async (scenario: string, userId: number, body: object) =>
    versusNoop(scenario, await listRequest(userId, body), ceiling);
  const big = { projectId: VIEWS.hotProject, communityId: VIEWS.hotCommunity };
  const small = { projectId: VIEWS.smallProject, communityId: VIEWS.hotCommunity };
  const viewSize = VIEWS.hotViewSize(scale).toLocaleString('en');

  const results: Result[] = [];
  const rss: string[] = [];
  results.push(await load('bare Express no-op (POST, own process), alone', ceiling));
  // The same app served as the service serves its own (src/app/http-server.ts): a reference line
  // to read the shares against, measured once; the ceiling stays the plain one.
  const bareAsServed = await startBareExpress('app-prototypes');
  results.push(
    await load('bare Express no-op served as the service is (app prototypes), alone', bareExpressRequest(bareAsServed)),
  );
  bareAsServed.child.kill('SIGTERM');
  results.push(await load('no-op route of the service (GET /health/live), alone', noop));
  let quietList: Result | undefined;
  if (ONLY.has('lists')) {
    quietList = await list(`GetResourceList, ${viewSize}-resource view, member`, CALLERS.member, big);
    results.push(quietList);
    results.push(await list(`GetResourceList, ${viewSize}-resource view, team`, CALLERS.team, big));
    results.push(await list(`GetResourceList, ${viewSize}-resource view, admin`, CALLERS.admin, big));
    results.push(await list(`GetResourceList, ${viewSize}-resource view, outsider`, CALLERS.outsider, big));
    results.push(
      await list(`GetResourceList, ${viewSize}-resource view, member, skip 1000`, CALLERS.member, {
        ...big,
        skip: 1000,
      }),
    );
    results.push(
      await list(`GetResourceList, ${viewSize}-resource view, member, concept search`, CALLERS.member, {
        ...big,
        concept: 'number 39',
      }),
    );
    results.push(await list('GetResourceList, 32-resource view, member', CALLERS.member, small));
  }

  /**
   * The traffic many users send: another caller and another page at each request, with saves
   * landing meanwhile on the same view or elsewhere; run once with the memos on and once with
   * READ_MEMO=off, where every answer is built from the read models.
   */
  const varied = async (memo: 'on' | 'off') => {
    const random = randomSequence(memo === 'on' ? 1 : 2);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
    const manyCallers = [...MANY_CALLERS.members, ...MANY_CALLERS.outsiders].filter((u) => u <= scale.users);
    const fiveThousand = Array.from({ length: Math.min(5_000, scale.users) }, (_, i) => i + 1);
    for (const userId of [...manyCallers, ...fiveThousand]) await token(userId);
    const listUrl = { url: `${service.url}/api/Project/GetResourceList`, method: 'POST' as const };
    const randomPage = variedRequest(listUrl, () => {
      const userId = pick(manyCallers);
      return {
        headers: { authorization: `Bearer ${tokens.get(userId)}`, 'content-type': 'application/json' },
        body: listBody({ ...big, skip: 20 * Math.floor(random() * 100) }),
      };
    });
    const firstPage = variedRequest(listUrl, () => {
      const userId = pick(fiveThousand);
      return {
        headers: { authorization: `Bearer ${tokens.get(userId)}`, 'content-type': 'application/json' },
        body: listBody(big),
      };
    });
    const saveInto = (where: 'same view' | 'elsewhere') => async (i: number) => {
      const projectId = where === 'same view' ? VIEWS.hotProject : 3 + (i % (scale.projects - 2));
      return landSave(service.url, scale, projectId, i, await auth(teamOf(scale, projectId)));
    };
    const withSaves = async (
      scenario: string,
      options: autocannon.Options,
      where: 'same view' | 'elsewhere' | 'none',
    ) => {
      const writes = where === 'none' ? undefined : startWriteLoad(SAVES_PER_SECOND, saveInto(where));
      const result = await versusNoop(scenario, options, ceiling);
      const saved = await writes?.stop();
      const rate = saved
        ? `, ${Math.round(saved.saves / saved.seconds)} saves/s landing on ${where === 'same view' ? 'the same view' : 'other projects'}${saved.failed ? ` (${saved.failed} failed)` : ''}`
        : '';
      return { ...result, scenario: `${scenario}${rate}, memos ${memo}` };
    };
    results.push(
      await withSaves(
        `GetResourceList, 550 callers × a random page of the first 100 (take 20), ${viewSize}-resource view`,
        randomPage,
        'none',
      ),
    );
    results.push(
      await withSaves(
        `GetResourceList, 550 callers × a random page of the first 100 (take 20), ${viewSize}-resource view`,
        randomPage,
        'same view',
      ),
    );
    results.push(
      await withSaves(
        `GetResourceList, 550 callers × a random page of the first 100 (take 20), ${viewSize}-resource view`,
        randomPage,
        'elsewhere',
      ),
    );
    results.push(
      await withSaves(
        `GetResourceList, ${fiveThousand.length.toLocaleString('en')} callers × the first page, ${viewSize}-resource view`,
        firstPage,
        'elsewhere',
      ),
    );
    const deep = Math.min(10_000, VIEWS.hotViewSize(scale) - 20);
    results.push(
      await withSaves(
        `GetResourceList, member, skip ${deep.toLocaleString('en')} of the ${viewSize}-resource view`,
        await listRequest(CALLERS.member, { ...big, skip: deep }),
        'none',
      ),
    );
    const privacy = await privacyReads(
      service.url,
      scale,
      await auth(CALLERS.member),
      (userId) => ({ authorization: `Bearer ${tokens.get(userId)}` }),
      pick,
    );
    results.push(
      await withSaves(
        `GetResourcePrivacy, ${privacy.callers} callers × ${privacy.resources} resources`,
        privacy.request,
        'none',
      ),
    );
    const created = await fetch(`${service.url}/api/apikey`, {
      method: 'POST',
      headers: await auth(CALLERS.admin),
      body: JSON.stringify({ name: `bench ${memo}` }),
    });
    const key = ((await created.json()) as { key: string }).key;
    const keyed = await listRequest(CALLERS.admin, big);
    results.push(
      await withSaves(
        `GetResourceList with an API key (one key repeating), ${viewSize}-resource view`,
        { ...keyed, headers: { 'x-api-key': key, 'content-type': 'application/json' } },
        'none',
      ),
    );
    results.push(
      await withSaves(
        `GetResourceList with a bearer token (the same caller repeating), ${viewSize}-resource view`,
        keyed,
        'none',
      ),
    );
    rss.push(`| RSS after the varied scenarios, memos ${memo} | ${rssMb(service.child.pid ?? 0)} MB |`);
  };
  if (ONLY.has('varied')) await varied('on');
  if (ONLY.has('lists')) {
    results.push(
      await versusNoop(
        'GetResourcePrivacy, team (one request repeating)',
        { url: `${service.url}/api/Privacy/GetResourcePrivacy?resourceId=100`, headers: await auth(CALLERS.team) },
        ceiling,
      ),
    );
  }
  let saveVisible: string[] = ['n/a', 'n/a'];
  let pacedVisible: string[] = ['n/a', 'n/a'];
  if (ONLY.has('saves')) {
    const headers = { 'x-directory-token': secrets.DIRECTORY_SYNC_TOKEN };
    const metrics = async () => (await fetch(`${service.url}/internal/metrics`, { headers })).text();
    // First at a pace the machine keeps up with, so that save to visible is the path's own
    // latency (its round trips and wake-ups), not the queue of a saturated machine; then saturated.
    const beforePaced = await metrics();
    results.push(
      await paced(
        `SaveProjectResource (create), one client, ${PACED_SAVES_PER_SECOND}/s (ms to a tenth)`,
        savesRequest(service.url, await auth(CALLERS.team), small),
        PACED_SAVES_PER_SECOND,
      ),
    );
    const beforeSaturated = await metrics();
    pacedVisible = histogramQuantiles(beforePaced, beforeSaturated, 'write_visible_seconds', [0.5, 0.99]);
    results.push(
      await load(
        'SaveProjectResource (create), 16 clients',
        savesRequest(service.url, await auth(CALLERS.team), small),
      ),
    );
    saveVisible = histogramQuantiles(beforeSaturated, await metrics(), 'write_visible_seconds', [0.5, 0.99]);
  }
  const loadedRss = rssMb(service.child.pid ?? 0);

  const measures: string[] = [];
  if (ONLY.has('rebuild')) {
    // The operator's blue/green rebuild (resources-cli rebuild, its own process): with the service
    // idle, QUIET_REBUILDS times (one run is one sample of a machine whose speed drifts by a third),
    // then while it keeps answering lists, to see what it does to their latency.
    const quietRebuilds: { events: number; seconds: number }[] = [];
    for (let run = 0; run < QUIET_REBUILDS; run++) quietRebuilds.push(await cliRebuild(env));
    const rates = quietRebuilds.map((r) => r.events / r.seconds).sort((a, b) => a - b);
    const quietRebuild = quietRebuilds[0] ?? { events: 0, seconds: 0 };
    const listOptions = { duration: 3600, connections: CONNECTIONS, ...(await listRequest(CALLERS.member, big)) };
    let listLoad: autocannon.Instance | undefined;
    const listDone = new Promise<autocannon.Result>((resolve, reject) => {
      listLoad = autocannon(listOptions, (error, result) => (error ? reject(error) : resolve(result)));
    });
    const rebuilt = await cliRebuild(env);
    listLoad?.stop();
    const during = {
      ...combined([await listDone]),
      scenario: `GetResourceList, ${viewSize}-resource view, member, during a blue/green rebuild (CLI, own process)`,
    };
    results.push(during);
    measures.push(
      `| full blue/green rebuild (${quietRebuild.events} events, \`resources-cli rebuild\`, service idle), median of ${QUIET_REBUILDS} (slowest–fastest) | ${Math.round(rates[Math.floor(rates.length / 2)] ?? 0)} events/s (${Math.round(rates[0] ?? 0)}–${Math.round(rates.at(-1) ?? 0)}); ${quietRebuilds.map((r) => r.seconds.toFixed(2)).join(', ')} s |`,
      `| the same while the service answers lists (50 connections) | ${rebuilt.seconds.toFixed(1)} s, ${Math.round(rebuilt.events / rebuilt.seconds)} events/s |`,
      ...(quietList
        ? [
            `| list p99 during the rebuild / quiet (member, ${viewSize}-resource view) | ${during.p99} ms / ${quietList.p99} ms = ${(during.p99 / Math.max(1, quietList.p99)).toFixed(1)}× |`,
          ]
        : []),
    );
  }
  await stopService(service.child);

  if (ONLY.has('varied')) {
    service = await startService({ ...env, READ_MEMO: 'off' });
    await varied('off');
    await stopService(service.child);
  }

  if (ONLY.has('soak') && SOAK_SECONDS > 0) {
    service = await startService(env);
    const samples = await soak(service, SOAK_SECONDS, { scale, token, listBody, big, saveAs: auth });
    await stopService(service.child);
    measures.push(`| RSS during a ${SOAK_SECONDS} s varied soak, every 10 s (MB) | ${samples.join(', ')} |`);
  }
  bare.child.kill('SIGTERM');

  const cell = (r: Result, value: (m: Measured) => string) => (r.noop ? value(r.noop) : '—');
  const lines = [
    `### ${SCALE_NAME}: ${reused ? 'a kept data set' : `${resources.toLocaleString('en')} resources`}, ${scale.users.toLocaleString('en')} users, ${scale.projects} projects, ${scale.communities} communities`,
    '',
    `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}, ${BACKEND}, ${SECONDS} s per scenario (read scenarios in ${ROUNDS} slices, each after a slice of the bare Express no-op, their ceiling), ${CONNECTIONS} connections unless stated.`,
    '',
    '| scenario | req/s | ceiling req/s, between its slices | share of the ceiling | p50 ms | p99 ms | ceiling p99 ms | p99 / ceiling p99 | errors |',
    '|---|---|---|---|---|---|---|---|---|',
    ...results.map(
      (r) =>
        `| ${r.scenario} | ${r.rps} | ${cell(r, (n) => String(n.rps))} | ${cell(r, (n) => `${Math.round((100 * r.rps) / n.rps)}%`)} | ${r.p50} | ${r.p99} | ${cell(r, (n) => String(n.p99))} | ${cell(r, (n) => `${(r.p99 / Math.max(1, n.p99)).toFixed(1)}×`)} | ${r.errors} |`,
    ),
    '',
    '| measure | value |',
    '|---|---|',
    ...(reused
      ? []
      : [`| seeding through the commands (in process) | ${Math.round(resources / seedSeconds)} resources/s |`]),
    `| restart to ready, after ${reused ? 'the previous run' : 'the seed'} | ${first.readyMs} ms |`,
    `| restart to ready, after a clean stop | ${service.readyMs} ms |`,
    ...measures,
    `| RSS idle after start / after the lists, saves and rebuild | ${idleRss} MB / ${loadedRss} MB |`,
    ...rss,
    `| save to visible at ${PACED_SAVES_PER_SECOND} saves/s from one client (append to every read model caught up; \`write_visible_seconds\`), p50 / p99 | ≤ ${pacedVisible[0]} ms / ≤ ${pacedVisible[1]} ms |`,
    `| save to visible, 16 clients saving as fast as they can, p50 / p99 | ≤ ${saveVisible[0]} ms / ≤ ${saveVisible[1]} ms |`,
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  record({
    scale: POSTGRES_URL ? `${SCALE_NAME} PostgreSQL` : SCALE_NAME,
    measured: new Date().toISOString().slice(0, 10),
    machine: `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}, ${BACKEND}`,
    command: `${Object.entries(process.env)
      .filter(([name]) => name.startsWith('BENCH_') || name === 'POSTGRES_URL')
      .map(([name, value]) => `${name}=${value} `)
      .join('')}npm run bench`,
    scenarios: results.map(({ noop: ceiling, scenario, ...r }) => ({
      scenario,
      ...r,
      ...(ceiling
        ? { ceilingRps: ceiling.rps, share: Math.round((1000 * r.rps) / ceiling.rps) / 1000, ceilingP99: ceiling.p99 }
        : {}),
    })),
    measures: lines
      .filter((line) => line.startsWith('| ') && !line.startsWith('| scenario') && !line.startsWith('| measure'))
      .map((line) => line.split(' | '))
      .filter((cells) => cells.length === 2)
      .map(([measure, value]) => ({ measure: (measure ?? '').slice(2), value: (value ?? '').slice(0, -2) })),
  });
  if (process.env.BENCH_KEEP || reused)
    log(`kept ${dataDir}${backend.POSTGRES_SCHEMA ? ` and ${backend.POSTGRES_SCHEMA}` : ''}`);
  else {
    fs.rmSync(dataDir, { recursive: true, force: true });
    if (POSTGRES_URL && backend.POSTGRES_SCHEMA) await dropBenchSchemas(POSTGRES_URL, backend.POSTGRES_SCHEMA);
  }
}

/** This run in place of the previous one of its scale in BENCH_JSON (docs/benchmarks/latest.json); the charts again. */
function record(run: BenchRun): void {
  const file = process.env.BENCH_JSON ?? LATEST;
  if (file === 'none') return;
  const previous = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as BenchFile) : undefined;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(withRun(previous, run), null, 2)}\n`);
  log(`recorded in ${file}`);
  for (const drawn of plotBenchmarks(file)) log(`drew ${drawn}`);
}

/**
 * The varied soak: many callers asking random pages of the big and small views, privacy reads and
 * saves on the same view and elsewhere, for `seconds`, the service's RSS sampled every 10 s.
 */
async function soak(
  service: { child: ChildProcess; url: string },
  seconds: number,
  deps: {
    scale: Scale;
    token: (userId: number) => Promise<string>;
    listBody: (body: object) => string;
    big: object;
    saveAs: (userId: number) => Promise<Record<string, string>>;
  },
): Promise<number[]> {
  const random = randomSequence(3);
  const callers = Array.from({ length: Math.min(5_000, deps.scale.users) }, (_, i) => i + 1);
  const bearer = new Map<number, string>();
  for (const userId of callers) bearer.set(userId, await deps.token(userId));
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const lists = variedRequest({ url: `${service.url}/api/Project/GetResourceList`, method: 'POST' }, () => {
    const userId = pick(callers);
    const projectId = random() < 0.5 ? VIEWS.hotProject : 1 + Math.floor(random() * deps.scale.projects);
    const body =
      projectId === VIEWS.hotProject
        ? { ...deps.big, skip: 20 * Math.floor(random() * 100) }
        : { projectId, communityId: communityOf(deps.scale, projectId) };
    return {
      headers: { authorization: `Bearer ${bearer.get(userId)}`, 'content-type': 'application/json' },
      body: deps.listBody(body),
    };
  });
  const writes = startWriteLoad(SAVES_PER_SECOND, async (i) => {
    const projectId = i % 2 === 0 ? VIEWS.hotProject : 3 + (i % (deps.scale.projects - 2));
    return landSave(service.url, deps.scale, projectId, i, await deps.saveAs(teamOf(deps.scale, projectId)));
  });
  const samples: number[] = [];
  const sampler = setInterval(() => samples.push(rssMb(service.child.pid ?? 0)), 10_000);
  await run(lists, seconds);
  clearInterval(sampler);
  await writes.stop();
  return samples;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

/**
 * `npm run bench`: the service on its embedded default, in its own process, loaded over loopback
 * HTTP by autocannon from this one. Every read scenario is measured against the no-op route
 * (GET /health/live: the same Express stack, no work) in alternating slices, no-op then scenario,
 * ROUNDS times, and reported as a ratio, with p50/p99. Asserts nothing: speed is measured here,
 * never in tests.
 *
 *   BENCH_SCALE=20k|200k (default 20k)   BENCH_SECONDS=6 (per scenario)   BENCH_CONNECTIONS=50
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { mintSessionToken } from '../src/infra/auth/session-verifier';
import { CALLERS, SCALES, VIEWS, seed } from './scale-data';

const SCALE_NAME = process.env.BENCH_SCALE ?? '20k';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
/**
 * On a shared VM the machine's speed drifts: the no-op alone moved by a third within a minute here.
 * Measured in alternating slices, a scenario and the no-op share the same drift, so their ratio
 * does not depend on which of them happened to run in a slow second.
 */
const ROUNDS = 3;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const QUIET_REBUILDS = 3;
const ROOT = path.join(__dirname, '..');

type Measured = { rps: number; p50: number; p99: number; errors: number };
/** `noop`: the no-op measured in the slices between this scenario's, where it was (read scenarios). */
type Result = Measured & { scenario: string; noop?: Measured };

const log = (line: string) => process.stderr.write(`${line}\n`);

function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

async function startService(env: Record<string, string>): Promise<{ child: ChildProcess; url: string; readyMs: number }> {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const started = performance.now();
  const child = spawn(process.execPath, [path.join(ROOT, 'dist', 'src', 'main.js')], {
    env: { ...process.env, ...env, PORT: String(port), LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
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
    autocannon({ connections: CONNECTIONS, ...options, duration: seconds }, (error, result) => (error ? reject(error) : resolve(result))),
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
    const child = spawn(process.execPath, [path.join(ROOT, 'dist', 'src', 'cli', 'main.js'), 'rebuild'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`rebuild exited with ${code}`));
      resolve(JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as { events: number; seconds: number });
    });
  });
}

/** Upper bounds (ms) of the buckets holding each quantile of a Prometheus histogram. */
function histogramQuantiles(text: string, name: string, quantiles: readonly number[]): string[] {
  const buckets = [...text.matchAll(new RegExp(`^${name}_bucket\\{le="([^"]+)"\\} (\\d+)$`, 'gm'))].map((m) => ({ le: m[1] ?? '', n: Number(m[2]) }));
  const total = buckets.at(-1)?.n ?? 0;
  return quantiles.map((q) => {
    const bucket = buckets.find((b) => b.n >= q * total);
    return bucket === undefined || bucket.le === '+Inf' ? 'n/a' : String(Number(bucket.le) * 1000);
  });
}

async function main(): Promise<void> {
  const scale = SCALES[SCALE_NAME];
  if (!scale) throw new Error(`BENCH_SCALE must be one of ${Object.keys(SCALES).join(', ')}`);
  log('building dist/ ...');
  execFileSync(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', path.join(ROOT, 'tsconfig.build.json')], { stdio: 'inherit' });

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'prs-bench-'));
  const secrets = { AUTH_JWT_SECRET: randomBytes(32).toString('base64url'), DIRECTORY_SYNC_TOKEN: randomBytes(32).toString('base64url') };
  const env = { NODE_ENV: 'test', DATA_DIR: dataDir, ...secrets };

  log(`seeding ${SCALE_NAME} through the commands into ${dataDir} ...`);
  const seedStarted = performance.now();
  const resources = await seed(dataDir, scale, secrets.AUTH_JWT_SECRET, secrets.DIRECTORY_SYNC_TOKEN, log);
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  log(`  ${resources} resources in ${seedSeconds.toFixed(1)} s`);

  // Two restarts: the first after the seed process, the second after a clean stop.
  const first = await startService(env);
  await stopService(first.child);
  const service = await startService(env);
  const idleRss = rssMb(service.child.pid ?? 0);
  const token = (userId: number) => mintSessionToken(secrets.AUTH_JWT_SECRET, { userId });
  const auth = async (userId: number) => ({ authorization: `Bearer ${await token(userId)}`, 'content-type': 'application/json' });
  const noop = { url: `${service.url}/health/live` };
  /** A GetResourceList body: 20 records, most recent first, `body` saying which. */
  const listBody = (body: object) => JSON.stringify({ take: 20, orderBy: 1, ...body });
  const listRequest = async (userId: number, body: object) =>
    ({ url: `${service.url}/api/Project/GetResourceList`, method: 'POST', headers: await auth(userId), body: listBody(body) }) as const;
  const list = async (scenario: string, userId: number, body: object) => versusNoop(scenario, await listRequest(userId, body), noop);
  const big = { projectId: VIEWS.hotProject, communityId: VIEWS.hotCommunity };
  const small = { projectId: VIEWS.smallProject, communityId: VIEWS.hotCommunity };

  const results: Result[] = [];
  results.push(await load('no-op route (GET /health/live), alone', noop));
  const quietList = await list('GetResourceList, 4,000-resource view, member', CALLERS.member, big);
  results.push(quietList);
  results.push(await list('GetResourceList, 4,000-resource view, team', CALLERS.team, big));
  results.push(await list('GetResourceList, 4,000-resource view, admin', CALLERS.admin, big));
  results.push(await list('GetResourceList, 4,000-resource view, outsider', CALLERS.outsider, big));
  results.push(await list('GetResourceList, 4,000-resource view, member, skip 1000', CALLERS.member, { ...big, skip: 1000 }));
  results.push(await list('GetResourceList, 4,000-resource view, member, concept search', CALLERS.member, { ...big, concept: 'number 39' }));
  results.push(await list('GetResourceList, 32-resource view, member', CALLERS.member, small));
  // The answers above repeat, so after the first their text comes from the answer memo. Here each
  // request asks another of 1,000 pages, more text than the memo keeps: every answer is built
  // and serialised (the rows of a page still come from the store's memo after the first round).
  let nextSkip = 0;
  results.push(
    await versusNoop(
      'GetResourceList, 4,000-resource view, member, another of 1,000 pages at each request (answer built every time)',
      { ...(await listRequest(CALLERS.member, big)), requests: [{ setupRequest: (request) => ({ ...request, body: listBody({ ...big, skip: nextSkip++ % 1000 }) }) }] },
      noop,
    ),
  );
  results.push(
    await versusNoop('GetResourcePrivacy, team', { url: `${service.url}/api/Privacy/GetResourcePrivacy?resourceId=100`, headers: await auth(CALLERS.team) }, noop),
  );
  const save = await load('SaveProjectResource (create), 16 clients', {
    url: `${service.url}/api/Resource/SaveProjectResource`,
    method: 'POST',
    connections: 16,
    headers: await auth(CALLERS.team),
    body: JSON.stringify({ id: 0, name: 'Bench save', resourceUrl: 'https://example.org/bench.pdf', privacyLevel: 2, ...small }),
  });
  results.push(save);
  const loadedRss = rssMb(service.child.pid ?? 0);

  const headers = { 'x-directory-token': secrets.DIRECTORY_SYNC_TOKEN };
  const metrics = await (await fetch(`${service.url}/internal/metrics`, { headers })).text();
  const visible = histogramQuantiles(metrics, 'write_visible_seconds', [0.5, 0.99]);
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
  const duringRebuild = await listDone;
  const during = { ...combined([duringRebuild]), scenario: 'GetResourceList, 4,000-resource view, member, during a blue/green rebuild (CLI, own process)' };
  results.push(during);
  await stopService(service.child);

  const cell = (r: Result, value: (m: Measured) => string) => (r.noop ? value(r.noop) : '—');
  const lines = [
    `### ${SCALE_NAME}: ${resources.toLocaleString('en')} resources, ${scale.users.toLocaleString('en')} users, ${scale.projects} projects, ${scale.communities} communities`,
    '',
    `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}, embedded default (SQLite event store and read models), ${SECONDS} s per scenario (read scenarios in ${ROUNDS} slices, each after a slice of the no-op), ${CONNECTIONS} connections unless stated.`,
    '',
    '| scenario | req/s | no-op req/s, between its slices | share of no-op | p50 ms | p99 ms | no-op p99 ms | p99 / no-op p99 | errors |',
    '|---|---|---|---|---|---|---|---|---|',
    ...results.map(
      (r) =>
        `| ${r.scenario} | ${r.rps} | ${cell(r, (n) => String(n.rps))} | ${cell(r, (n) => `${Math.round((100 * r.rps) / n.rps)}%`)} | ${r.p50} | ${r.p99} | ${cell(r, (n) => String(n.p99))} | ${cell(r, (n) => `${(r.p99 / Math.max(1, n.p99)).toFixed(1)}×`)} | ${r.errors} |`,
    ),
    '',
    '| measure | value |',
    '|---|---|',
    `| seeding through the commands (in process) | ${Math.round(resources / seedSeconds)} resources/s |`,
    `| restart to ready, after the seed | ${first.readyMs} ms |`,
    `| restart to ready, after a clean stop | ${service.readyMs} ms |`,
    `| full blue/green rebuild (${quietRebuild.events} events, \`resources-cli rebuild\`, service idle), median of ${QUIET_REBUILDS} (slowest–fastest) | ${Math.round(rates[Math.floor(rates.length / 2)] ?? 0)} events/s (${Math.round(rates[0] ?? 0)}–${Math.round(rates.at(-1) ?? 0)}); ${quietRebuilds.map((r) => r.seconds.toFixed(2)).join(', ')} s |`,
    `| the same while the service answers lists (50 connections) | ${rebuilt.seconds.toFixed(1)} s, ${Math.round(rebuilt.events / rebuilt.seconds)} events/s |`,
    `| list p99 during the rebuild / quiet (member, 4,000-resource view) | ${during.p99} ms / ${quietList.p99} ms = ${(during.p99 / Math.max(1, quietList.p99)).toFixed(1)}× |`,
    `| RSS idle after start / after the load | ${idleRss} MB / ${loadedRss} MB |`,
    `| save to visible (append to every read model caught up; \`write_visible_seconds\`), p50 / p99 | ≤ ${visible[0]} ms / ≤ ${visible[1]} ms |`,
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  if (process.env.BENCH_KEEP) log(`kept ${dataDir}`);
  else fs.rmSync(dataDir, { recursive: true, force: true });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

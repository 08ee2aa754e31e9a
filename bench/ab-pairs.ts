/**
 * Two builds of the service side by side on a shared, noisy machine (`npx tsx bench/ab-pairs.ts`):
 * each runs as its own process on its own copy of one seeded data set, and one varied scenario
 * is measured on them in alternating slices (A, B, then B, A, …), each slice after a slice of the
 * bare Express ceiling. Per slice: the share of the ceiling, p99, and the service's CPU time per
 * request (/proc/<pid>/stat, all its threads), which moves far less with the neighbours' load
 * than req/s does. At the end: RSS and heap of each side. Asserts nothing.
 *
 *   AB_DATA      a data set kept by `BENCH_KEEP=1 npm run bench` (its bench-secrets.json is read)
 *   AB_A, AB_B   build directories under the repository (default dist-base, dist), e.g. made with
 *                `npx tsc -p tsconfig.build.json --outDir dist-base` on the commit to compare with
 *   AB_FLAGS_A, AB_FLAGS_B   node options of each side, after those of `npm start` (e.g. --cpu-prof
 *                --cpu-prof-dir=...; `-r ./bench/unchained-log.cjs`: that side's log appends without
 *                the hash chain, to measure what the chain costs saves)
 *   AB_SCENARIO  random-same | random-else | random-none (550 callers × a random page of the first
 *                100, saves on the same view, elsewhere, none) | first5k-else (5,000 callers × the
 *                first page, saves elsewhere) | apikey | bearer (one community admin repeating one
 *                list, with an API key or with a bearer token, no saves) | search (a member repeating
 *                one free-text search of the view, no saves) | privacy (GetResourcePrivacy of a random
 *                resource a member sees in the view, by a random member, the team or the admin, no
 *                saves) | saves (SaveProjectResource
 *                creating resources, 16 clients: its CPU per request is a save's); AB_MEMO on|off (default
 *                off: READ_MEMO=off); AB_MEMO_A, AB_MEMO_B one side's own (e.g. one build, memos on
 *                against off)
 *   AB_PAIRS (4), AB_SECONDS (5 per slice), AB_ONLY=A|B (one side alone, e.g. to profile it)
 *   AB_BEFORE    scenarios each side serves first, unmeasured, e.g. `first5k-else:20,random-same:20`
 *                (name:seconds): the state a service is in after varied traffic (its memos full,
 *                its heap grown, saves landed), which the whole bench's later scenarios run in
 *   BENCH_SCALE  the data set's scale (20k)
 *
 * A data set kept on PostgreSQL (its bench-secrets.json names POSTGRES_SCHEMA) needs POSTGRES_URL:
 * both sides then serve that one schema, each as a projector of it, so compare read scenarios there.
 * Saves there are compared one build at a time (AB_ONLY=B, AB_B=<build>, alternating runs): with
 * both sides up, the one leading the projections folds both sides' saves.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { serviceNodeFlags } from './service-node-flags';
import { mintSessionToken } from '../src/infra/auth/session-verifier';
import { CALLERS, MANY_CALLERS, SCALES, VIEWS, teamOf } from './scale-data';
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

const ROOT = path.join(__dirname, '..');
const scale = SCALES[process.env.BENCH_SCALE ?? '20k']!;
const DATA = process.env.AB_DATA!;
const SIDES = { A: process.env.AB_A ?? 'dist-base', B: process.env.AB_B ?? 'dist' };
const FLAGS = {
  A: (process.env.AB_FLAGS_A ?? '').split(' ').filter(Boolean),
  B: (process.env.AB_FLAGS_B ?? '').split(' ').filter(Boolean),
};
const PAIRS = Number(process.env.AB_PAIRS ?? 4);
const SECONDS = Number(process.env.AB_SECONDS ?? 5);
const SCENARIO = process.env.AB_SCENARIO ?? 'random-same';
const MEMO = {
  A: process.env.AB_MEMO_A ?? process.env.AB_MEMO ?? 'off',
  B: process.env.AB_MEMO_B ?? process.env.AB_MEMO ?? 'off',
};
const ONLY = process.env.AB_ONLY; // 'A' to run one side only (profiling)
const BEFORE = (process.env.AB_BEFORE ?? '')
  .split(',')
  .filter(Boolean)
  .map((item) => {
    const [name, seconds] = item.split(':');
    return { name: name ?? '', seconds: Number(seconds ?? 10) };
  });

const secrets = JSON.parse(fs.readFileSync(path.join(DATA, 'bench-secrets.json'), 'utf8')) as Record<string, string>;
// Both sides of a PostgreSQL data set follow one log, and whichever leads the projections folds
// the other's saves too: its CPU a save counts both, the follower's neither.
if (SCENARIO === 'saves' && secrets.POSTGRES_SCHEMA && !ONLY)
  throw new Error(
    'saves on a PostgreSQL data set compare only one side at a time: set AB_ONLY and run each build alone',
  );

function cpuTicks(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

const geomean = (xs: readonly number[]): number => Math.exp(xs.reduce((sum, x) => sum + Math.log(x), 0) / xs.length);

function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

/** The service's time in garbage collection so far (prom-client's nodejs_gc_duration_seconds, every kind). */
async function gcSeconds(url: string): Promise<number> {
  const text = await (
    await fetch(`${url}/internal/metrics`, { headers: { 'x-directory-token': secrets.DIRECTORY_SYNC_TOKEN! } })
  ).text();
  let sum = 0;
  for (const match of text.matchAll(/^nodejs_gc_duration_seconds_sum\{[^}]*\} (\S+)$/gm)) sum += Number(match[1]);
  return sum;
}

async function startService(side: 'A' | 'B'): Promise<{ child: ChildProcess; url: string }> {
  const dir = path.join(os.tmpdir(), `prs-ab-${side}`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.cpSync(DATA, dir, { recursive: true });
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const child = spawn(
    process.execPath,
    [...serviceNodeFlags(), ...FLAGS[side], path.join(ROOT, SIDES[side], 'src', 'main.js')],
    {
      env: {
        ...process.env,
        NODE_ENV: 'test',
        SHUTDOWN_LISTEN_SECONDS: '0',
        DATA_DIR: dir,
        RATE_LIMIT_PER_HOUR: '1000000000',
        ...secrets,
        ...(MEMO[side] === 'off' ? { READ_MEMO: 'off' } : {}),
        PORT: String(port),
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/health/ready`)).status === 200) break;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return { child, url };
}

function run(options: autocannon.Options, seconds: number): Promise<autocannon.Result> {
  return new Promise((resolve, reject) =>
    autocannon({ connections: 50, ...options, duration: seconds }, (e, r) => (e ? reject(e) : resolve(r))),
  );
}

async function main(): Promise<void> {
  const tokens = new Map<number, string>();
  const users = [
    CALLERS.admin,
    ...MANY_CALLERS.members,
    ...MANY_CALLERS.outsiders,
    ...Array.from({ length: 5000 }, (_, i) => i + 1),
    CALLERS.team,
  ];
  for (const u of new Set(users)) tokens.set(u, await mintSessionToken(secrets.AUTH_JWT_SECRET!, { userId: u }));
  const auth = (u: number) => ({ authorization: `Bearer ${tokens.get(u)}`, 'content-type': 'application/json' });
  const bare = await startBareExpress();
  const ceiling = bareExpressRequest(bare);
  const sides = (ONLY ? [ONLY] : ['A', 'B']) as ('A' | 'B')[];
  const services: Record<string, { child: ChildProcess; url: string }> = {};
  for (const s of sides) services[s] = await startService(s);
  const big = { projectId: VIEWS.hotProject, communityId: VIEWS.hotCommunity };
  const many = [...MANY_CALLERS.members, ...MANY_CALLERS.outsiders];
  const five = Array.from({ length: 5000 }, (_, i) => i + 1);
  // One API key per side, made by the admin before the slices (the `apikey` scenario).
  const keys: Record<string, string> = {};
  if (SCENARIO === 'apikey')
    for (const s of sides) {
      const created = await fetch(`${services[s]!.url}/api/apikey`, {
        method: 'POST',
        headers: auth(CALLERS.admin),
        body: JSON.stringify({ name: `ab ${s}` }),
      });
      keys[services[s]!.url] = ((await created.json()) as { key: string }).key;
    }
  // The privacy scenario of each side, its resources listed once as it starts.
  const privacy: Record<string, autocannon.Options> = {};
  if (SCENARIO === 'privacy') {
    const random = randomSequence(2);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)] as T;
    for (const s of sides)
      privacy[services[s]!.url] = (
        await privacyReads(services[s]!.url, scale, auth(CALLERS.member), auth, pick)
      ).request;
  }
  const scenario = (url: string, name = SCENARIO): autocannon.Options => {
    if (name === 'privacy') return { ...privacy[url]! };
    if (name === 'saves')
      return savesRequest(url, auth(CALLERS.team), { projectId: VIEWS.smallProject, communityId: VIEWS.hotCommunity });
    const listBody = JSON.stringify({ take: 20, orderBy: 1, ...big });
    if (name === 'apikey' || name === 'bearer')
      return {
        url: `${url}/api/Project/GetResourceList`,
        method: 'POST',
        body: listBody,
        headers:
          name === 'apikey' ? { 'x-api-key': keys[url]!, 'content-type': 'application/json' } : auth(CALLERS.admin),
      };
    if (name === 'search')
      return {
        url: `${url}/api/Project/GetResourceList`,
        method: 'POST',
        body: JSON.stringify({ take: 20, orderBy: 1, ...big, concept: 'number 39' }),
        headers: auth(CALLERS.member),
      };
    const random = randomSequence(2);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)] as T;
    const listUrl = { url: `${url}/api/Project/GetResourceList`, method: 'POST' as const };
    if (name.startsWith('random'))
      return variedRequest(listUrl, () => ({
        headers: auth(pick(many)),
        body: JSON.stringify({ take: 20, orderBy: 1, ...big, skip: 20 * Math.floor(random() * 100) }),
      }));
    return variedRequest(listUrl, () => ({
      headers: auth(pick(five)),
      body: JSON.stringify({ take: 20, orderBy: 1, ...big }),
    }));
  };
  const writesOf = (url: string, name: string) => {
    const where = name.endsWith('same') ? 'same' : name.endsWith('else') ? 'else' : 'none';
    return where === 'none'
      ? undefined
      : startWriteLoad(30, (i) => {
          const projectId = where === 'same' ? VIEWS.hotProject : 3 + (i % (scale.projects - 2));
          return landSave(url, scale, projectId, i, auth(teamOf(scale, projectId)));
        });
  };
  const slice = async (side: 'A' | 'B') => {
    const url = services[side]!.url;
    const writes = writesOf(url, SCENARIO);
    const c = await run(ceiling, SECONDS);
    const pid = services[side]!.child.pid!;
    const gcBefore = await gcSeconds(url);
    const before = cpuTicks(pid);
    const r = await run(scenario(url), SECONDS);
    const cpuUs = ((cpuTicks(pid) - before) * 10_000) / r.requests.total;
    const gcUs = (((await gcSeconds(url)) - gcBefore) * 1e6) / r.requests.total;
    const saved = await writes?.stop();
    return {
      rps: r.requests.average,
      p99: r.latency.p99,
      crps: c.requests.average,
      cp99: c.latency.p99,
      errors: r.errors + r.non2xx,
      saves: saved?.saves ?? 0,
      cpuUs,
      gcUs,
    };
  };
  for (const s of sides)
    for (const before of BEFORE) {
      const writes = writesOf(services[s]!.url, before.name);
      await run(scenario(services[s]!.url, before.name), before.seconds);
      await writes?.stop();
    }
  for (const s of sides) await run(scenario(services[s]!.url), 2); // warm
  const shares: Record<string, number[]> = { A: [], B: [] };
  const cpus: Record<string, number[]> = { A: [], B: [] };
  for (let p = 0; p < PAIRS; p++) {
    const order = p % 2 === 0 ? sides : [...sides].reverse();
    const line: string[] = [];
    for (const s of order) {
      const m = await slice(s);
      const share = m.rps / m.crps;
      shares[s]!.push(share);
      cpus[s]!.push(m.cpuUs);
      line.push(
        `${s}: ${Math.round(m.rps)} / ${Math.round(m.crps)} = ${(100 * share).toFixed(1)}% p99 ${m.p99} (ceil ${m.cp99}, ${(m.p99 / m.cp99).toFixed(1)}x) err ${m.errors} saves ${m.saves} cpu ${Math.round(m.cpuUs)} us/req (gc ${Math.round(m.gcUs)})`,
      );
    }
    process.stdout.write(`pair ${p}: ${line.join(' | ')}\n`);
  }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  for (const s of sides) {
    const text = await (
      await fetch(`${services[s]!.url}/internal/metrics`, {
        headers: { 'x-directory-token': secrets.DIRECTORY_SYNC_TOKEN! },
      })
    ).text();
    const metric = (name: string) =>
      Math.round(Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? 0) / 1048576);
    process.stdout.write(
      `${s} metrics: rss ${metric('process_resident_memory_bytes')} heapTotal ${metric('nodejs_heap_size_total_bytes')} heapUsed ${metric('nodejs_heap_size_used_bytes')} external ${metric('nodejs_external_memory_bytes')} MB\n`,
    );
  }
  for (const s of sides)
    process.stdout.write(
      `${s} (${SIDES[s]} ${FLAGS[s].join(' ')}): median share ${(100 * med(shares[s]!)).toFixed(1)}% median cpu ${Math.round(med(cpus[s]!))} us/req RSS ${rssMb(services[s]!.child.pid!)} MB\n`,
    );
  if (sides.length === 2)
    process.stdout.write(
      `B/A share per pair: ${shares.B!.map((b, i) => (b / shares.A![i]!).toFixed(3)).join(' ')}; cpu: ${cpus.B!.map((b, i) => (b / cpus.A![i]!).toFixed(3)).join(' ')}\n` +
        // Which side runs first in a pair alternates; with an even number of pairs the geometric
        // mean of the ratios cancels what running first or second does to a side.
        `B/A geometric mean: share ${geomean(shares.B!.map((b, i) => b / shares.A![i]!)).toFixed(3)}, cpu ${geomean(cpus.B!.map((b, i) => b / cpus.A![i]!)).toFixed(3)}\n`,
    );
  for (const s of sides) {
    const exited = new Promise((r) => services[s]!.child.once('exit', r));
    services[s]!.child.kill('SIGTERM');
    await exited;
  }
  bare.child.kill('SIGTERM');
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});

/**
 * `npx tsx bench/api-key-bench.ts`: what API-key authentication costs, measured over real HTTP.
 * The service runs here on its embedded default; autocannon runs in a separate process. Asserts
 * nothing (speed is measured here, never in tests). BENCH_SECONDS (default 5) per scenario.
 *
 *  1. the ceiling: GET /health/live, which does nothing;
 *  2. GET /api/user/getcurrent with a bearer token vs the same with a cached X-API-Key;
 *  3. POST /api/Project/GetResourceList, bearer vs key (target: key ≥ 90% of bearer);
 *  4. a flood of 10,000 wrong-secret requests for a real key id while another caller's p99 is
 *     measured, and the real key's quota checked before and after;
 *  5. argon2id (19 MiB, t=2, p=1) verify time, and the cached authentication path in process;
 *  6. a first-use burst: 50 requests at once with a key never used before: their
 *     statuses, latencies, and the argon2 runs they cost (the service's own metric).
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Request, Response } from 'express';
import { ApiKeyVerifier } from '../src/api-keys/api-key-authenticator';
import { newSecret } from '../src/api-keys/api-key-format';
import { argon2Hasher } from '../src/infra/auth/secret-hasher';
import { demo, demoDirectory } from '../test/support/demo-directory';
import { startTestServer } from '../test/support/test-server';

const run = promisify(execFile);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 10;
const AUTOCANNON = path.join(__dirname, '..', 'node_modules', 'autocannon', 'autocannon.js');

type Result = {
  requests: { average: number };
  latency: { p50: number; p99: number; average: number };
  non2xx: number;
  '2xx': number;
};
type Row = { scenario: string; reqPerSec: number; meanMs: number; p50Ms: number; p99Ms: number; non2xx: number };

async function cannon(
  url: string,
  options: { headers?: Record<string, string>; method?: string; body?: string; amount?: number; connections?: number },
): Promise<Result> {
  const args = [AUTOCANNON, '-j', '-n', '-c', String(options.connections ?? CONNECTIONS)];
  args.push(...(options.amount ? ['-a', String(options.amount)] : ['-d', String(SECONDS)]));
  if (options.method) args.push('-m', options.method);
  if (options.body) args.push('-b', options.body);
  for (const [k, v] of Object.entries(options.headers ?? {})) args.push('-H', `${k}=${v}`);
  args.push(url);
  const { stdout } = await run(process.execPath, args, { maxBuffer: 16 * 1024 * 1024 });
  return JSON.parse(stdout) as Result;
}

const row = (scenario: string, r: Result): Row => ({
  scenario,
  reqPerSec: Math.round(r.requests.average),
  meanMs: Math.round(r.latency.average * 1000) / 1000,
  p50Ms: r.latency.p50,
  p99Ms: r.latency.p99,
  non2xx: r.non2xx,
});

async function main(): Promise<void> {
  const server = await startTestServer({ LOG_LEVEL: 'silent', RATE_LIMIT_PER_HOUR: '1000000000', API_KEY_CAP: '100' });
  try {
    await server.directory(demoDirectory.events);
    const bearer = await server.token(demo.users.admin1);
    const created = await server.post('/api/apikey', { name: 'bench' }, { token: bearer });
    const other = await server.post('/api/apikey', { name: 'victim' }, { token: bearer });
    if (created.status !== 200 || other.status !== 200)
      throw new Error(`key creation failed: ${created.status} ${created.text}`);
    const key = created.body.key as string;
    const victim = other.body as { id: number; key: string; keyId: string };
    await server.get('/api/user/getcurrent', { apiKey: key }); // verified once, cached from here on
    await server.get('/api/user/getcurrent', { apiKey: victim.key });
    for (let i = 0; i < 20; i++) {
      await server.post(
        '/api/Resource/SaveProjectResource',
        {
          id: 0,
          name: `r${i}`,
          resourceUrl: `https://example.org/${i}.pdf`,
          privacyLevel: 1,
          communityProjectId: demo.communityProjects.solarIn1,
        },
        { token: await server.token(demo.users.team) },
      );
    }
    const rows: Row[] = [];
    const current = `${server.url}/api/user/getcurrent`;
    rows.push(row('GET /health/live (no-op ceiling)', await cannon(`${server.url}/health/live`, {})));
    rows.push(row('getcurrent, bearer', await cannon(current, { headers: { authorization: `Bearer ${bearer}` } })));
    rows.push(row('getcurrent, X-API-Key (cached)', await cannon(current, { headers: { 'x-api-key': key } })));
    const list = {
      method: 'POST',
      body: JSON.stringify({ projectId: demo.projects.solar, communityId: demo.communities.public1, take: 20 }),
    };
    const json = { 'content-type': 'application/json' };
    rows.push(
      row(
        'GetResourceList, bearer',
        await cannon(`${server.url}/api/Project/GetResourceList`, {
          ...list,
          headers: { ...json, authorization: `Bearer ${bearer}` },
        }),
      ),
    );
    rows.push(
      row(
        'GetResourceList, X-API-Key',
        await cannon(`${server.url}/api/Project/GetResourceList`, { ...list, headers: { ...json, 'x-api-key': key } }),
      ),
    );

    // The flood: 10,000 wrong secrets for the victim's real key id, while the bench key's caller is measured.
    const before = (await server.get('/api/user/getcurrent', { apiKey: victim.key })).headers.get(
      'ratelimit-remaining',
    );
    const wrong = `${victim.keyId}.${newSecret(victim.keyId, randomBytes)}`;
    const baseline = await cannon(current, { headers: { 'x-api-key': key }, connections: 5 });
    const [flood, during] = await Promise.all([
      cannon(current, { headers: { 'x-api-key': wrong }, amount: 10_000, connections: 5 }),
      cannon(current, { headers: { 'x-api-key': key }, connections: 5 }),
    ]);
    const after = (await server.get('/api/user/getcurrent', { apiKey: victim.key })).headers.get('ratelimit-remaining');
    rows.push(row('other caller alone (5 conn)', baseline));
    rows.push(row('other caller during the flood (5 conn)', during));
    rows.push(row('flood: 10,000 wrong secrets, one key id (5 conn)', flood));

    console.table(rows);
    const p = (name: string) => rows.find((r) => r.scenario === name);
    const added = (p('getcurrent, X-API-Key (cached)')?.meanMs ?? 0) - (p('getcurrent, bearer')?.meanMs ?? 0);
    const ratio = (p('GetResourceList, X-API-Key')?.reqPerSec ?? 0) / (p('GetResourceList, bearer')?.reqPerSec ?? 1);
    console.log(`key auth vs bearer, mean latency difference over HTTP: ${added.toFixed(3)} ms`);
    console.log(`GetResourceList throughput by key / by bearer: ${(ratio * 100).toFixed(1)}%`);
    console.log(
      `flood answers: ${flood['2xx']} 2xx, ${flood.non2xx} non-2xx; victim key remaining before ${before}, after ${after} (one request each)`,
    );

    // argon2id verify time, and the cached path measured in process (no HTTP around it).
    const secret = newSecret(victim.keyId, randomBytes);
    const hash = await argon2Hasher.hash(secret);
    const runs: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t = performance.now();
      await argon2Hasher.verify(hash, secret);
      runs.push(performance.now() - t);
    }
    runs.sort((a, b) => a - b);
    console.log(
      `argon2id verify (19 MiB, t=2, p=1), 20 runs: median ${runs[10]?.toFixed(1)} ms, max ${runs.at(-1)?.toFixed(1)} ms`,
    );

    // The first-use burst: every request arrives before the key is verified anywhere.
    const fresh = await server.post('/api/apikey', { name: 'burst' }, { token: bearer });
    const argon2Runs = async () =>
      (await server.services.metrics.apiKeyVerifications.get()).values
        .filter((v) => v.labels.outcome !== 'busy')
        .reduce((n, v) => n + v.value, 0);
    const runsBefore = await argon2Runs();
    const burstStart = performance.now();
    const burst = await Promise.all(
      Array.from({ length: 50 }, async () => {
        const t0 = performance.now();
        const res = await fetch(current, { headers: { 'x-api-key': fresh.body.key as string } });
        await res.text();
        return { status: res.status, ms: performance.now() - t0 };
      }),
    );
    const burstMs = performance.now() - burstStart;
    const ms = burst.map((b) => b.ms).sort((a, b) => a - b);
    const statuses = Object.entries(
      burst.reduce<Record<number, number>>((n, b) => ({ ...n, [b.status]: (n[b.status] ?? 0) + 1 }), {}),
    );
    console.log(
      `first-use burst, 50 at once: ${statuses.map(([s, n]) => `${n} × ${s}`).join(', ')}; argon2 runs ${(await argon2Runs()) - runsBefore}; ` +
        `p50 ${ms[24]?.toFixed(1)} ms, p99 ${ms[49]?.toFixed(1)} ms, all answered in ${burstMs.toFixed(1)} ms`,
    );

    const verifier = new ApiKeyVerifier({
      store: server.services.stores.apiKeys,
      cache: server.services.cache,
      hasher: argon2Hasher,
      clock: () => new Date(),
      logger: server.services.logger,
      limitPerHour: 1_000_000_000,
    });
    const req = { socket: { remoteAddress: '127.0.0.1' } } as unknown as Request;
    const res = { setHeader: () => undefined } as unknown as Response;
    await verifier.authenticate(key, req, res);
    const n = 20_000;
    const t = performance.now();
    for (let i = 0; i < n; i++) await verifier.authenticate(key, req, res);
    console.log(
      `cached X-API-Key authentication in process (parse, row lookup, cache hit, quota): ${(((performance.now() - t) / n) * 1000).toFixed(1)} µs per request`,
    );
  } finally {
    await server.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

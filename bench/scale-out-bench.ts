/**
 * `npx tsx bench/scale-out-bench.ts`: two API processes and a projector (plus a standby) on one
 * DATA_DIR. Measures save→visible on the other API process (a save through api1, then a list
 * through api2 that must show it), concurrent lists through api2 meanwhile, and the takeover time
 * when the projector is killed with SIGKILL. Asserts nothing.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { mintSessionToken } from '../src/infra/auth/session-verifier';
import { demo, demoDirectory } from '../test/support/demo-directory';
import { percentile } from './percentile';

const ROOT = path.join(__dirname, '..');
const SAVES = Number(process.env.BENCH_SAVES ?? 400);

type Proc = { child: ChildProcess; url: string };

async function start(env: Record<string, string>, role: string): Promise<Proc> {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const child = spawn(process.execPath, [path.join(ROOT, 'dist', 'src', 'main.js')], {
    env: { ...process.env, ...env, ROLE: role, PORT: String(port), LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    try {
      if ((await fetch(`${url}/health/ready`)).status === 200) return { child, url };
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function main(): Promise<void> {
  execFileSync(
    process.execPath,
    [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', path.join(ROOT, 'tsconfig.build.json')],
    { stdio: 'inherit' },
  );
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'prs-scale-bench-'));
  const env = {
    NODE_ENV: 'test',
    DATA_DIR: dataDir,
    AUTH_JWT_SECRET: randomBytes(32).toString('hex'),
    DIRECTORY_SYNC_TOKEN: randomBytes(32).toString('hex'),
  };
  const projector = await start(env, 'projector');
  const standby = await start(env, 'projector');
  const api1 = await start(env, 'api');
  const api2 = await start(env, 'api');
  const internal = { 'content-type': 'application/json', 'x-directory-token': env.DIRECTORY_SYNC_TOKEN };
  await fetch(`${api1.url}/internal/directory/events`, {
    method: 'POST',
    headers: internal,
    body: JSON.stringify(demoDirectory),
  });
  const headers = {
    'content-type': 'application/json',
    authorization: `Bearer ${await mintSessionToken(env.AUTH_JWT_SECRET, { userId: demo.users.team })}`,
  };
  const listBody = JSON.stringify({
    projectId: demo.projects.solar,
    communityId: demo.communities.public1,
    take: 1,
    orderBy: 1,
  });

  // Background readers on api2, as other callers would be.
  let reading = true;
  const readers = Array.from({ length: 4 }, async () => {
    while (reading)
      await fetch(`${api2.url}/api/Project/GetResourceList`, { method: 'POST', headers, body: listBody }).then((r) =>
        r.text(),
      );
  });
  const latencies: number[] = [];
  const saveLatencies: number[] = [];
  let invisible = 0;
  for (let i = 0; i < SAVES; i++) {
    const started = performance.now();
    const saved = (await (
      await fetch(`${api1.url}/api/Resource/SaveProjectResource`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          id: 0,
          name: `r${i}`,
          resourceUrl: 'https://example.org/a.pdf',
          privacyLevel: 3,
          communityProjectId: demo.communityProjects.solarIn1,
        }),
      })
    ).json()) as { id: number };
    saveLatencies.push(performance.now() - started);
    const listed = (await (
      await fetch(`${api2.url}/api/Project/GetResourceList`, { method: 'POST', headers, body: listBody })
    ).json()) as { resources: { list: { id: number }[] } };
    latencies.push(performance.now() - started);
    if (listed.resources.list[0]?.id !== saved.id) invisible += 1;
  }
  reading = false;
  await Promise.all(readers);
  latencies.sort((a, b) => a - b);
  saveLatencies.sort((a, b) => a - b);

  const killedAt = performance.now();
  projector.child.kill('SIGKILL');
  for (;;) {
    const metrics = await (await fetch(`${standby.url}/internal/metrics`, { headers: internal })).text();
    if (/read_model_leading\{projection="resources"\} 1/.test(metrics)) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const takeoverMs = performance.now() - killedAt;
  for (const p of [standby, api1, api2]) p.child.kill('SIGTERM');

  const ms = (v: number) => v.toFixed(1);
  process.stdout.write(
    [
      '| measure (2 API processes, a projector and a standby on one DATA_DIR) | value |',
      '|---|---|',
      `| save through api1, then list through api2: p50 / p99 (${SAVES} rounds, 4 readers on api2) | ${ms(percentile(latencies, 0.5))} / ${ms(percentile(latencies, 0.99))} ms |`,
      `| of which the save through api1 (answered once visible there): p50 / p99 | ${ms(percentile(saveLatencies, 0.5))} / ${ms(percentile(saveLatencies, 0.99))} ms |`,
      `| rounds where api2 did not show the save at once | ${invisible} |`,
      `| takeover after SIGKILL of the projector (standby leading) | ${Math.round(takeoverMs)} ms |`,
      '',
    ].join('\n'),
  );
  fs.rmSync(dataDir, { recursive: true, force: true });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

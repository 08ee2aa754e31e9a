/**
 * `npm run bench`: the service on its embedded default, measured over real HTTP on loopback.
 * Prints throughput and latency percentiles; asserts nothing (speed is measured here, never in
 * tests). Sizes: BENCH_RESOURCES (default 2000), BENCH_REQUESTS (default 2000).
 */
import { demo, demoDirectory } from '../test/support/demo-directory';
import type { TestServer } from '../test/support/test-server';
import { startTestServer } from '../test/support/test-server';

const RESOURCES = Number(process.env.BENCH_RESOURCES ?? 2000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000);
const CONCURRENCY = 8;

type Row = { scenario: string; n: number; perSecond: number; p50: number; p95: number; p99: number };

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

async function measure(scenario: string, n: number, concurrency: number, op: (i: number) => Promise<void>): Promise<Row> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < n; i = next++) {
        const t = performance.now();
        await op(i);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const ms = (v: number) => Math.round(v * 100) / 100;
  return {
    scenario,
    n,
    perSecond: Math.round(n / seconds),
    p50: ms(percentile(latencies, 50)),
    p95: ms(percentile(latencies, 95)),
    p99: ms(percentile(latencies, 99)),
  };
}

async function expectOk(server: TestServer, path: string, body: unknown, token: string): Promise<void> {
  const res = await server.post(path, body, { token });
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.text}`);
}

async function main(): Promise<void> {
  const server = await startTestServer({ LOG_LEVEL: 'silent' });
  try {
    await server.directory(demoDirectory.events);
    const team = await server.token(demo.users.team);
    const member = await server.token(demo.users.member1);
    const admin = await server.token(demo.users.admin1);
    const rows: Row[] = [];

    rows.push(
      await measure(`SaveProjectResource (create, ${CONCURRENCY} clients)`, RESOURCES, CONCURRENCY, (i) =>
        expectOk(server, '/api/Resource/SaveProjectResource', {
          id: 0,
          name: `Bench resource ${i}`,
          description: 'measured',
          resourceUrl: `https://example.org/file-${i}.pdf`,
          privacyLevel: 1 + (i % 3),
          resourceTags: [`tag${i % 10}`],
          communityProjectId: demo.communityProjects.solarIn1,
        }, team),
      ),
    );
    const list = (token: string, extra: object) => () =>
      expectOk(server, '/api/Project/GetResourceList', { projectId: demo.projects.solar, communityId: demo.communities.public1, take: 20, orderBy: 1, ...extra }, token);
    rows.push(await measure(`GetResourceList, member, ${RESOURCES} resources`, REQUESTS, CONCURRENCY, list(member, {})));
    rows.push(await measure(`GetResourceList, admin, skip 1000`, REQUESTS, CONCURRENCY, list(admin, { skip: 1000 })));
    rows.push(await measure(`GetResourceList, concept search`, REQUESTS, CONCURRENCY, list(member, { concept: 'resource 19' })));
    rows.push(
      await measure('directory feed, 10 events per batch', 300, CONCURRENCY, (i) =>
        server
          .directory(
            Array.from({ length: 10 }, (_, k) => ({
              type: 'UserUpserted',
              data: { userId: 100_000 + i * 10 + k, name: `Bench user ${k}`, status: 'active' },
            })),
          )
          .then((res) => {
            if (res.status !== 200) throw new Error(`directory: ${res.status}`);
          }),
      ),
    );
    const headers = { 'x-directory-token': server.services.secrets.directoryToken };
    rows.push(
      await measure('rebuild every read model from position 0', 3, 1, async () => {
        const res = await server.post('/internal/read-models/rebuild', {}, { headers });
        if (res.status !== 200) throw new Error(`rebuild: ${res.status}`);
      }),
    );

    console.log(`\nembedded default (SQLite + in-memory read store), node ${process.version}, loopback HTTP`);
    console.table(rows);
  } finally {
    await server.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

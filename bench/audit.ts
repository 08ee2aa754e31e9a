/**
 * `npm run bench:audit`: the audit API's reads on a large log, over loopback HTTP. Prints
 * latency percentiles; asserts nothing. Sizes: BENCH_RESOURCES (default 20000 resources),
 * BENCH_CHANGES (default 1000 changes of one resource), BENCH_USERS (default 2000 directory users,
 * each an approved member of community 1 and of one circle).
 */
import { demo, demoDirectory } from '../test/support/demo-directory';
import { startTestServer } from '../test/support/test-server';
import { percentile } from './percentile';

const RESOURCES = Number(process.env.BENCH_RESOURCES ?? 20_000);
const CHANGES = Number(process.env.BENCH_CHANGES ?? 1000);
const USERS = Number(process.env.BENCH_USERS ?? 2000);
const REQUESTS = 200;

async function measure(scenario: string, op: () => Promise<void>) {
  const latencies: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const t = performance.now();
    await op();
    latencies.push(performance.now() - t);
  }
  latencies.sort((a, b) => a - b);
  const ms = (v: number) => Math.round(v * 10) / 10;
  return {
    scenario,
    n: REQUESTS,
    p50: ms(percentile(latencies, 0.5)),
    p95: ms(percentile(latencies, 0.95)),
    max: ms(latencies.at(-1) ?? 0),
  };
}

async function main(): Promise<void> {
  const server = await startTestServer({ LOG_LEVEL: 'silent' });
  const ok = (what: string) => (res: { status: number; text: string }) => {
    if (res.status !== 200) throw new Error(`${what}: ${res.status} ${res.text}`);
  };
  try {
    await server.directory(demoDirectory.events).then(ok('demo directory'));
    for (let from = 0; from < USERS; from += 300) {
      const events = Array.from({ length: Math.min(300, USERS - from) }, (_, k) => from + k + 1000).flatMap(
        (userId) => [
          { type: 'UserUpserted', data: { userId, name: `User ${userId}`, status: 'active' } },
          { type: 'CommunityMemberSet', data: { communityId: 1, userId, role: 'member', status: 'approved' } },
          { type: 'CircleMemberSet', data: { circleId: 300, userId } },
        ],
      );
      await server.directory(events).then(ok('directory users'));
    }
    const team = { token: await server.token(demo.users.team) };
    const auditor = { token: await server.token(demo.users.auditor) };
    const save = (id: number, name: string, privacyLevel: number) =>
      server
        .post(
          '/api/Resource/SaveProjectResource',
          {
            id,
            name,
            resourceUrl: `https://example.org/${name}.pdf`,
            privacyLevel,
            communityProjectId: demo.communityProjects.solarIn1,
          },
          team,
        )
        .then((res) => (ok('save')(res), res.body.id as number));

    const started = performance.now();
    for (let i = 0; i < RESOURCES; i += 8) {
      await Promise.all(
        Array.from({ length: Math.min(8, RESOURCES - i) }, (_, k) => save(0, `r${i + k}`, 1 + ((i + k) % 3))),
      );
    }
    const target = await save(0, 'audited', 2);
    let middle = '';
    for (let i = 0; i < CHANGES; i++) {
      await save(target, `audited-${i}`, 2);
      if (i === CHANGES / 2) middle = new Date().toISOString();
    }
    console.log(
      `loaded ${RESOURCES} resources, ${CHANGES} changes of resource ${target}, ${USERS} users in ${Math.round((performance.now() - started) / 1000)} s`,
    );

    const get = (path: string) => () => server.get(path, auditor).then(ok(path));
    const rows = [
      await measure(`history, ${CHANGES + 1} changes`, get(`/api/audit/resources/${target}/history`)),
      await measure(
        `access?at= (middle of its history), ${USERS + 11} users`,
        get(`/api/audit/resources/${target}/access?at=${encodeURIComponent(middle)}`),
      ),
      await measure('access (now)', get(`/api/audit/resources/${target}/access`)),
      await measure('events, stream filter, limit 100', get(`/api/audit/events?stream=resource-${target}&limit=100`)),
      await measure(
        'events, type filter from the start, limit 100',
        get('/api/audit/events?type=ResourceCreated&limit=100'),
      ),
      await measure(
        'events, rare actor (scans 20000 events)',
        get(`/api/audit/events?userId=${demo.users.mentor}&limit=100`),
      ),
    ];
    console.log(`\nembedded default (SQLite), node ${process.version}, loopback HTTP, one client`);
    console.table(rows);
  } finally {
    await server.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

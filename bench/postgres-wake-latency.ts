/**
 * How soon a follower of the PostgreSQL log sees an append: `npx tsx bench/postgres-wake-latency.ts`.
 * One store appends one event at a time (BENCH_APPENDS of them, one every BENCH_PACE_MS); two
 * followers subscribe: another store (another process: woken by LISTEN/NOTIFY, its poll at the
 * default second behind it) and the appending store itself (woken directly after its commit).
 * Prints p50/p99/max of the time from the append's call, and from its answer (the commit
 * acknowledged), to the event's delivery to each follower. Asserts nothing.
 *
 *   POSTGRES_URL (default postgresql://postgres@127.0.0.1:5432/test)   BENCH_APPENDS=1000   BENCH_PACE_MS=5
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { PostgresEventStore } from '../src/infra/postgres/postgres-event-store';
import { percentile } from './percentile';

const URL = process.env.POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';
const APPENDS = Number(process.env.BENCH_APPENDS ?? 1000);
const PACE_MS = Number(process.env.BENCH_PACE_MS ?? 5);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const summary = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return `p50 ${percentile(sorted, 0.5).toFixed(2)} ms, p99 ${percentile(sorted, 0.99).toFixed(2)} ms, max ${sorted.at(-1)!.toFixed(2)} ms`;
};

type Follower = { readonly name: string; readonly deliveredAt: Map<number, number> };

async function main(): Promise<void> {
  const schema = `bench_wake_${randomBytes(4).toString('hex')}`;
  const writer = await PostgresEventStore.connect(URL, { schema });
  const other = await PostgresEventStore.connect(URL, { schema });
  const followers: Follower[] = [
    { name: 'another store (NOTIFY)', deliveredAt: new Map() },
    { name: 'the same store', deliveredAt: new Map() },
  ];
  const subscriptions = [other, writer].map((store, i) =>
    store.subscribeToAll(undefined, async (event) => {
      followers[i]!.deliveredAt.set((event.data as { n: number }).n, performance.now());
    }),
  );
  try {
    await sleep(500); // the followers' LISTEN in place before the first append
    const calledAt = new Map<number, number>();
    const answeredAt = new Map<number, number>();
    for (let n = 0; n < APPENDS; n += 1) {
      calledAt.set(n, performance.now());
      await writer.appendToStream(`s-${n}`, [{ type: 'Happened', data: { n }, metadata: {} as never }], 'no_stream');
      answeredAt.set(n, performance.now());
      await sleep(PACE_MS);
    }
    const deadline = Date.now() + 30_000;
    while (followers.some((f) => f.deliveredAt.size < APPENDS) && Date.now() < deadline) await sleep(10);
    console.log(`PostgreSQL followers' wake latency, ${APPENDS} appends of one event, one every ${PACE_MS} ms`);
    for (const follower of followers) {
      const fromCall: number[] = [];
      const fromAnswer: number[] = [];
      for (const [n, at] of follower.deliveredAt) {
        fromCall.push(at - calledAt.get(n)!);
        fromAnswer.push(at - answeredAt.get(n)!);
      }
      console.log(`${follower.name}: ${follower.deliveredAt.size} delivered`);
      console.log(`  from the append's call:   ${summary(fromCall)}`);
      console.log(`  from the append's answer: ${summary(fromAnswer)}`);
    }
  } finally {
    await Promise.all(subscriptions.map((s) => s.close()));
    await Promise.all([writer.close(), other.close()]);
    const admin = new pg.Client({ connectionString: URL });
    await admin.connect();
    await admin.query(`drop schema if exists "${schema}" cascade`);
    await admin.end();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

/**
 * Appends per second on the PostgreSQL log from 16 clients: `npx tsx bench/postgres-appends.ts`.
 * Every append locks the log's one row until it commits (src/infra/postgres/postgres-event-store.ts,
 * "Global order"), so this measures what that serial section allows. Two shapes, each for
 * BENCH_SECONDS, in a schema of its own that is dropped after:
 *  - processes: 16 stores with one connection each (16 service processes on one database);
 *  - one process: one store, 16 appends in flight on its pool of 16 connections.
 * Each client appends one event (about 400 bytes, as a resource save) to streams of its own, at
 * `no_stream` then at the revision it knows. Prints events/s and the appends' p50/p99. Asserts
 * nothing.
 *
 *   POSTGRES_URL (default postgresql://postgres@127.0.0.1:5432/test)   BENCH_SECONDS=10   BENCH_CLIENTS=16
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { PostgresEventStore } from '../src/infra/postgres/postgres-event-store';
import type { NewEvent } from '../src/ports/event-store';
import { percentile } from './percentile';

const URL = process.env.POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 16);
/** A stream gets this many events before the client moves on to a new one (a resource's life). */
const PER_STREAM = 20;

const saved = (n: number): NewEvent => ({
  type: 'ProjectResourceSaved',
  data: {
    resourceId: n,
    projectId: 42,
    title: 'Quarterly report, second draft',
    url: 'https://example.org/files/quarterly-report-second-draft.pdf',
    description: 'The figures of the second quarter, with the comments of the review.',
    tags: ['report', 'quarterly', 'draft'],
    privacy: { level: 3, shares: [] },
  },
  metadata: { actor: { userId: 7, credential: 'session' }, correlationId: randomBytes(8).toString('hex'), at: '' },
});

async function load(name: string, stores: PostgresEventStore[]): Promise<void> {
  const latencies: number[] = [];
  let events = 0;
  const until = performance.now() + SECONDS * 1000;
  const client = async (c: number) => {
    const store = stores[c % stores.length]!;
    for (let s = 0; performance.now() < until; s += 1) {
      const stream = `resource-${name}-${c}-${s}`;
      for (let i = 0; i < PER_STREAM && performance.now() < until; i += 1) {
        const started = performance.now();
        await store.appendToStream(stream, [saved(i)], i === 0 ? 'no_stream' : BigInt(i - 1));
        latencies.push(performance.now() - started);
        events += 1;
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c)));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  console.log(
    `${name.padEnd(12)} ${Math.round(events / seconds)
      .toString()
      .padStart(
        6,
      )} events/s  (${events} in ${seconds.toFixed(1)} s; an append p50 ${percentile(latencies, 0.5).toFixed(2)} ms, p99 ${percentile(latencies, 0.99).toFixed(2)} ms)`,
  );
}

async function main(): Promise<void> {
  const schema = `bench_appends_${randomBytes(4).toString('hex')}`;
  console.log(`PostgreSQL appends, ${CLIENTS} clients, ${SECONDS} s each, schema ${schema}`);
  try {
    const processes = await Promise.all(
      Array.from({ length: CLIENTS }, () => PostgresEventStore.connect(URL, { schema, poolSize: 1 })),
    );
    await load('processes', processes);
    await Promise.all(processes.map((store) => store.close()));
    const one = await PostgresEventStore.connect(URL, { schema, poolSize: CLIENTS });
    await load('one process', [one]);
    const report = await one.verifyIntegrity();
    console.log(`chain verified over ${report.events} events: ${report.firstMismatch ? 'BROKEN' : 'holds'}`);
    await one.close();
  } finally {
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

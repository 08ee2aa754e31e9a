/**
 * What the hash chain costs appends (the target: at most 10%): `npx tsx bench/hash-chain-bench.ts`.
 * The embedded store with the chain (as served) against the same store with `hashChain: false`,
 * on files in BENCH_DIR (default the OS temp dir), both open side by side and measured in short
 * alternating slices (see compare), reported as the median of the slice pairs' ratios. Three
 * loads: one append at a time (a commit and an fsync each), 64 in flight (group commits), and 64
 * in flight of 10 events each. Asserts nothing. The chain is computed on the log's commit thread,
 * so its steps cannot be timed from this one: the side-by-side comparison is the measure.
 *
 *   BENCH_SLICES=21 (pairs)   BENCH_SERIAL=20 (appends a slice)   BENCH_CONCURRENT=640 (events a slice)
 * BENCH_DIR=/path   BENCH_CALIBRATE=1 (both sides without the chain)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { NewEvent } from '../src/ports/event-store';
import { SqliteEventStore } from '../src/infra/sqlite/sqlite-event-store';
import { hashEventInto } from '../src/audit/log-hash';

const SLICES = Number(process.env.BENCH_SLICES ?? 21);
const SERIAL = Number(process.env.BENCH_SERIAL ?? 20);
const CONCURRENT = Number(process.env.BENCH_CONCURRENT ?? 640);
const DIR = process.env.BENCH_DIR ?? os.tmpdir();
/**
 * BENCH_CALIBRATE=1: both sides without the chain (an A/A run). What it reports as the chain's
 * cost is what the method itself gives two equal stores: the bias and noise to read the real run
 * against.
 */
const CALIBRATE = process.env.BENCH_CALIBRATE === '1';

/** A ResourceCreated as the service writes it: about 700 bytes of data and metadata. */
const event = (i: number): NewEvent => ({
  type: 'ResourceCreated',
  data: {
    resourceId: i,
    scope: { kind: 'communityProject', projectId: 10, communityId: 1, communityProjectId: 1000 },
    paragraphId: null,
    name: `Pitch deck ${i}`,
    description: 'The deck we showed the jury, with the numbers of the second quarter and the plan for the next year.',
    resourceUrl: `https://example.org/decks/${i}.pdf`,
    icon: '',
    tags: ['pitch', 'finance', 'jury'],
    resourceType: 2,
    image: '',
    privacyLevel: 2,
    createdBy: 1,
    createdByMentor: false,
    postDate: '2025-03-01T10:00:00.000Z',
  },
  metadata: {
    actor: { userId: 1, credential: 'session' },
    correlationId: '5c0ffee0-1234-4a5b-8c9d-0123456789ab',
    at: '2025-03-01T10:00:00.000Z',
    clientAddress: '203.0.113.7',
    schemaVersion: 1,
  } as NewEvent['metadata'],
});

type Load = { name: string; perSlice: number; slice: (store: SqliteEventStore, first: number) => Promise<void> };

const LOADS: readonly Load[] = [
  {
    name: 'one append of 1 event at a time (a commit and an fsync each)',
    perSlice: SERIAL,
    slice: async (store, first) => {
      for (let i = 0; i < SERIAL; i += 1)
        await store.appendToStream(`resource-${first + i}`, [event(first + i)], 'no_stream');
    },
  },
  {
    name: '64 appends of 1 event in flight (group commits)',
    perSlice: CONCURRENT,
    slice: (store, first) =>
      inFlight(64, CONCURRENT, (i) => store.appendToStream(`resource-${first + i}`, [event(first + i)], 'no_stream')),
  },
  {
    name: '64 appends of 10 events in flight',
    perSlice: CONCURRENT,
    slice: (store, first) =>
      inFlight(64, CONCURRENT / 10, (i) =>
        store.appendToStream(
          `bulk-${first + i}`,
          Array.from({ length: 10 }, (_, k) => event(first + i * 10 + k)),
          'no_stream',
        ),
      ),
  },
];

async function inFlight(width: number, count: number, one: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await one(next++);
  };
  await Promise.all(Array.from({ length: width }, worker));
}

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

type Timing = { readonly wall: number; readonly cpu: number };

/**
 * µs per event of one slice: wall time, and this process's CPU time (user + system), which the
 * other processes on a shared machine disturb far less than the wall clock.
 */
async function timed(load: Load, store: SqliteEventStore, first: number): Promise<Timing> {
  const began = performance.now();
  const cpu = process.cpuUsage();
  await load.slice(store, first);
  const used = process.cpuUsage(cpu);
  return { wall: ((performance.now() - began) * 1000) / load.perSlice, cpu: (used.user + used.system) / load.perSlice };
}

/**
 * Both stores open side by side; short slices, chain then no chain then no chain then chain...,
 * so that each pair of slices runs within a second or so of each other: the ratio of a pair is
 * taken under one state of the machine, and the median of the pairs' ratios is the figure.
 */
async function compare(load: Load): Promise<{ on: Timing[]; off: Timing[] }> {
  const dir = fs.mkdtempSync(path.join(DIR, 'prs-chain-bench-'));
  const chained = SqliteEventStore.open(path.join(dir, 'chained.sqlite'), { hashChain: !CALIBRATE });
  const plain = SqliteEventStore.open(path.join(dir, 'plain.sqlite'), { hashChain: false });
  const on: Timing[] = [];
  const off: Timing[] = [];
  try {
    await timed(load, chained, 0); // warm-up
    await timed(load, plain, 0);
    for (let slice = 1; slice <= SLICES; slice += 1) {
      const first = slice * 1_000_000;
      if (slice % 2 === 1) {
        on.push(await timed(load, chained, first));
        off.push(await timed(load, plain, first));
      } else {
        off.push(await timed(load, plain, first));
        on.push(await timed(load, chained, first));
      }
    }
    return { on, off };
  } finally {
    await Promise.all([chained.close(), plain.close()]);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** One event's hash as the commit thread computes it (hashEventInto: previous and result as 32 bytes). */
function hashAlone(): number {
  const data = JSON.stringify(event(1).data);
  const metadata = JSON.stringify(event(1).metadata);
  const previous = Buffer.alloc(32);
  const n = 50_000;
  const began = performance.now();
  for (let i = 0; i < n; i += 1)
    hashEventInto(previous, previous, 'resource-1', BigInt(i), 'ResourceCreated', data, metadata);
  return ((performance.now() - began) * 1000) / n;
}

async function main(): Promise<void> {
  const load1 = os.loadavg()[0]?.toFixed(1);
  process.stdout.write(
    `hash chain bench${CALIBRATE ? ' (CALIBRATION: both sides without the chain)' : ''}: ${os.cpus().length} cores, load ${load1}, files in ${DIR}, ${SLICES} slice pairs per load\n`,
  );
  process.stdout.write(`the hash alone: ${hashAlone().toFixed(2)} µs per event\n\n`);
  process.stdout.write(
    '| load | measure | without chain (µs/event, median) | with chain | cost (median of pair ratios) | quartiles |\n',
  );
  process.stdout.write('|---|---|---|---|---|---|\n');
  for (const load of LOADS) {
    const { on, off } = await compare(load);
    for (const measure of ['wall', 'cpu'] as const) {
      const ratios = on.map((x, i) => x[measure] / (off[i]?.[measure] ?? NaN)).sort((a, b) => a - b);
      const q = (f: number) => (ratios[Math.floor((ratios.length - 1) * f)] ?? NaN).toFixed(2);
      const cost = ((median(ratios) - 1) * 100).toFixed(1);
      const [without, withChain] = [median(off.map((t) => t[measure])), median(on.map((t) => t[measure]))];
      process.stdout.write(
        `| ${load.name} | ${measure} | ${without.toFixed(1)} | ${withChain.toFixed(1)} | ${cost}% | ${q(0.25)} – ${q(0.75)} |\n`,
      );
    }
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});

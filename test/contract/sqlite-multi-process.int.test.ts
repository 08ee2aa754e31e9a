/**
 * Several processes on one DATA_DIR (API processes, a projector, the CLI) append to the same
 * SQLite event store. The write lock is the file's: with a busy timeout a writer that finds it
 * taken waits instead of failing with SQLITE_BUSY, and nothing is lost or reordered.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { EventMetadata } from '../../src/domain/event';
import type { RecordedEvent } from '../../src/ports/event-store';
import { SqliteEventStore } from '../../src/infra/sqlite/sqlite-event-store';

const root = path.join(__dirname, '..', '..');
const worker = path.join(root, 'test', 'support', 'sqlite-append-worker.ts');

const ownEvents = 200;
const sharedEvents = 50;
const ownStreams = 10;

type WorkerSummary = { writer: string; conflicts: number; sharedRevisions: string[] };
type Writer = { child: ChildProcess; ready: Promise<void>; done: Promise<WorkerSummary> };

function startWriter(file: string, writer: string): Writer {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', worker, file, writer, String(ownEvents), String(sharedEvents)],
    {
      cwd: root,
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  let signalReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (signalReady = resolve));
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    if (stdout.startsWith('ready\n')) signalReady();
  });
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<WorkerSummary>((resolve, reject) => {
    child.once('exit', (code) => {
      const last = stdout.trim().split('\n').pop() ?? '';
      if (code === 0) resolve(JSON.parse(last) as WorkerSummary);
      else reject(new Error(`writer ${writer} exited with ${code}: ${stderr}`));
    });
  });
  // A writer that dies before it is ready must not leave the test waiting for "ready".
  done.catch(() => signalReady());
  return { child, ready, done };
}

const metadata: EventMetadata = {
  actor: { userId: 1, credential: 'session' },
  correlationId: 'in-process',
  at: new Date(0).toISOString(),
};

function revisions(events: readonly RecordedEvent[]): bigint[] {
  return events.map((e) => e.revision);
}

function zeroTo(n: number): bigint[] {
  return Array.from({ length: n }, (_, i) => BigInt(i));
}

describe('SQLite event store shared by several processes', () => {
  let dir: string;
  let file: string;
  const writers: Writer[] = [];

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sqlite-multi-'));
    file = path.join(dir, 'events.db');
  });

  afterEach(() => {
    for (const w of writers.splice(0)) if (w.child.exitCode === null) w.child.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('given two writer processes appending at once, then every event is stored once, in gap-free revisions', async () => {
    // given
    writers.push(startWriter(file, 'a'), startWriter(file, 'b'));
    await Promise.all(writers.map((w) => w.ready));
    // when
    for (const w of writers) w.child.stdin?.end('go\n');
    const summaries = await Promise.all(writers.map((w) => w.done));
    // then
    const store = SqliteEventStore.open(file);
    try {
      const shared = await store.readStream('shared-counter');
      expect(revisions(shared)).toEqual(zeroTo(2 * sharedEvents));
      for (const writer of ['a', 'b']) {
        const mine = shared.filter((e) => (e.data as { writer: string }).writer === writer);
        expect(mine.map((e) => (e.data as { i: number }).i)).toEqual(Array.from({ length: sharedEvents }, (_, i) => i));
        const acknowledged = summaries.find((s) => s.writer === writer)?.sharedRevisions.map(BigInt);
        expect(revisions(mine)).toEqual(acknowledged);
        let own = 0;
        for (let s = 0; s < ownStreams; s += 1) {
          const stream = await store.readStream(`own-${writer}-${s}`);
          expect(revisions(stream)).toEqual(zeroTo(stream.length));
          own += stream.length;
        }
        expect(own).toBe(ownEvents);
      }
      const all = await store.readAll(undefined, 10_000);
      expect(all).toHaveLength(2 * (ownEvents + sharedEvents));
      const positions = all.map((e) => e.position);
      expect(positions).toEqual([...positions].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)));
      expect(new Set(positions).size).toBe(positions.length);
    } finally {
      await store.close();
    }
  }, 60_000);

  it('given two store instances on one file in one process, when both append, then each reads the other', async () => {
    // given
    const first = SqliteEventStore.open(file);
    const second = SqliteEventStore.open(file);
    try {
      // when
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 === 0 ? first : second).appendToStream(
            `stream-${i}`,
            [{ type: 'Happened', data: { i }, metadata }],
            'no_stream',
          ),
        ),
      );
      // then
      const seenByFirst = await first.readAll(undefined, 100);
      const seenBySecond = await second.readAll(undefined, 100);
      expect(seenByFirst.map((e) => e.streamId).sort()).toEqual(
        Array.from({ length: 20 }, (_, i) => `stream-${i}`).sort(),
      );
      expect(seenBySecond.map((e) => e.position)).toEqual(seenByFirst.map((e) => e.position));
    } finally {
      await first.close();
      await second.close();
    }
  });
});

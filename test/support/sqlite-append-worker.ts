/**
 * One writer process of the SQLite multi-process contract test:
 *   node --import tsx sqlite-append-worker.ts <file> <writer> <ownEvents> <sharedEvents>
 * Opens the event store, prints "ready", waits for "go" on stdin (so that all writers start
 * together), then interleaves `ownEvents` appends to its own streams with `sharedEvents` appends
 * to the one shared stream (with the expected revision, retried on a conflict), and prints a JSON
 * summary as its last line.
 */
import { WrongExpectedRevisionError, type NewEvent } from '../../src/ports/event-store';
import { SqliteEventStore } from '../../src/infra/sqlite/sqlite-event-store';

const sharedStream = 'shared-counter';
const ownStreams = 10;
const ownStream = (writer: string, i: number) => `own-${writer}-${i % ownStreams}`;

type WorkerSummary = { writer: string; conflicts: number; sharedRevisions: string[] };

const metadata = {
  actor: { userId: 1, credential: 'session' as const },
  correlationId: 'multi-process',
  at: new Date(0).toISOString(),
};

async function main(): Promise<void> {
  const [file, writer, ownText, sharedText] = process.argv.slice(2);
  if (!file || !writer) throw new Error('usage: sqlite-append-worker <file> <writer> <ownEvents> <sharedEvents>');
  const ownCount = Number(ownText);
  const sharedCount = Number(sharedText);
  const store = SqliteEventStore.open(file);
  process.stdout.write('ready\n');
  await new Promise<void>((resolve) => process.stdin.once('data', () => resolve()));
  process.stdin.destroy();

  const event = (type: string, data: unknown): NewEvent => ({ type, data, metadata });
  const ownNext = new Map<string, bigint>();
  const summary: WorkerSummary = { writer, conflicts: 0, sharedRevisions: [] };
  const appendShared = async (i: number) => {
    for (;;) {
      const last = await store.readLastEvent(sharedStream);
      try {
        const result = await store.appendToStream(
          sharedStream,
          [event('Counted', { writer, i })],
          last ? last.revision : 'no_stream',
        );
        summary.sharedRevisions.push(String(result.nextExpectedRevision));
        return;
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError)) throw error;
        summary.conflicts += 1;
      }
    }
  };

  const total = ownCount + sharedCount;
  let shared = 0;
  for (let step = 0; step < total; step += 1) {
    // Spread the shared appends evenly among the own ones.
    if (shared < sharedCount && Math.floor(((step + 1) * sharedCount) / total) > shared) {
      await appendShared(shared);
      shared += 1;
      continue;
    }
    const i = step - shared;
    const stream = ownStream(writer, i);
    const next = ownNext.get(stream);
    const result = await store.appendToStream(
      stream,
      [event('Owned', { writer, i })],
      next === undefined ? 'no_stream' : next,
    );
    ownNext.set(stream, result.nextExpectedRevision);
  }
  await store.close();
  process.stdout.write(`${JSON.stringify(summary)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof Error ? `${error.name} ${(error as { code?: string }).code ?? ''}: ${error.stack}` : String(error)}\n`,
  );
  process.exit(1);
});

/**
 * A log's live subscriptions in one process (on PostgreSQL they share what one of them read,
 * SharedLogReads; on the embedded log each reads SQLite): whatever position each starts from,
 * however far the log runs past what is kept in memory, and however many appends land at once,
 * each still gets every event after its start exactly once, in order, and sees appends made by
 * another process's connection as well as its own.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { EventStore, RecordedEvent, Subscription } from '../../../src/ports/event-store';
import { PostgresEventStore } from '../../../src/infra/postgres/postgres-event-store';
import { SqliteEventStore } from '../../../src/infra/sqlite/sqlite-event-store';
import { describeExternal, externalTarget } from '../../support/external';
import { dropSchema, freshSchema } from '../../support/postgres';

type Closable = EventStore & { close(): Promise<void> };
/** Two stores on one log, as two processes would hold them; `dispose` removes the log. */
type Logs = { store: Closable; other: Closable; dispose: () => Promise<void> };

const event = (i: number) => ({ type: 'Counted', data: { i }, metadata: { at: '2026-01-01T00:00:00.000Z' } as never });

async function waitFor(condition: () => boolean): Promise<void> {
  for (let tries = 0; !condition(); tries++) {
    if (tries > 2_000) throw new Error('timed out waiting for the subscriptions');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function describeSharedLiveReads(name: string, open: () => Promise<Logs>): void {
  describe(`live subscriptions of one ${name}`, () => {
    jest.setTimeout(60_000);
    let logs: Logs;
    let store: Closable;
    let other: Closable;
    const subscriptions: Subscription[] = [];

    beforeEach(async () => {
      logs = await open();
      ({ store, other } = logs);
    });
    afterEach(async () => {
      await Promise.all(subscriptions.splice(0).map((s) => s.close()));
      await store.close();
      await other.close();
      await logs.dispose();
    });

    const follow = (from: bigint | undefined) => {
      const seen: RecordedEvent[] = [];
      subscriptions.push(
        store.subscribeToAll(from, async (e) => {
          seen.push(e);
        }),
      );
      return seen;
    };

    it('given subscriptions from the start, the middle and the head, when 3,000 more events land (past what is kept), then each gets every later event once and in order', async () => {
      const first = await store.appendToStream(
        's-0',
        Array.from({ length: 500 }, (_, i) => event(i)),
        'no_stream',
      );
      const middle = 250n;
      const fromStart = follow(undefined);
      const fromMiddle = follow(middle);
      const fromHead = follow(first.position);

      for (let chunk = 0; chunk < 30; chunk++) {
        const writer = chunk % 2 === 0 ? store : other;
        await writer.appendToStream(
          `s-${chunk + 1}`,
          Array.from({ length: 100 }, (_, i) => event(500 + chunk * 100 + i)),
          'no_stream',
        );
      }

      await waitFor(() => fromStart.length >= 3_500 && fromMiddle.length >= 3_250 && fromHead.length >= 3_000);
      const counted = (seen: RecordedEvent[]) => seen.map((e) => (e.data as { i: number }).i);
      const range = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => from + k);
      expect(counted(fromStart)).toEqual(range(0, 3_500));
      expect(counted(fromMiddle)).toEqual(range(250, 3_500));
      expect(counted(fromHead)).toEqual(range(500, 3_500));
      const positions = fromStart.map((e) => e.position);
      expect(positions.every((p, k) => k === 0 || p > (positions[k - 1] as bigint))).toBe(true);
    });

    it('given appends of this process and of another, several streams each, then every event a subscription gets is the one the log holds, field for field', async () => {
      await store.appendToStream('s-start', [event(0)], 'no_stream');
      const seen = follow(undefined);
      await waitFor(() => seen.length === 1);

      await Promise.all(
        Array.from({ length: 8 }, async (_, writer) => {
          for (let i = 0; i < 10; i++)
            await (writer % 2 === 0 ? store : other).appendToStream(
              `e-${writer}`,
              [event(writer * 100 + i), { ...event(writer * 100 + i), type: 'Recounted' }],
              i === 0 ? 'no_stream' : BigInt(2 * i - 1),
            );
        }),
      );

      await waitFor(() => seen.length >= 161);
      expect(seen).toEqual(await store.readAll(undefined, 1_000));
    });

    it('given two subscriptions, when one event lands, then both get it, once each', async () => {
      await store.appendToStream('s-a', [event(1)], 'no_stream');
      const a = follow(undefined);
      const b = follow(undefined);
      await waitFor(() => a.length === 1 && b.length === 1);

      await other.appendToStream('s-b', [event(2)], 'no_stream');
      // A third event after it: delivery is in order, so a duplicate of the second would come before it.
      await store.appendToStream('s-c', [event(3)], 'no_stream');

      await waitFor(() => a.length >= 3 && b.length >= 3);
      const counted = (seen: RecordedEvent[]) => seen.map((e) => (e.data as { i: number }).i);
      expect(counted(a)).toEqual([1, 2, 3]);
      expect(counted(b)).toEqual([1, 2, 3]);
    });

    it('given a live subscription that followed 3,000 events (more than are kept), when a new one starts from the beginning, then it gets all of them', async () => {
      const live = follow(undefined);
      for (let chunk = 0; chunk < 30; chunk++)
        await store.appendToStream(
          `s-${chunk}`,
          Array.from({ length: 100 }, (_, i) => event(chunk * 100 + i)),
          'no_stream',
        );
      await waitFor(() => live.length >= 3_000);

      const late = follow(undefined);

      await waitFor(() => late.length >= 3_000);
      expect(late.map((e) => (e.data as { i: number }).i)).toEqual(Array.from({ length: 3_000 }, (_, k) => k));
    });

    it('given ten subscriptions at the head, when sixteen writers append 800 events at once from two stores, then each subscription gets every event once, in the order of the log', async () => {
      await store.appendToStream('s-start', [event(-1)], 'no_stream');
      const followers = Array.from({ length: 10 }, () => follow(undefined));
      await waitFor(() => followers.every((seen) => seen.length === 1));

      await Promise.all(
        Array.from({ length: 16 }, async (_, writer) => {
          for (let i = 0; i < 50; i++)
            await (writer % 2 === 0 ? store : other).appendToStream(
              `w-${writer}`,
              [event(writer * 1000 + i)],
              i === 0 ? 'no_stream' : BigInt(i - 1),
            );
        }),
      );

      await waitFor(() => followers.every((seen) => seen.length >= 801));
      const log = (await store.readAll(undefined, 10_000)).map((e) => e.position);
      expect(log).toHaveLength(801);
      for (const seen of followers) expect(seen.map((e) => e.position)).toEqual(log);
    });
  });
}

describeSharedLiveReads('embedded log', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shared-live-reads-'));
  return {
    store: SqliteEventStore.open(path.join(dir, 'events.sqlite')),
    other: SqliteEventStore.open(path.join(dir, 'events.sqlite')),
    dispose: async () => fs.rmSync(dir, { recursive: true, force: true }),
  };
});

const postgres = externalTarget('postgres');
describeExternal('shared live reads (PostgreSQL)', postgres, () => {
  const url = postgres.kind === 'url' ? postgres.url : '';
  describeSharedLiveReads('PostgreSQL log', async () => {
    const schema = freshSchema('shared_reads');
    const store = await PostgresEventStore.connect(url, { schema });
    const other = await PostgresEventStore.connect(url, { schema });
    return { store, other, dispose: () => dropSchema(url, schema) };
  });
});

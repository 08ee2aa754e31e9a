/**
 * The embedded log's live subscriptions share what one of them read (RecentEvents): whatever
 * position each starts from, and however far the log runs past what is kept in memory, each
 * still gets every event after its start exactly once, in order, and sees appends made by another
 * process's connection as well as its own.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { RecordedEvent, Subscription } from '../../../src/ports/event-store';
import { SqliteEventStore } from '../../../src/infra/sqlite/sqlite-event-store';

const event = (i: number) => ({ type: 'Counted', data: { i }, metadata: { at: '2026-01-01T00:00:00.000Z' } as never });

async function waitFor(condition: () => boolean): Promise<void> {
  for (let tries = 0; !condition(); tries++) {
    if (tries > 2_000) throw new Error('timed out waiting for the subscriptions');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('live subscriptions of one embedded log', () => {
  let dir: string;
  let store: SqliteEventStore;
  let other: SqliteEventStore;
  const subscriptions: Subscription[] = [];

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shared-live-reads-'));
    store = SqliteEventStore.open(path.join(dir, 'events.sqlite'));
    other = SqliteEventStore.open(path.join(dir, 'events.sqlite'));
  });
  afterEach(async () => {
    await Promise.all(subscriptions.splice(0).map((s) => s.close()));
    await store.close();
    await other.close();
    fs.rmSync(dir, { recursive: true, force: true });
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
});

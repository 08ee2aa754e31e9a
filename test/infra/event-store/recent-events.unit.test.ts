import type { RecordedEvent } from '../../../src/ports/event-store';
import { RecentEvents } from '../../../src/infra/sqlite/sqlite-recent-events';

/**
 * What the live subscriptions of one process ask SQLite for (RecentEvents): once one of them has
 * read to the log's end, the others take the kept events without reading again, until a commit is
 * told or a poll's time has passed.
 */
const recorded = (position: number): RecordedEvent => ({
  streamId: 's',
  type: 'Counted',
  data: { position },
  metadata: { at: '2026-01-01T00:00:00.000Z' } as never,
  revision: BigInt(position - 1),
  position: BigInt(position),
});

/** A log of `events` positions (1..n) whose reads are counted. */
function log(events: number) {
  const state = { length: events, reads: 0 };
  const read = (after: bigint, max: number): RecordedEvent[] => {
    state.reads += 1;
    const from = Number(after) + 1;
    const to = Math.min(state.length, Number(after) + max);
    return Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => recorded(from + i));
  };
  return { state, read };
}

describe('RecentEvents', () => {
  it('given one reader that read to the log end, when four more ask with no commit since, then the log is read once and each gets the same events', () => {
    // given
    const { state, read } = log(3);
    let clock = 1_000;
    const recent = new RecentEvents(200, () => clock);
    const first = recent.after(0n, 256, read);
    // when
    clock += 5;
    const others = Array.from({ length: 4 }, () => recent.after(0n, 256, read));
    // then
    expect(state.reads).toBe(1);
    for (const page of others) expect(page.map((e) => e.position)).toEqual(first.map((e) => e.position));
  });

  it('given the log read to its end, when a commit is told, then the next reader asks the log and gets the new event', () => {
    // given
    const { state, read } = log(3);
    const recent = new RecentEvents(200, () => 1_000);
    recent.after(0n, 256, read);
    state.length = 4;
    // when
    recent.committed();
    const page = recent.after(3n, 256, read);
    // then
    expect(state.reads).toBe(2);
    expect(page.map((e) => e.position)).toEqual([4n]);
  });

  it.each([
    ['within the poll interval', 199, 1],
    ['once the poll interval has passed', 200, 2],
  ])(
    'given the log read to its end and an event appended untold, when asked again %s, then the log is read again only after it',
    (_case, later, reads) => {
      // given
      const { state, read } = log(3);
      let clock = 1_000;
      const recent = new RecentEvents(200, () => clock);
      recent.after(0n, 256, read);
      state.length = 4;
      // when
      clock += later;
      const page = recent.after(3n, 256, read);
      // then
      expect(state.reads).toBe(reads);
      expect(page).toHaveLength(reads - 1);
    },
  );

  it('given a read that filled its page (the log may go on), when the next reader asks past it, then the log is read again', () => {
    // given
    const { state, read } = log(10);
    const recent = new RecentEvents(200, () => 1_000);
    const first = recent.after(0n, 4, read);
    // when
    const next = recent.after(4n, 4, read);
    // then
    expect(first.map((e) => e.position)).toEqual([1n, 2n, 3n, 4n]);
    expect(next.map((e) => e.position)).toEqual([5n, 6n, 7n, 8n]);
    expect(state.reads).toBe(2);
  });
});

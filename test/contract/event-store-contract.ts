import { randomUUID } from 'node:crypto';
import type { EventMetadata } from '../../src/domain/event';
import {
  AppendTooLargeError,
  MAX_APPEND_BYTES,
  UnstorableEventError,
  WrongExpectedRevisionError,
  type EventStore,
  type NewEvent,
  type RecordedEvent,
} from '../../src/ports/event-store';
import type { IdempotencyKeys } from '../../src/ports/idempotency-keys';
import { IdempotencyClaimLostError } from '../../src/ports/idempotency-keys';
import { adoptEventLog, EventLogMismatchError, verifyEventLog } from '../../src/projections/event-log-identity';
import type { ProjectionStore } from '../../src/projections/read-model-projection';

/**
 * The event store contract: what every adapter of the EventStore port must do, run against each
 * of them (event-store.int.test.ts: SQLite, EventStoreDB; postgres-event-store.int.test.ts).
 */

export type Subject = {
  readonly store: EventStore;
  /** True when the store holds this test's events only; a shared store also holds other tests' events. */
  readonly isolated: boolean;
  /** A stream name that no other test uses. */
  stream(name: string): string;
  /** Another instance on the same log (another process, another host name for it); disposed with the subject. */
  another(): EventStore;
  /** A new, empty log where this one was (recreated under the same name), where the subject can make one. */
  readonly recreated?: () => Promise<EventStore>;
  dispose(): Promise<void>;
};

const metadata: EventMetadata = {
  actor: { userId: 7, credential: 'session' },
  correlationId: 'correlation-1',
  at: '2024-05-01T10:00:00.000Z',
};

export const event = (type: string, data: unknown = { type }): NewEvent => ({ type, data, metadata });

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function eventually(assertion: () => void, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      assertion();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
    await sleep(20);
  }
}

/** The current end of $all, as a position to read or subscribe after. */
async function mark(subject: Subject): Promise<bigint> {
  const result = await subject.store.appendToStream(subject.stream('marker'), [event('Marked')], 'no_stream');
  return result.position;
}

/** A read model's checkpoints and nothing else, in memory: what the log check reads and records. */
function checkpointsOnly(): ProjectionStore {
  const checkpoints = new Map<string, { position?: bigint; log?: string }>();
  return {
    commit: async (projection, position, work) => {
      await work();
      checkpoints.set(projection, { ...checkpoints.get(projection), position });
    },
    checkpoint: async (projection) => checkpoints.get(projection)?.position,
    checkpointLog: async (projection) => checkpoints.get(projection)?.log,
    setCheckpointLog: async (projection, log) => {
      checkpoints.set(projection, { ...checkpoints.get(projection), log });
    },
    reset: async (projection) => {
      checkpoints.delete(projection);
    },
    park: async () => undefined,
    parked: async () => [],
    unpark: async () => false,
    digest: async () => ({ digest: '', counts: {} }),
  };
}

export function describeEventStoreContract(name: string, factory: () => Promise<Subject>): void {
  describe(`${name} (event store contract)`, () => {
    let subject: Subject;
    let store: EventStore;

    beforeEach(async () => {
      subject = await factory();
      store = subject.store;
    });

    afterEach(async () => {
      await subject.dispose();
    });

    describe('append size', () => {
      /** `count` events whose stored size (type, data and metadata) is `bytes` or a few bytes less. */
      const eventsOf = (bytes: number, count: number): NewEvent[] => {
        const overhead =
          Buffer.byteLength('Padded') + JSON.stringify(metadata).length + JSON.stringify({ p: '' }).length;
        const each = Math.floor(bytes / count) - overhead;
        return Array.from({ length: count }, () => event('Padded', { p: 'x'.repeat(each) }));
      };

      it('given an append over MAX_APPEND_BYTES, when appended, then it is refused whole and nothing is stored', async () => {
        // given
        const stream = subject.stream('too-large');
        const events = eventsOf(MAX_APPEND_BYTES + 2000, 100);
        // when
        const append = store.appendToStream(stream, events, 'no_stream');
        // then
        await expect(append).rejects.toBeInstanceOf(AppendTooLargeError);
        expect(await store.readStream(stream)).toEqual([]);
      });

      it('given an append just under MAX_APPEND_BYTES, when appended, then all of it is stored', async () => {
        // given
        const stream = subject.stream('just-fits');
        const events = eventsOf(MAX_APPEND_BYTES, 100);
        // when
        await store.appendToStream(stream, events, 'no_stream');
        // then
        expect(await store.readStream(stream)).toHaveLength(100);
      });
    });

    describe('log identity', () => {
      it('given one log, when several instances ask its identity at once, then they all get the same', async () => {
        // given
        const instances = [store, subject.another(), subject.another()];
        // when
        const identities = await Promise.all(instances.map((instance) => instance.identity()));
        // then
        expect(new Set(identities).size).toBe(1);
        expect(await subject.another().identity()).toBe(identities[0]);
      });

      it('given the identity asked, then reading the log shows no event of it', async () => {
        // given
        const before = await mark(subject);
        await subject.another().identity();
        // when
        const events = await store.readAll(subject.isolated ? undefined : before, 1000);
        // then
        expect(events.filter((e) => e.type.startsWith('$') || e.streamId === 'log-identity')).toEqual([]);
      });

      it('given a read model built from this log, when checked against it from another instance, then it is kept', async () => {
        // given
        const readModel = checkpointsOnly();
        await adoptEventLog(store, readModel, 'views');
        // when
        const verdict = await verifyEventLog(subject.another(), readModel, 'views');
        // then
        expect(verdict).toBe('same');
      });

      it('given a read model built from this log, when checked against a recreated log, then it is refused', async () => {
        if (!subject.recreated) {
          process.stderr.write('SKIPPED recreated log check: this subject cannot recreate its log\n');
          return;
        }
        // given
        const readModel = checkpointsOnly();
        await adoptEventLog(store, readModel, 'views');
        await readModel.commit('views', 5n, async () => undefined);
        // when
        const checking = adoptEventLog(await subject.recreated(), readModel, 'views');
        // then
        await expect(checking).rejects.toBeInstanceOf(EventLogMismatchError);
        expect(await readModel.checkpoint('views')).toBe(5n);
      });

      it('given a log recreated empty under the same name, when asked, then its identity is another', async () => {
        if (!subject.recreated) {
          process.stderr.write('SKIPPED recreated log identity: this subject cannot recreate its log\n');
          return;
        }
        // given
        const before = await store.identity();
        // when
        const recreated = await subject.recreated();
        // then
        expect(await recreated.identity()).not.toBe(before);
      });
    });

    describe('idempotency keys', () => {
      const keys = () => store as EventStore & IdempotencyKeys;
      const ref = () => ({ scope: 'user:7', key: randomUUID() });
      const at = 1_750_000_000_000;
      // A key lasts a day: EventStoreDB keeps a key's stream for as long as its claim lasts
      // ($maxAge), by its own clock, which a test cannot move; a shorter key would vanish mid-test.
      const day = 24 * 60 * 60 * 1000;
      const claimed = { fingerprint: 'fp', now: at, expiresAt: at + day };

      it('given a claimed key, when another attempt claims it, then it is refused and the record names the first', async () => {
        const key = ref();
        expect(await keys().claimIdempotencyKey({ ...key, owner: 'a' }, claimed)).toBe(true);

        expect(await keys().claimIdempotencyKey({ ...key, owner: 'b' }, claimed)).toBe(false);
        expect(await keys().readIdempotencyKey(key, at)).toMatchObject({
          fingerprint: 'fp',
          owner: 'a',
          claimedAt: at,
        });
      });

      it('given a claim, when its holder appends, then the first write is recorded with the append', async () => {
        const key = ref();
        const claim = { ...key, owner: 'a' };
        await keys().claimIdempotencyKey(claim, claimed);
        const stream = subject.stream('claimed');

        const first = await store.appendToStream(stream, [event('A')], 'no_stream', { idempotency: claim });
        await store.appendToStream(subject.stream('other'), [event('B')], 'no_stream', { idempotency: claim });

        expect((await keys().readIdempotencyKey(key, at))?.write).toEqual({
          streamId: stream,
          position: first.position,
        });
      });

      it('given a claim taken over, when the first holder appends, then nothing is stored', async () => {
        const key = ref();
        await keys().claimIdempotencyKey({ ...key, owner: 'a' }, claimed);
        expect(await keys().claimIdempotencyKey({ ...key, owner: 'b' }, claimed, 'a')).toBe(true);
        const stream = subject.stream('lost');

        await expect(
          store.appendToStream(stream, [event('A')], 'no_stream', { idempotency: { ...key, owner: 'a' } }),
        ).rejects.toBeInstanceOf(IdempotencyClaimLostError);
        expect(await store.readStream(stream)).toEqual([]);
      });

      it('given an answer recorded, then it is read back, and the key can no longer be taken over', async () => {
        const key = ref();
        const claim = { ...key, owner: 'a' };
        await keys().claimIdempotencyKey(claim, claimed);

        expect(
          await keys().completeIdempotencyKey(claim, {
            status: 200,
            contentType: 'application/json',
            body: '{"id":1}',
          }),
        ).toBe(true);

        expect((await keys().readIdempotencyKey(key, at))?.answer).toEqual({
          status: 200,
          contentType: 'application/json',
          body: '{"id":1}',
        });
        expect(await keys().claimIdempotencyKey({ ...key, owner: 'b' }, claimed, 'a')).toBe(false);
      });

      it('given a holder that gives up, then a key without a write is forgotten and one with a write is open to a takeover', async () => {
        const [unwritten, written] = [ref(), ref()];
        await keys().claimIdempotencyKey({ ...unwritten, owner: 'a' }, claimed);
        await keys().claimIdempotencyKey({ ...written, owner: 'a' }, claimed);
        await store.appendToStream(subject.stream('given-up'), [event('A')], 'no_stream', {
          idempotency: { ...written, owner: 'a' },
        });

        await keys().releaseIdempotencyKey({ ...unwritten, owner: 'a' });
        await keys().releaseIdempotencyKey({ ...written, owner: 'a' });

        expect(await keys().readIdempotencyKey(unwritten, at)).toBeUndefined();
        expect(await keys().readIdempotencyKey(written, at)).toMatchObject({ owner: 'a', claimedAt: 0 });
      });

      it('given a key past its expiry, then it reads as absent and can be claimed afresh', async () => {
        const key = ref();
        await keys().claimIdempotencyKey({ ...key, owner: 'a' }, claimed);

        expect(await keys().readIdempotencyKey(key, at + day)).toBeUndefined();
        expect(
          await keys().claimIdempotencyKey(
            { ...key, owner: 'b' },
            { ...claimed, now: at + day, expiresAt: at + 2 * day },
          ),
        ).toBe(true);
      });
    });

    describe('appendToStream', () => {
      it('creates a stream expected not to exist, with revisions from 0', async () => {
        // given
        const stream = subject.stream('account');
        // when
        const result = await store.appendToStream(stream, [event('Opened'), event('Credited')], 'no_stream');
        // then
        expect(result.nextExpectedRevision).toBe(1n);
        const events = await store.readStream(stream);
        expect(events.map((e) => [e.streamId, e.type, e.revision])).toEqual([
          [stream, 'Opened', 0n],
          [stream, 'Credited', 1n],
        ]);
      });

      it("appends when the expected revision is the stream's last revision", async () => {
        // given
        const stream = subject.stream('account');
        await store.appendToStream(stream, [event('Opened')], 'no_stream');
        // when
        const result = await store.appendToStream(stream, [event('Credited')], 0n);
        // then
        expect(result.nextExpectedRevision).toBe(1n);
        expect((await store.readStream(stream)).map((e) => e.type)).toEqual(['Opened', 'Credited']);
      });

      it('rejects a stale revision and stores nothing', async () => {
        // given
        const stream = subject.stream('account');
        await store.appendToStream(stream, [event('Opened'), event('Credited')], 'no_stream');
        // when
        const append = store.appendToStream(stream, [event('Debited')], 0n);
        // then
        await expect(append).rejects.toBeInstanceOf(WrongExpectedRevisionError);
        expect(await store.readStream(stream)).toHaveLength(2);
      });

      it('rejects a revision on a stream that does not exist', async () => {
        // given
        const stream = subject.stream('account');
        // when
        const append = store.appendToStream(stream, [event('Opened')], 0n);
        // then
        await expect(append).rejects.toBeInstanceOf(WrongExpectedRevisionError);
        expect(await store.readStream(stream)).toEqual([]);
      });

      it('rejects no_stream when the stream exists', async () => {
        // given
        const stream = subject.stream('account');
        await store.appendToStream(stream, [event('Opened')], 'no_stream');
        // when
        const append = store.appendToStream(stream, [event('Opened')], 'no_stream');
        // then
        await expect(append).rejects.toBeInstanceOf(WrongExpectedRevisionError);
        expect(await store.readStream(stream)).toHaveLength(1);
      });

      it('appends whatever the revision when any is expected', async () => {
        // given
        const stream = subject.stream('account');
        await store.appendToStream(stream, [event('Opened')], 'any');
        // when
        const result = await store.appendToStream(stream, [event('Credited')], 'any');
        // then
        expect(result.nextExpectedRevision).toBe(1n);
      });

      it('stores none of the events of a rejected multi-event append', async () => {
        // given
        const stream = subject.stream('account');
        await store.appendToStream(stream, [event('Opened')], 'no_stream');
        // when
        const append = store.appendToStream(stream, [event('Credited'), event('Debited')], 'no_stream');
        // then
        await expect(append).rejects.toBeInstanceOf(WrongExpectedRevisionError);
        expect((await store.readStream(stream)).map((e) => e.type)).toEqual(['Opened']);
      });

      it('stores none of the events when a later one cannot be stored', async () => {
        // given
        const stream = subject.stream('account');
        const unserialisable = event('Broken', { amount: 1n });
        // when
        const append = store.appendToStream(stream, [event('Opened'), unserialisable], 'no_stream');
        // then
        await expect(append).rejects.toBeInstanceOf(UnstorableEventError);
        expect(await store.readStream(stream)).toEqual([]);
        await expect(store.appendToStream(stream, [event('Opened')], 'no_stream')).resolves.toBeDefined();
      });

      it('returns the global position of the last appended event', async () => {
        // given
        const stream = subject.stream('account');
        // when
        const result = await store.appendToStream(stream, [event('Opened'), event('Credited')], 'no_stream');
        // then
        const events = await store.readStream(stream);
        expect(result.position).toBe(events[1]?.position);
        expect(events[0]!.position).toBeLessThan(events[1]!.position);
      });

      it('round-trips data and metadata', async () => {
        // given
        const stream = subject.stream('account');
        const auditable: EventMetadata = {
          actor: { userId: 12, credential: 'apiKey', apiKeyId: 34, impersonatorId: 56 },
          correlationId: randomUUID(),
          at: '2024-06-30T23:59:59.999Z',
        };
        const data = { name: 'Žofia', tags: ['a', 'b'], nested: { count: 3, ok: true, none: null } };
        // when
        await store.appendToStream(stream, [{ type: 'Opened', data, metadata: auditable }], 'no_stream');
        // then
        const [stored] = await store.readStream(stream);
        expect(stored?.data).toEqual(data);
        expect(stored?.metadata).toEqual(auditable);
      });
    });

    describe('readStream and readLastEvent', () => {
      it('reads [] and undefined for a stream that does not exist', async () => {
        // given
        const stream = subject.stream('missing');
        // when / then
        expect(await store.readStream(stream)).toEqual([]);
        expect(await store.readLastEvent(stream)).toBeUndefined();
      });

      it("reads one stream's events oldest first, ignoring other streams", async () => {
        // given
        const stream = subject.stream('account');
        const other = subject.stream('other');
        await store.appendToStream(stream, [event('Opened')], 'no_stream');
        await store.appendToStream(other, [event('Unrelated')], 'no_stream');
        await store.appendToStream(stream, [event('Credited'), event('Debited')], 0n);
        // when
        const events = await store.readStream(stream);
        // then
        expect(events.map((e) => e.type)).toEqual(['Opened', 'Credited', 'Debited']);
      });

      it('reads a page of a stream: from a revision on, at most so many; past its end, nothing', async () => {
        // given
        const stream = subject.stream('account');
        const other = subject.stream('other');
        await store.appendToStream(stream, [event('Opened'), event('Credited')], 'no_stream');
        await store.appendToStream(other, [event('Unrelated')], 'no_stream');
        await store.appendToStream(stream, [event('Debited'), event('Credited'), event('Closed')], 1n);
        const whole = await store.readStream(stream);
        // when / then
        expect(await store.readStream(stream, { fromRevision: 1n, maxCount: 3 })).toEqual(whole.slice(1, 4));
        expect(await store.readStream(stream, { fromRevision: 3n, maxCount: 10 })).toEqual(whole.slice(3));
        expect(await store.readStream(stream, { fromRevision: 0n, maxCount: 1 })).toEqual(whole.slice(0, 1));
        expect(await store.readStream(stream, { fromRevision: 5n, maxCount: 10 })).toEqual([]);
        expect(await store.readStream(subject.stream('missing'), { fromRevision: 0n, maxCount: 10 })).toEqual([]);
      });

      it('reads the last event of a stream', async () => {
        // given
        const stream = subject.stream('account');
        await store.appendToStream(stream, [event('Opened'), event('Credited'), event('Debited')], 'no_stream');
        // when
        const last = await store.readLastEvent(stream);
        // then
        expect(last).toEqual((await store.readStream(stream))[2]);
        expect(last?.revision).toBe(2n);
      });
    });

    describe('readAll', () => {
      it('reads from the oldest event when no position is given', async () => {
        // given
        const stream = subject.stream('account');
        await store.appendToStream(stream, [event('Opened'), event('Credited')], 'no_stream');
        const ours = await store.readStream(stream);
        // when
        const [oldest] = await store.readAll(undefined, 1);
        // then
        expect(oldest!.position).toBeLessThanOrEqual(ours[0]!.position);
        if (subject.isolated) expect(await store.readAll(undefined, 100)).toEqual(ours);
      });

      it('reads the events after a position, excluding it, in global order across streams', async () => {
        // given
        const first = subject.stream('first');
        const second = subject.stream('second');
        const a = await store.appendToStream(first, [event('A')], 'no_stream');
        await store.appendToStream(second, [event('B')], 'no_stream');
        await store.appendToStream(first, [event('C')], 0n);
        // when
        const events = await store.readAll(a.position, 1000);
        // then
        const ours = events.filter((e) => e.streamId === first || e.streamId === second);
        expect(ours.map((e) => e.type)).toEqual(['B', 'C']);
        expect(events.every((e) => e.position > a.position)).toBe(true);
        expectStrictlyIncreasing(events);
      });

      it('reads at most maxCount events', async () => {
        // given
        const from = await mark(subject);
        await store.appendToStream(subject.stream('account'), [event('A'), event('B'), event('C')], 'no_stream');
        // when
        const events = await store.readAll(from, 2);
        // then
        expect(events).toHaveLength(2);
      });

      it('reads only the events of the given types, in global order across streams', async () => {
        // given
        const from = await mark(subject);
        const first = subject.stream('first');
        const second = subject.stream('second');
        await store.appendToStream(first, [event('Kept'), event('Skipped')], 'no_stream');
        await store.appendToStream(second, [event('Skipped'), event('AlsoKept')], 'no_stream');
        await store.appendToStream(first, [event('Kept')], 1n);
        // when
        const events = await store.readAll(from, 1000, new Set(['Kept', 'AlsoKept']));
        // then
        const ours = events.filter((e) => e.streamId === first || e.streamId === second);
        expect(ours.map((e) => [e.streamId, e.type])).toEqual([
          [first, 'Kept'],
          [second, 'AlsoKept'],
          [first, 'Kept'],
        ]);
        expect(events.every((e) => e.type === 'Kept' || e.type === 'AlsoKept')).toBe(true);
        expectStrictlyIncreasing(events);
      });

      it('fills maxCount with events of the given types, past any number of others between them', async () => {
        // given: more skipped events than one page of the EventStoreDB adapter's read
        const from = await mark(subject);
        const stream = subject.stream('account');
        const skipped = Array.from({ length: 600 }, () => event('Skipped'));
        await store.appendToStream(
          stream,
          [event('Kept', { n: 1 }), ...skipped, event('Kept', { n: 2 }), event('Kept', { n: 3 })],
          'no_stream',
        );
        // when
        const events = await store.readAll(from, 2, new Set(['Kept']));
        // then
        expect(events.map((e) => e.data)).toEqual([{ n: 1 }, { n: 2 }]);
      });
    });

    describe('scanAll, where the store filters by type itself', () => {
      it('given a rare type among many others, when scanned, then its events come back and the scan reached past the last of them', async () => {
        if (!store.scanAll) {
          // The embedded store's readAll filters in SQL already: it offers no scan.
          console.info(`${name}: no scanAll (filters by type in its readAll)`);
          return;
        }
        // given
        const from = await mark(subject);
        const stream = subject.stream('account');
        const others = Array.from({ length: 700 }, () => event('Skipped'));
        await store.appendToStream(stream, [...others, event('Rare', { n: 1 }), ...others], 'no_stream');
        // when
        const scanned = await store.scanAll(from, 10, new Set(['Rare']));
        // then
        expect(scanned.events.map((e) => [e.type, e.data])).toEqual([['Rare', { n: 1 }]]);
        expect(scanned.scannedTo).toBeGreaterThan(scanned.events[0]?.position ?? 0n);
      });
    });

    describe('subscribeToAll', () => {
      it('catches up, then delivers live events, and stops delivering once closed', async () => {
        // given
        const stream = subject.stream('account');
        const from = await mark(subject);
        await store.appendToStream(stream, [event('Opened'), event('Credited')], 'no_stream');
        const received: RecordedEvent[] = [];
        // when
        const subscription = store.subscribeToAll(from, async (e) => {
          received.push(e);
        });
        // then: catch-up
        const ours = () => received.filter((e) => e.streamId === stream).map((e) => e.type);
        await eventually(() => expect(ours()).toEqual(['Opened', 'Credited']));
        // then: live
        await store.appendToStream(stream, [event('Debited')], 1n);
        await eventually(() => expect(ours()).toEqual(['Opened', 'Credited', 'Debited']));
        // then: closed
        await subscription.close();
        await store.appendToStream(stream, [event('Closed')], 2n);
        await sleep(600);
        expect(ours()).toEqual(['Opened', 'Credited', 'Debited']);
        expect(received.every((e) => e.position > from)).toBe(true);
        expectStrictlyIncreasing(received);
      });

      it('starts after the given position, excluding it', async () => {
        // given
        const stream = subject.stream('account');
        const opened = await store.appendToStream(stream, [event('Opened')], 'no_stream');
        await store.appendToStream(stream, [event('Credited')], 0n);
        const received: string[] = [];
        // when
        const subscription = store.subscribeToAll(opened.position, async (e) => {
          if (e.streamId === stream) received.push(e.type);
        });
        // then
        try {
          await eventually(() => expect(received).toEqual(['Credited']));
        } finally {
          await subscription.close();
        }
      });

      it('awaits each onEvent before delivering the next event', async () => {
        // given
        const stream = subject.stream('account');
        const from = await mark(subject);
        await store.appendToStream(stream, [event('A'), event('B'), event('C')], 'no_stream');
        let running = 0;
        let mostRunning = 0;
        const received: string[] = [];
        // when
        const subscription = store.subscribeToAll(from, async (e) => {
          running += 1;
          mostRunning = Math.max(mostRunning, running);
          await sleep(20);
          if (e.streamId === stream) received.push(e.type);
          running -= 1;
        });
        // then
        try {
          await eventually(() => expect(received).toEqual(['A', 'B', 'C']));
          expect(mostRunning).toBe(1);
        } finally {
          await subscription.close();
        }
      });

      it('calls onError once and stops when onEvent throws', async () => {
        // given
        const from = await mark(subject);
        await store.appendToStream(subject.stream('account'), [event('A'), event('B')], 'no_stream');
        let delivered = 0;
        const errors: unknown[] = [];
        const failure = new Error('projection failed');
        // when
        const subscription = store.subscribeToAll(
          from,
          async () => {
            delivered += 1;
            throw failure;
          },
          (error) => errors.push(error),
        );
        // then
        try {
          await eventually(() => expect(errors).toEqual([failure]));
          await sleep(400);
          expect(errors).toHaveLength(1);
          expect(delivered).toBe(1);
        } finally {
          await subscription.close();
        }
      });
    });
  });
}

function expectStrictlyIncreasing(events: readonly RecordedEvent[]): void {
  const positions = events.map((e) => e.position);
  const sorted = [...new Set(positions)].sort((x, y) => (x < y ? -1 : 1));
  expect(positions).toEqual(sorted);
}

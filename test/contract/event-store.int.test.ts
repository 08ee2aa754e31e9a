import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GenericContainer, Wait, type StartedTestContainer } from 'testcontainers';
import { EventStoreDBClient } from '@eventstore/db-client';
import { EsdbEventStore, idempotencyStreamOf } from '../../src/infra/eventstoredb/esdb-event-store';
import { WrongExpectedRevisionError, type EventStore } from '../../src/ports/event-store';
import { SqliteEventStore } from '../../src/infra/sqlite/sqlite-event-store';
import { describeExternal, externalTarget } from '../support/external';
import { EVENTSTORE_IMAGE } from '../support/images';
import { describeEventStoreContract, event, eventually, sleep } from './event-store-contract';

// --- SQLite: always -------------------------------------------------------------------------

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'event-store-'));
}

describeEventStoreContract('SqliteEventStore', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'events.sqlite');
  const store = SqliteEventStore.open(file);
  const others: EventStore[] = [];
  const opened = (other: EventStore) => {
    others.push(other);
    return other;
  };
  return {
    store,
    isolated: true,
    stream: (name) => `${name}-${randomUUID()}`,
    another: () => opened(SqliteEventStore.open(file)),
    recreated: async () => {
      const moved = path.join(dir, 'recreated', 'events.sqlite');
      return opened(SqliteEventStore.open(moved));
    },
    dispose: async () => {
      await Promise.all([store, ...others].map((s) => s.close()));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
});

describe('SqliteEventStore (one file, several instances)', () => {
  let dir: string;
  let file: string;
  const opened: SqliteEventStore[] = [];
  const open = () => {
    const store = SqliteEventStore.open(file);
    opened.push(store);
    return store;
  };

  beforeEach(() => {
    dir = tempDir();
    file = path.join(dir, 'nested', 'events.sqlite');
  });

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('given idempotency records past their expiry, when another key is claimed, then they are deleted, not only hidden', async () => {
    // given: a key of a day, read as of its own time: there
    const store = open();
    const at = 1_750_000_000_000;
    const day = 24 * 60 * 60 * 1000;
    const old = { scope: 'user:7', key: 'old' };
    await store.claimIdempotencyKey({ ...old, owner: 'a' }, { fingerprint: 'fp', now: at, expiresAt: at + day });
    expect(await store.readIdempotencyKey(old, at)).toMatchObject({ owner: 'a' });
    // when: the clock has passed its day and another key is claimed
    const later = at + day + 1000;
    await store.claimIdempotencyKey(
      { scope: 'user:7', key: 'new', owner: 'b' },
      { fingerprint: 'fp', now: later, expiresAt: later + day },
    );
    // then: gone, read as of its own time too, from this instance and from another
    expect(await store.readIdempotencyKey(old, at)).toBeUndefined();
    expect(await open().readIdempotencyKey(old, at)).toBeUndefined();
  });

  it('keeps appended events across close and reopen', async () => {
    // given
    const first = open();
    await first.appendToStream('account-1', [event('Opened'), event('Credited')], 'no_stream');
    const before = await first.readStream('account-1');
    await first.close();
    // when
    const reopened = open();
    // then
    expect(await reopened.readStream('account-1')).toEqual(before);
    expect((await reopened.appendToStream('account-1', [event('Debited')], 1n)).position).toBeGreaterThan(
      before[1]!.position,
    );
  });

  it('lets a second instance read what the first appended', async () => {
    // given
    const writer = open();
    const reader = open();
    // when
    await writer.appendToStream('account-1', [event('Opened')], 'no_stream');
    // then
    expect((await reader.readStream('account-1')).map((e) => e.type)).toEqual(['Opened']);
    expect((await reader.readAll(undefined, 10)).map((e) => e.type)).toEqual(['Opened']);
  });

  it('enforces the expected revision across instances', async () => {
    // given
    const one = open();
    const other = open();
    await one.appendToStream('account-1', [event('Opened')], 'no_stream');
    // when
    const append = other.appendToStream('account-1', [event('Opened')], 'no_stream');
    // then
    await expect(append).rejects.toBeInstanceOf(WrongExpectedRevisionError);
  });

  it('delivers to a subscription the events another instance appends, by polling', async () => {
    // given
    const writer = open();
    const reader = open();
    const received: string[] = [];
    const subscription = reader.subscribeToAll(undefined, async (e) => {
      received.push(e.type);
    });
    // when
    await writer.appendToStream('account-1', [event('Opened')], 'no_stream');
    // then
    try {
      await eventually(() => expect(received).toEqual(['Opened']), 2000);
    } finally {
      await subscription.close();
    }
  });

  it('wakes its own subscriptions on append, without waiting for the next poll', async () => {
    // given: a subscription that has caught up and whose poll timer will never fire
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
    const settle = async () => {
      for (let i = 0; i < 20; i += 1) await new Promise((resolve) => setImmediate(resolve));
    };
    const store = open();
    const received: string[] = [];
    const subscription = store.subscribeToAll(undefined, async (e) => {
      received.push(e.type);
    });
    try {
      await settle();
      // when
      await store.appendToStream('account-1', [event('Opened')], 'no_stream');
      await settle();
      // then
      expect(received).toEqual(['Opened']);
    } finally {
      await subscription.close();
      jest.useRealTimers();
    }
  });

  it('stops its subscriptions when the store closes', async () => {
    // given
    const store = open();
    const errors: unknown[] = [];
    store.subscribeToAll(
      undefined,
      async () => undefined,
      (error) => errors.push(error),
    );
    // when
    await store.close();
    await sleep(400);
    // then
    expect(errors).toEqual([]);
  });
});

// --- EventStoreDB: when reachable --------------------------------------------------------------

const esdb = externalTarget('eventstore');

async function untilReady(connectionString: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const store = EsdbEventStore.connect(connectionString);
    try {
      await store.ping();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(500);
    } finally {
      await store.close();
    }
  }
}

describeExternal('event store contract (EventStoreDB)', esdb, () => {
  {
    let connectionString: string;
    let container: StartedTestContainer | undefined;

    beforeAll(async () => {
      if (esdb.kind === 'url') {
        connectionString = esdb.url;
      } else {
        container = await new GenericContainer(EVENTSTORE_IMAGE)
          .withEnvironment({
            EVENTSTORE_INSECURE: 'true',
            EVENTSTORE_RUN_PROJECTIONS: 'None',
            EVENTSTORE_MEM_DB: 'true',
          })
          .withExposedPorts(2113)
          .withWaitStrategy(Wait.forHttp('/health/live', 2113).forStatusCodeMatching((code) => code < 300))
          .withStartupTimeout(120_000)
          .start();
        connectionString = `esdb://${container.getHost()}:${container.getMappedPort(2113)}?tls=false`;
      }
      await untilReady(connectionString);
    }, 180_000);

    afterAll(async () => {
      await container?.stop();
    });

    describeEventStoreContract('EsdbEventStore', async () => {
      const store = EsdbEventStore.connect(connectionString);
      const others: EventStore[] = [];
      return {
        store,
        isolated: false,
        stream: (name) => `${name}-${randomUUID()}`,
        another: () => {
          const other = EsdbEventStore.connect(connectionString);
          others.push(other);
          return other;
        },
        // One shared server: a recreated one is the stand-in's case (esdb-log-identity.unit.test.ts).
        dispose: async () => {
          await Promise.all([store, ...others].map((s) => s.close()));
        },
      };
    });
    /*
     * What the stand-in server (test/support/fake-eventstoredb.ts) models, asked of a real one:
     * a filtered subscription sends a checkpoint every checkpointInterval × 32 records it looked
     * through, naming a record it has passed (kurrent-io/KurrentDB
     * src/EventStore.Core/Services/Transport/Enumerators/Enumerator.AllSubscriptionFiltered.cs);
     * a subscription starts after the position it is given and a read of $all at it, and a
     * position where no record starts is refused (InvalidPosition).
     */
    describe('EsdbEventStore: idempotency streams expire', () => {
      it('given a key claimed for a day, then the server keeps its stream for a day ($maxAge 86,400 s) and then hides and scavenges it', async () => {
        const store = EsdbEventStore.connect(connectionString);
        const client = EventStoreDBClient.connectionString(connectionString);
        try {
          const ref = { scope: 'user:7', key: randomUUID() };
          const now = Date.now();
          await store.claimIdempotencyKey(
            { ...ref, owner: 'a' },
            { fingerprint: 'fp', now, expiresAt: now + 24 * 60 * 60 * 1000 },
          );
          const { metadata } = await client.getStreamMetadata(idempotencyStreamOf(ref));
          expect(metadata?.maxAge).toBe(86_400);
        } finally {
          await store.close();
          await client.dispose();
        }
      });
    });

    describe('EsdbEventStore: a filtered scan stopped and resumed', () => {
      let store: EsdbEventStore;

      beforeEach(() => {
        store = EsdbEventStore.connect(connectionString);
      });

      afterEach(async () => {
        await store.close();
      });

      class Stopped extends Error {}

      it('given more non-matching events than a checkpoint interval before each rare one, when a scan stops at its first checkpoint and the next one resumes from it, then reads and subscriptions start there and each rare event comes once', async () => {
        // given: 3,500 others, a rare event, 3,500 others, a rare event (the adapter's checkpoints come every 3,200)
        const rare = `Rare-${randomUUID()}`;
        const types = new Set([rare]);
        const stream = `scan-${randomUUID()}`;
        const from = (await store.appendToStream(`${stream}-mark`, [event('Marked')], 'no_stream')).position;
        const others = async (part: string) => {
          for (let i = 0; i < 7; i++)
            await store.appendToStream(
              `${stream}-${part}-${i}`,
              Array.from({ length: 500 }, () => event('Skipped')),
              'no_stream',
            );
        };
        await others('a');
        const first = await store.appendToStream(stream, [event(rare, { n: 1 })], 'no_stream');
        await others('b');
        const second = await store.appendToStream(stream, [event(rare, { n: 2 })], 0n);
        const expected = [first.position, second.position];
        let stored: bigint | undefined;
        await expect(
          store.scanAll(from, 10, types, async (position) => {
            stored = position;
            throw new Stopped();
          }),
        ).rejects.toBeInstanceOf(Stopped);
        expect(stored).toBeDefined();
        expect(stored!).toBeLessThan(first.position);
        // when
        const resumed = await store.scanAll(stored, 10, types);
        const read = await store.readAll(stored, 10, types);
        const delivered: bigint[] = [];
        const failures: unknown[] = [];
        const subscription = store.subscribeToAll(
          stored,
          async (e) => {
            if (e.type === rare) delivered.push(e.position);
          },
          (error) => failures.push(error),
        );
        try {
          await eventually(() => expect(delivered.length + failures.length).toBeGreaterThanOrEqual(2), 30_000);
        } finally {
          await subscription.close();
        }
        // then
        expect(failures).toEqual([]);
        expect(resumed.events.map((e) => e.position)).toEqual(expected);
        expect(read.map((e) => e.position)).toEqual(expected);
        expect(delivered).toEqual(expected);
      }, 120_000);
    });
  }
});

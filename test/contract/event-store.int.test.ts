import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GenericContainer, Wait, type StartedTestContainer } from 'testcontainers';
import { EsdbEventStore } from '../../src/infra/eventstoredb/esdb-event-store';
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
  }
});

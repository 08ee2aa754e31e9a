import { PostgresEventStore } from '../../../src/infra/postgres/postgres-event-store';
import type { NewEvent, RecordedEvent } from '../../../src/ports/event-store';
import { describeExternal, externalTarget } from '../../support/external';
import { dropSchema, freshSchema, onServer } from '../../support/postgres';

/**
 * The PostgreSQL log's global order under concurrent appends (src/infra/postgres/postgres-event-store.ts,
 * "Global order"): followers that read after their last position while 16 connections append must
 * see every event once, in strictly increasing positions, exactly as the table holds them. With
 * positions from a plain sequence a follower skips the events whose transaction commits after it
 * has read a higher position.
 */
const postgres = externalTarget('postgres');

const WRITERS = 16; // stores, each with its own connection for appends
const CALLERS = 4; // appends in flight on each store
const APPENDS = 50; // by each caller
const EVENTS = 5; // in each append
const TOTAL = WRITERS * CALLERS * APPENDS * EVENTS; // 16,000

const happened = (n: number): NewEvent => ({
  type: 'Happened',
  data: { n },
  metadata: { actor: { userId: 1, credential: 'session' }, correlationId: `c-${n}`, at: '2025-01-01T00:00:00.000Z' },
});

type Seen = readonly [position: bigint, streamId: string, revision: bigint];
const seen = (e: RecordedEvent): Seen => [e.position, e.streamId, e.revision];

function expectStrictlyIncreasing(events: readonly Seen[]): void {
  let before = 0n;
  let out = 0;
  for (const [position] of events) {
    if (position <= before) out += 1;
    before = position;
  }
  expect(out).toBe(0);
}

describeExternal('PostgreSQL log: global order under concurrent appends', postgres, () => {
  const url = postgres.kind === 'url' ? postgres.url : '';
  let schema: string;
  const stores: PostgresEventStore[] = [];
  const connect = async (options: { poolSize?: number; pollIntervalMs?: number } = {}) => {
    const store = await PostgresEventStore.connect(url, { schema, ...options });
    stores.push(store);
    return store;
  };

  beforeEach(() => {
    schema = freshSchema('order');
  });

  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
    await dropSchema(url, schema);
  });

  it(`given ${WRITERS} connections appending ${TOTAL} events, when followed by readAll and by a subscription, then both see exactly the table, in strictly increasing positions`, async () => {
    // given
    const writers = await Promise.all(Array.from({ length: WRITERS }, () => connect({ poolSize: 1 })));
    const reader = await connect({ poolSize: 1 });
    const subscriber = await connect({ poolSize: 1 });
    const subscribed: Seen[] = [];
    const subscription = subscriber.subscribeToAll(undefined, async (e) => {
      subscribed.push(seen(e));
    });
    let writing = true;
    const appends = writers.flatMap((writer, w) =>
      Array.from({ length: CALLERS }, async (_, c) => {
        const stream = `s-${w}-${c}`;
        for (let a = 0; a < APPENDS; a += 1) {
          const events = Array.from({ length: EVENTS }, (_, e) => happened(a * EVENTS + e));
          await writer.appendToStream(stream, events, a === 0 ? 'no_stream' : BigInt(a * EVENTS - 1));
        }
      }),
    );
    const written = Promise.all(appends).finally(() => {
      writing = false;
    });
    // when: a follower reads after its last position while the appends go on, and once more after
    const followed: Seen[] = [];
    let reads = 0;
    for (;;) {
      const done = !writing;
      const page = await reader.readAll(followed.at(-1)?.[0], 1000);
      reads += 1;
      followed.push(...page.map(seen));
      if (done && page.length === 0) break;
    }
    await written;
    const head = await reader.headPosition();
    const deadline = Date.now() + 60_000;
    while (subscribed.at(-1)?.[0] !== head) {
      if (Date.now() > deadline)
        throw new Error(`the subscription stopped at ${subscribed.at(-1)?.[0]}, the head is ${head}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await subscription.close();
    // then
    const table = await onServer(url, async (client) => {
      const { rows } = await client.query<{ position: string; stream_id: string; revision: string }>(
        `select position, stream_id, revision from "${schema}".events order by position`,
      );
      return rows.map((r): Seen => [BigInt(r.position), r.stream_id, BigInt(r.revision)]);
    });
    expect(table).toHaveLength(TOTAL);
    expect(reads).toBeGreaterThan(2); // it followed while the appends went on, not only after
    expect(followed.length).toBe(TOTAL);
    expect(followed).toEqual(table);
    expectStrictlyIncreasing(followed);
    expect(subscribed.length).toBe(TOTAL);
    expect(subscribed).toEqual(table);
    expectStrictlyIncreasing(subscribed);
    expect((await reader.verifyIntegrity()).firstMismatch).toBeNull();
  }, 180_000);
});

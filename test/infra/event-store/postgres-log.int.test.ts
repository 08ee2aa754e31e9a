import pg from 'pg';
import { eventHash, GENESIS } from '../../../src/audit/log-hash';
import { MIGRATIONS } from '../../../src/infra/postgres/migrations';
import { PostgresEventStore, type PostgresEventStoreOptions } from '../../../src/infra/postgres/postgres-event-store';
import type { EventMetadata } from '../../../src/domain/event';
import { WrongExpectedRevisionError, type RecordedEvent } from '../../../src/ports/event-store';
import { IdempotencyClaimLostError } from '../../../src/ports/idempotency-keys';
import { describeExternal, externalTarget } from '../../support/external';
import { dropSchema, freshSchema, onServer } from '../../support/postgres';

/**
 * What the PostgreSQL log does beyond the event store contract (test/contract): its schema
 * migrated once however many processes connect at once, the group commit, the hash chain in the
 * append's transaction, the sweep of expired idempotency keys, and the followers woken by
 * LISTEN/NOTIFY (the poll only behind it).
 */
const postgres = externalTarget('postgres');

const metadata: EventMetadata = {
  actor: { userId: 1, credential: 'session' },
  correlationId: 'c',
  at: '2025-03-01T00:00:00.000Z',
};
const happened = (n: number) => ({ type: 'Happened', data: { n }, metadata });

/** Waits for a condition, failing with `what` when it does not hold within the bound. */
async function until(what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describeExternal('PostgreSQL log', postgres, () => {
  const url = postgres.kind === 'url' ? postgres.url : '';
  let schema: string;
  const stores: PostgresEventStore[] = [];
  const open = (options: Omit<PostgresEventStoreOptions, 'schema'> = {}) => {
    const store = PostgresEventStore.open(url, { schema, ...options });
    stores.push(store);
    return store;
  };
  const connect = async (options: Omit<PostgresEventStoreOptions, 'schema'> = {}) => {
    const store = open(options);
    await store.ping();
    await store.headPosition(); // waits for the migrations
    return store;
  };
  const sql = <R extends object>(text: string) =>
    onServer(url, async (client) => (await client.query<R>(text.replaceAll('$schema', `"${schema}"`))).rows);

  beforeEach(() => {
    schema = freshSchema('log');
  });

  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
    await dropSchema(url, schema);
  });

  describe('migrations', () => {
    it('given a fresh schema, when 4 stores connect to it at once, then all connect and each migration is applied once', async () => {
      // when
      const connecting = Array.from({ length: 4 }, () => PostgresEventStore.connect(url, { schema }));
      const outcomes = await Promise.allSettled(connecting);
      for (const outcome of outcomes) if (outcome.status === 'fulfilled') stores.push(outcome.value);
      // then
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
      const applied = await sql<{ version: number }>('select version from $schema.schema_migrations order by version');
      expect(applied.map((row) => row.version)).toEqual(MIGRATIONS.map((m) => m.version));
      const identities = await Promise.all(stores.map((store) => store.identity()));
      expect(new Set(identities).size).toBe(1);
      expect(identities[0]).toMatch(/^postgres:[0-9a-f-]{36}$/);
    });

    it('given a migrated schema with events, when another store connects, then nothing is applied again and the log is kept', async () => {
      // given
      const first = await connect();
      await first.appendToStream('s-1', [happened(0)], 'no_stream');
      const identity = await first.identity();
      // when
      const second = await connect();
      // then
      expect(await second.identity()).toBe(identity);
      expect(await second.readStream('s-1')).toHaveLength(1);
      expect(await sql('select version from $schema.schema_migrations')).toHaveLength(MIGRATIONS.length);
    });

    it('given a database in another encoding than UTF8, when a store connects, then it refuses, naming the encoding', async () => {
      // given
      const database = `log_${schema}`;
      await sql(`create database ${database} encoding 'SQL_ASCII' template template0 lc_collate 'C' lc_ctype 'C'`);
      try {
        const other = new URL(url);
        other.pathname = `/${database}`;
        // when
        const connecting = PostgresEventStore.connect(other.toString(), { schema });
        // then
        await expect(connecting).rejects.toThrow(/encoding is SQL_ASCII: the event log needs UTF8/);
      } finally {
        await sql(`drop database if exists ${database} with (force)`);
      }
    });

    it('given a schema name that could not be written into SQL as it is, then the store refuses it', () => {
      expect(() => PostgresEventStore.open(url, { schema: 'events"; drop table x; --' })).toThrow(/schema name/);
    });
  });

  describe('group commit', () => {
    it('given appends in one commit with one refused, then the others are stored, and the chain holds over them', async () => {
      // given
      const store = await connect();
      await store.appendToStream('s-1', [happened(0)], 'no_stream');
      // when: three appends asked for together, so written in one commit
      const outcomes = await Promise.allSettled([
        store.appendToStream('s-1', [happened(1), happened(2)], 0n),
        store.appendToStream('s-1', [happened(3)], 0n), // refused: the first took revision 1
        store.appendToStream('s-2', [happened(4)], 'no_stream'),
      ]);
      // then
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect((outcomes[1] as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedRevisionError);
      expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value.position : null))).toEqual([3n, null, 4n]);
      expect((await store.readStream('s-1')).map((e) => e.data)).toEqual([{ n: 0 }, { n: 1 }, { n: 2 }]);
      const report = await store.verifyIntegrity();
      expect(report).toMatchObject({ events: 4, unchained: 0, chainedFrom: 1n, firstMismatch: null });
      expect(report.head?.position).toBe(4n);
      expect(await store.integrityHead()).toEqual(report.head);
    });

    it('given the connection of a commit cut while it waits for the log, then its appends fail alone and the next ones are written', async () => {
      // given: the log's row held by another session, so the store's commit waits for it
      const store = await connect();
      await store.appendToStream('s-1', [happened(0)], 'no_stream');
      const holder = new pg.Client({ connectionString: url });
      await holder.connect();
      try {
        await holder.query('begin');
        await holder.query(`select * from "${schema}".log_head for update`);
        const waiting = store.appendToStream('s-1', [happened(1)], 0n);
        // The session our holder blocks, not any other waiting on a lock in the cluster (test files run in parallel).
        const holderPid = (await holder.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
        const waitingPid = async () =>
          (
            await sql<{ pid: number }>(
              `select pid from pg_stat_activity where ${holderPid} = any(pg_blocking_pids(pid))`,
            )
          )[0]?.pid;
        await until('the commit waits for the log', async () => (await waitingPid()) !== undefined);
        // when
        await sql(`select pg_terminate_backend(${await waitingPid()})`);
        // then
        await expect(waiting).rejects.toBeInstanceOf(Error);
        await holder.query('rollback');
        expect((await store.appendToStream('s-1', [happened(2)], 0n)).nextExpectedRevision).toBe(1n);
        expect((await store.readStream('s-1')).map((e) => e.data)).toEqual([{ n: 0 }, { n: 2 }]);
      } finally {
        await holder.end();
      }
    });

    it('given two appends of one stream in one commit, then the second goes on from the first', async () => {
      const store = await connect();
      const [a, b] = await Promise.all([
        store.appendToStream('s-1', [happened(0)], 'no_stream'),
        store.appendToStream('s-1', [happened(1)], 0n),
      ]);
      expect([a.nextExpectedRevision, b.nextExpectedRevision]).toEqual([0n, 1n]);
      expect(b.position).toBe(a.position + 1n);
    });

    it('given a claim taken over, when its first holder appends in a commit with others, then only that append fails', async () => {
      // given
      const store = await connect();
      const claim = { scope: 'user:1', key: 'k-1', owner: 'a' };
      const record = { fingerprint: 'fp', now: 1_000, expiresAt: 90_000_000 };
      await store.claimIdempotencyKey(claim, record);
      await store.claimIdempotencyKey({ ...claim, owner: 'b' }, record, 'a');
      // when
      const outcomes = await Promise.allSettled([
        store.appendToStream('s-1', [happened(0)], 'no_stream', { idempotency: claim }),
        store.appendToStream('s-2', [happened(1)], 'no_stream'),
      ]);
      // then
      expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'fulfilled']);
      expect((outcomes[0] as PromiseRejectedResult).reason).toBeInstanceOf(IdempotencyClaimLostError);
      expect(await store.readStream('s-1')).toEqual([]);
      expect((await store.readIdempotencyKey(claim, 1_000))?.write).toBeUndefined();
    });
  });

  describe('scanAll, window by window', () => {
    const skipped = (count: number) => Array.from({ length: count }, (_, n) => ({ ...happened(n), type: 'Skipped' }));
    const rare = (n: number) => ({ ...happened(n), type: 'Rare' });

    it('given a rare type past several windows, when scanned, then each window passed before it is reported, and the scan reaches the end', async () => {
      // given: Rare at positions 351 and 602 of 602
      const store = await connect({ scanWindow: 100 });
      await store.appendToStream('s-1', [...skipped(350), rare(1), ...skipped(250), rare(2)], 'no_stream');
      const passed: bigint[] = [];
      // when
      const scanned = await store.scanAll(undefined, 10, new Set(['Rare']), async (position) => {
        passed.push(position);
      });
      // then
      expect(scanned.events.map((e) => [e.position, e.data])).toEqual([
        [351n, { n: 1 }],
        [602n, { n: 2 }],
      ]);
      expect(scanned.scannedTo).toBe(602n);
      expect(passed).toEqual([100n, 200n, 300n]);
    });

    it('given more events of the type than asked for, when scanned, then it stops at the last one answered', async () => {
      const store = await connect({ scanWindow: 100 });
      await store.appendToStream('s-1', [...skipped(150), rare(1), rare(2), ...skipped(10)], 'no_stream');

      const scanned = await store.scanAll(100n, 1, new Set(['Rare']));

      expect(scanned.events.map((e) => e.position)).toEqual([151n]);
      expect(scanned.scannedTo).toBe(151n);
    });

    it('given a scan whose caller gives up (its lease lost), then the scan stops with that error', async () => {
      const store = await connect({ scanWindow: 100 });
      await store.appendToStream('s-1', skipped(500), 'no_stream');
      const lost = new Error('lease lost');
      let asked = 0;

      const scanning = store.scanAll(undefined, 10, new Set(['Rare']), async () => {
        asked += 1;
        throw lost;
      });

      await expect(scanning).rejects.toBe(lost);
      expect(asked).toBe(1);
    });
  });

  describe('hash chain', () => {
    type StoredEvent = {
      stream_id: string;
      revision: string;
      type: string;
      data: string;
      metadata: string;
      hash: Buffer;
    };
    const storedEvents = () =>
      sql<StoredEvent>('select stream_id, revision, type, data, metadata, hash from $schema.events order by position');
    /** Each stored hash is the event hash over its bytes and its predecessor's; answers the last. */
    const expectChained = (rows: readonly StoredEvent[]): string => {
      let previous = GENESIS;
      for (const row of rows) {
        previous = eventHash(previous, row.stream_id, BigInt(row.revision), row.type, row.data, row.metadata);
        expect(row.hash.toString('hex')).toBe(previous);
      }
      return previous;
    };

    it('given appends from two stores in turn, then each stored hash is the event hash over its bytes and its predecessor', async () => {
      // given
      const [a, b] = [await connect(), await connect()];
      for (let i = 0; i < 6; i += 1) await (i % 2 === 0 ? a : b).appendToStream(`s-${i}`, [happened(i)], 'no_stream');
      // when
      const rows = await storedEvents();
      // then
      const previous = expectChained(rows);
      expect(rows).toHaveLength(6);
      expect(await b.integrityHead()).toEqual({ position: 6n, hash: previous });
      expect((await a.verifyIntegrity()).firstMismatch).toBeNull();
    });

    it('given streams and types that JSON escapes, text beyond ASCII and an event past 16 KB, then the server hashes the bytes the log-hash definition gives', async () => {
      // given: every character class JSON.stringify writes its own way, in the identity's strings
      const store = await connect();
      const odd = 'q"b\\s/\b\f\n\r\t\u0001\u001f\u007f-é-日本-😀';
      await store.appendToStream(`s-${odd}`, [{ type: `T-${odd}`, data: { text: odd }, metadata }], 'no_stream');
      await store.appendToStream(
        's-large',
        [{ type: 'Large', data: { text: 'ü'.repeat(20_000) }, metadata }],
        'no_stream',
      );
      await store.appendToStream(`s-${odd}`, [happened(1), happened(2)], 0n);
      // when
      const rows = await storedEvents();
      // then
      expect(rows.map((row) => row.stream_id)).toEqual([`s-${odd}`, 's-large', `s-${odd}`, `s-${odd}`]);
      expectChained(rows);
      expect((await store.verifyIntegrity()).firstMismatch).toBeNull();
    });

    it('given an event edited behind the store, when verified, then that event is named', async () => {
      // given
      const store = await connect();
      for (let i = 0; i < 5; i += 1) await store.appendToStream(`s-${i}`, [happened(i)], 'no_stream');
      await sql(`update $schema.events set data = '{"n":99}' where position = 3`);
      // when
      const report = await store.verifyIntegrity();
      // then
      expect(report.firstMismatch).toEqual({
        position: 3n,
        streamId: 's-2',
        revision: 0n,
        type: 'Happened',
        problem: 'hash',
      });
      expect(report.head?.position).toBe(2n);
    });

    it('given an event deleted behind the store, when verified, then the one after it is named', async () => {
      const store = await connect();
      for (let i = 0; i < 5; i += 1) await store.appendToStream(`s-${i}`, [happened(i)], 'no_stream');
      await sql('delete from $schema.events where position = 2');
      expect((await store.verifyIntegrity()).firstMismatch).toMatchObject({ position: 3n, problem: 'hash' });
    });
  });

  describe('idempotency keys', () => {
    const at = 1_750_000_000_000;
    const day = 24 * 60 * 60 * 1000;

    it('given a key past its expiry, when another key is claimed later, then the expired record is swept', async () => {
      // given
      const store = await connect();
      const expired = { scope: 'user:1', key: 'old' };
      await store.claimIdempotencyKey({ ...expired, owner: 'a' }, { fingerprint: 'fp', now: at, expiresAt: at + day });
      // when
      await store.claimIdempotencyKey(
        { scope: 'user:1', key: 'new', owner: 'b' },
        { fingerprint: 'fp', now: at + 2 * day, expiresAt: at + 3 * day },
      );
      // then: gone, even to a reader asking at a time it was alive
      expect(await store.readIdempotencyKey(expired, at)).toBeUndefined();
      expect(await store.readIdempotencyKey({ scope: 'user:1', key: 'new' }, at + 2 * day)).toMatchObject({
        owner: 'b',
      });
    });

    it('given a key past its expiry with a write and an answer, when claimed again, then it starts afresh', async () => {
      const store = await connect();
      const key = { scope: 'user:1', key: 'k' };
      await store.claimIdempotencyKey({ ...key, owner: 'a' }, { fingerprint: 'fp', now: at, expiresAt: at + 1000 });
      await store.appendToStream('s-1', [happened(0)], 'no_stream', { idempotency: { ...key, owner: 'a' } });
      await store.completeIdempotencyKey({ ...key, owner: 'a' }, { status: 201, contentType: null, body: '' });

      const claimed = await store.claimIdempotencyKey(
        { ...key, owner: 'b' },
        { fingerprint: 'other', now: at + 1000, expiresAt: at + 2000 },
      );

      expect(claimed).toBe(true);
      expect(await store.readIdempotencyKey(key, at + 1000)).toEqual({
        fingerprint: 'other',
        owner: 'b',
        claimedAt: at + 1000,
        expiresAt: at + 2000,
      });
    });
  });

  describe('followers', () => {
    /** The LISTEN connection of the store on this schema, as the server sees it. */
    const listening = async () =>
      (
        await sql<{ pid: number }>(
          `select pid from pg_stat_activity where query = 'listen "event_log_' || '${schema}' || '"'`,
        )
      ).map((row) => row.pid);

    it('given a follower that would not poll for an hour, when another store appends, then the notification wakes it', async () => {
      // given
      const writer = await connect();
      const follower = await connect({ pollIntervalMs: 3_600_000 });
      const received: RecordedEvent[] = [];
      const subscription = follower.subscribeToAll(undefined, async (e) => {
        received.push(e);
      });
      try {
        await until('the follower listens', async () => (await listening()).length === 1);
        // when
        await writer.appendToStream('s-1', [happened(1)], 'no_stream');
        // then
        await until('the event is delivered', () => received.length === 1);
        await writer.appendToStream('s-1', [happened(2)], 0n);
        await until('the next one too', () => received.length === 2);
        expect(received.map((e) => e.data)).toEqual([{ n: 1 }, { n: 2 }]);
      } finally {
        await subscription.close();
      }
    });

    it('given the LISTEN connection cut, then the follower listens again and delivers what was appended meanwhile', async () => {
      // given
      const writer = await connect();
      const follower = await connect({ pollIntervalMs: 3_600_000 });
      const received: RecordedEvent[] = [];
      const subscription = follower.subscribeToAll(undefined, async (e) => {
        received.push(e);
      });
      try {
        await until('the follower listens', async () => (await listening()).length === 1);
        const [cut] = await listening();
        // when
        await sql(`select pg_terminate_backend(${cut})`);
        await writer.appendToStream('s-1', [happened(1)], 'no_stream');
        // then
        await until('the event is delivered', () => received.length === 1);
        await until('the follower listens again', async () => {
          const pids = await listening();
          return pids.length === 1 && pids[0] !== cut;
        });
        await writer.appendToStream('s-1', [happened(2)], 0n);
        await until('the next one is delivered', () => received.length === 2);
      } finally {
        await subscription.close();
      }
    });
  });
});

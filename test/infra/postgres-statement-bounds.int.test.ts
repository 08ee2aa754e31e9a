import { Readable } from 'node:stream';
import pg from 'pg';
import type { EventMetadata } from '../../src/domain/event';
import { PostgresEventStore } from '../../src/infra/postgres/postgres-event-store';
import { PostgresFileStore } from '../../src/infra/postgres/postgres-file-store';
import { PostgresPersonalDataKeys } from '../../src/infra/postgres/postgres-personal-data-keys';
import { isTransientStoreError } from '../../src/projections/transient-error';
import { blackholeProxy } from '../support/blackhole-proxy';
import { describeExternal, externalTarget } from '../support/external';
import { dropSchema, freshSchema } from '../support/postgres';

/**
 * Every PostgreSQL store of the service bounds its statements twice: the server cancels one past
 * the statement bound (57014, a passing failure: the request answers 503), so that nothing a
 * client abandoned runs on holding a connection and a lock; and the client gives one up a little
 * later where the network no longer answers at all. Each store here, against a lock another
 * session holds on its table, then across a link that turns into a black hole.
 */
const postgres = externalTarget('postgres');

const BOUND_MS = 300;
const metadata: EventMetadata = {
  actor: { userId: 1, credential: 'session' },
  correlationId: 'c',
  at: '2025-03-01T00:00:00.000Z',
};

type Bounded = {
  /** The table the store's call reads or writes. */
  readonly table: string;
  /** One call of the store that needs its table. */
  readonly call: () => Promise<unknown>;
  readonly close: () => Promise<void>;
};

/** Each store on `url` in `schema`, its statements bound to BOUND_MS, with one call that needs its table. */
const STORES: Record<string, (url: string, schema: string) => Promise<Bounded>> = {
  'the log, a read': async (url, schema) => {
    const store = await PostgresEventStore.connect(url, { schema, statementTimeoutMs: BOUND_MS });
    return { table: 'events', call: () => store.readStream('s-1'), close: () => store.close() };
  },
  'the log, a group commit': async (url, schema) => {
    const store = await PostgresEventStore.connect(url, { schema, statementTimeoutMs: BOUND_MS });
    let n = 0;
    return {
      table: 'events',
      call: () => store.appendToStream(`s-${(n += 1)}`, [{ type: 'Happened', data: { n }, metadata }], 'no_stream'),
      close: () => store.close(),
    };
  },
  "the personal-data keys, a person's key": async (url, schema) => {
    const keys = await PostgresPersonalDataKeys.connect(url, schema, BOUND_MS);
    let user = 0;
    return { table: 'personal_data_keys', call: () => keys.keyFor((user += 1)), close: () => keys.close() };
  },
  "the files, a file's size": async (url, schema) => {
    const files = await PostgresFileStore.connect(url, { schema, queryTimeoutMs: BOUND_MS });
    const staged = await files.stage(Readable.from([Buffer.from('bytes')]));
    await files.commit(staged, 'resource_files/abc/a.txt');
    return { table: 'stored_files', call: () => files.stat('resource_files/abc/a.txt'), close: () => files.close() };
  },
};

describeExternal('every PostgreSQL store bounds its statements', postgres, () => {
  const url = postgres.kind === 'url' ? postgres.url : '';
  let schema: string;
  let opened: Bounded | undefined;
  beforeEach(() => {
    schema = freshSchema('bounds');
  });
  afterEach(async () => {
    await opened?.close();
    opened = undefined;
    await dropSchema(url, schema);
  });

  describe.each(Object.keys(STORES))('%s', (name) => {
    it('given its table locked by another session, then the server cancels the call past the bound, and nothing of the store waits on after', async () => {
      // given: the store, and another session holding its table
      opened = await STORES[name]!(url, schema);
      await opened.call();
      const holder = new pg.Client({ connectionString: url });
      await holder.connect();
      try {
        await holder.query('begin');
        await holder.query(`lock table "${schema}".${opened.table} in access exclusive mode`);
        const pid = (await holder.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;

        // when: the store's call meets the lock
        const failed = await opened.call().then(
          () => null,
          (error: unknown) => error,
        );

        // then: the server's own cancel, a passing failure; no session of the store still waits
        expect(failed).toMatchObject({ code: '57014' });
        expect(isTransientStoreError(failed)).toBe(true);
        const { rows } = await holder.query<{ waiting: string }>(
          'select count(*) as waiting from pg_stat_activity where $1 = any(pg_blocking_pids(pid))',
          [pid],
        );
        expect(Number(rows[0]!.waiting)).toBe(0);
      } finally {
        await holder.query('rollback').catch(() => undefined);
        await holder.end();
      }
      // and: once the lock is gone the store answers again
      await expect(opened.call()).resolves.not.toThrow();
    });

    it('given its link to the server turned into a black hole, then the client gives the call up, a passing failure, and answers again once the link is back', async () => {
      // given: the store across a link that can stop carrying anything, a call made
      const target = new URL(url);
      const proxy = await blackholeProxy({ host: target.hostname, port: Number(target.port || 5432) });
      try {
        const through = new URL(url);
        through.port = new URL(proxy.url).port;
        opened = await STORES[name]!(through.toString(), schema);
        await opened.call();

        // when: nothing crosses the link any more
        proxy.blackhole();
        const failed = await opened.call().then(
          () => null,
          (error: unknown) => error,
        );

        // then: the call failed, as a passing failure, instead of waiting on
        expect(failed).toBeInstanceOf(Error);
        expect(isTransientStoreError(failed)).toBe(true);
        // and: with the link back, the store answers again (the connection given up was not reused)
        proxy.restore();
        await expect(opened.call()).resolves.not.toThrow();
      } finally {
        await opened?.close();
        opened = undefined;
        await proxy.close();
      }
    });
  });
});

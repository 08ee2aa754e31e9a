/**
 * The stores' connections to PostgreSQL have the server parse and plan each parameterized
 * statement once per connection (PreparingClient): the answers stay those of the values given,
 * whatever the connection has prepared before, after a connection is cut, and in pipeline mode.
 */
import pg from 'pg';
import { PostgresEventStore } from '../../src/infra/postgres/postgres-event-store';
import { PreparingClient } from '../../src/infra/postgres/preparing-client';
import { describeExternal, externalTarget } from '../support/external';
import { dropSchema, freshSchema, onServer } from '../support/postgres';

const target = externalTarget('postgres');

/** The statements this connection holds prepared whose text is `text`. */
async function preparedAs(client: pg.PoolClient, text: string): Promise<number> {
  const { rows } = await client.query<{ n: string }>(
    'select count(*) as n from pg_prepared_statements where statement = $1',
    [text],
  );
  return Number(rows[0]!.n);
}

/** Runs `work` on one connection of `pool`, handed back after. */
async function onConnection<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    return await work(client);
  } finally {
    client.release();
  }
}

describeExternal('prepared statements on PostgreSQL', target, () => {
  const url = target.kind === 'url' ? target.url : '';
  const pools: pg.Pool[] = [];
  const pool = (options: pg.PoolConfig = {}) => {
    const made = new pg.Pool({ connectionString: url, max: 1, Client: PreparingClient, ...options });
    made.on('error', () => undefined);
    pools.push(made);
    return made;
  };
  afterAll(async () => {
    for (const made of pools) await made.end();
  });

  it('given a statement with values run three times on one connection, then each answers its own values and the connection prepared it once', async () => {
    await onConnection(pool(), async (client) => {
      const text = 'select $1::int + $2::int as sum';
      const sums = [];
      for (const [a, b] of [
        [1, 2],
        [10, 20],
        [-5, 5],
      ])
        sums.push((await client.query<{ sum: number }>(text, [a, b])).rows[0]!.sum);
      expect(sums).toEqual([3, 30, 0]);
      expect(await preparedAs(client, text)).toBe(1);
    });
  });

  it('given statements given as configs and with callbacks, then each answers as node-postgres does unnamed', async () => {
    await onConnection(pool(), async (client) => {
      const text = "select $1::text || '!' as said";
      const fromConfig = await client.query<{ said: string }>({ text, values: ['config'] });
      const fromCallback = await new Promise<string>((resolve, reject) =>
        client.query<{ said: string }>(text, ['callback'], (error, result) =>
          error ? reject(error) : resolve(result.rows[0]!.said),
        ),
      );
      const asArray = await client.query({ text, values: ['rows'], rowMode: 'array' });
      expect([fromConfig.rows[0]!.said, fromCallback, asArray.rows[0]]).toEqual(['config!', 'callback!', ['rows!']]);
      expect(await preparedAs(client, text)).toBe(1);
    });
  });

  it('given statements handed to the pool (which passes its own callback), as text and as configs, then each is answered and prepared once', async () => {
    const only = pool();
    const text = 'select $1::int - $2::int as difference';
    const answers = [
      (await only.query<{ difference: number }>(text, [5, 3])).rows[0]!.difference,
      (await only.query<{ difference: number }>({ text, values: [9, 3] })).rows[0]!.difference,
      (await only.query({ text, values: [1, 3], rowMode: 'array' })).rows[0],
    ];
    expect(answers).toEqual([2, 6, [-2]]);
    await onConnection(only, async (client) => {
      expect(await preparedAs(client, text)).toBe(1);
    });
  });

  it('given a statement without values, one named by its caller, and one with more than 64 values, then the connection prepares none of them itself', async () => {
    await onConnection(pool(), async (client) => {
      const bare = 'select 41 + 1 as answer';
      const many = `select ${Array.from({ length: 65 }, (_, i) => `$${i + 1}::int`).join(' + ')} as total`;
      const own = 'select $1::int * 2 as twice';
      expect((await client.query(bare)).rows[0]).toEqual({ answer: 42 });
      expect(
        (
          await client.query(
            many,
            Array.from({ length: 65 }, () => 1),
          )
        ).rows[0],
      ).toEqual({ total: 65 });
      expect((await client.query({ name: 'twice', text: own, values: [4] })).rows[0]).toEqual({ twice: 8 });
      expect([await preparedAs(client, bare), await preparedAs(client, many)]).toEqual([0, 0]);
      const { rows } = await client.query<{ name: string }>(
        'select name from pg_prepared_statements where statement = $1',
        [own],
      );
      expect(rows).toEqual([{ name: 'twice' }]);
    });
  });

  it('given a connection the server ended after it prepared a statement, then the next connection prepares it again and answers', async () => {
    const only = pool();
    const text = 'select $1::int as echoed, pg_backend_pid() as pid';
    const first = await only.query<{ echoed: number; pid: number }>(text, [1]);
    await onServer(url, (admin) => admin.query('select pg_terminate_backend($1)', [first.rows[0]!.pid]));
    // The pool may hand out the ended connection once more: the query fails, and the pool drops it.
    let second: pg.QueryResult<{ echoed: number; pid: number }> | undefined;
    for (let attempt = 0; attempt < 3 && !second; attempt++)
      second = await only.query<{ echoed: number; pid: number }>(text, [2]).catch(() => undefined);
    expect(second?.rows[0]?.echoed).toBe(2);
    expect(second?.rows[0]?.pid).not.toBe(first.rows[0]!.pid);
  });

  it('given a column added to the idempotency keys while a store runs (a later release migrating), then the store still reads its keys', async () => {
    const schema = freshSchema('prepared');
    const store = await PostgresEventStore.connect(url, { schema, poolSize: 1 });
    try {
      const at = 1_750_000_000_000;
      const key = { scope: 'user:7', key: 'k-1' };
      await store.claimIdempotencyKey({ ...key, owner: 'a' }, { fingerprint: 'fp', now: at, expiresAt: at + 60_000 });
      expect(await store.readIdempotencyKey(key, at)).toMatchObject({ owner: 'a' });

      await onServer(url, (admin) => admin.query(`alter table "${schema}".idempotency_keys add column later text`));

      expect(await store.readIdempotencyKey(key, at)).toMatchObject({ owner: 'a', fingerprint: 'fp' });
    } finally {
      await store.close();
      await dropSchema(url, schema);
    }
  });

  it('given one statement sent three times in a row before its first answer, in pipeline mode, then both are answered by their values', async () => {
    await onConnection(pool({ pipeline: true } as pg.PoolConfig), async (client) => {
      const text = 'select $1::int * 3 as tripled';
      const answers = await Promise.all([1, 2, 3].map((n) => client.query<{ tripled: number }>(text, [n])));
      expect(answers.map((a) => a.rows[0]!.tripled)).toEqual([3, 6, 9]);
      expect(await preparedAs(client, text)).toBe(1);
    });
  });
});

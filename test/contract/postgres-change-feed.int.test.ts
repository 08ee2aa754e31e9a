/**
 * The PostgreSQL read models' change feed (src/infra/postgres/postgres-change-feed.ts), against
 * the real server, through what the service uses of it: a request looks at the feed as it starts
 * (startReading), and an answer remembered in one process is never served once a change to its
 * scope committed before that look, whoever committed it and however many committed at once.
 */
import { PostgresReadDb } from '../../src/infra/postgres/postgres-read-db';
import { postgresProjectionStore } from '../../src/infra/postgres/postgres-read-db';
import { postgresGenerations } from '../../src/infra/read-generations';
import { startReading } from '../../src/infra/read-db';
import { describeExternal, externalTarget } from '../support/external';
import { dropSchema, dropSchemasOf, freshSchema } from '../support/postgres';

const target = externalTarget('postgres');
const url = target.kind === 'url' ? target.url : '';

describeExternal('the PostgreSQL change feed', target, () => {
  let schema: string;
  /** Two writing processes and one serving reads, each with its own pool. */
  let writers: PostgresReadDb[];
  let server: PostgresReadDb;

  beforeEach(async () => {
    schema = freshSchema('feed');
    const open = () => PostgresReadDb.connect(url, { schema, queryTimeoutMs: 5000, poolSize: 6 });
    writers = [await open(), await open()];
    server = await open();
    await server.query('create table t (k text primary key, v integer not null)');
  });
  afterEach(async () => {
    await Promise.all([...writers, server].map((read) => read.close()));
    await dropSchema(url, schema);
  });

  /**
   * A committed write of `v` to key `k` (never lowering it, as a position guard does), which says
   * it changed scope `k`, as a projection batch does.
   */
  const commit = (writer: PostgresReadDb, k: string, v: number) =>
    writer.transaction(async () => {
      await writer.query(
        'insert into t as t (k, v) values ($1, $2) on conflict (k) do update set v = greatest(t.v, excluded.v)',
        [k, v],
      );
      writer.touch(k);
    });
  let reads = 0;
  /** The value of `k`, as a remembered answer of `server` read from scope `k`. */
  const answer = (k: string) =>
    server.answers.json(k, [k], async () => {
      reads += 1;
      const { rows } = await server.query<{ v: number }>('select v from t where k = $1', [k]);
      return String(rows[0]?.v ?? 0);
    });
  /** A request: it looks at the feed, then asks (twice the first time: a text is kept from its second ask). */
  const request = async (k: string) => {
    await startReading({ kind: 'postgres', postgres: server });
    return Number(await answer(k));
  };

  beforeEach(() => {
    reads = 0;
  });

  it('given commits from two processes on many connections at once, when requests look at the feed meanwhile, then none is answered a value older than a commit that ended before it began', async () => {
    // given
    const keys = ['a', 'b', 'c', 'd'];
    for (const k of keys) await commit(writers[0] as PostgresReadDb, k, 0);
    for (const k of keys) {
      await request(k);
      await request(k);
    }
    /** The highest value of each key whose commit ended. */
    const ended = new Map(keys.map((k) => [k, 0]));
    let writing = true;
    const writes = writers.flatMap((writer, w) =>
      // Four connections of each process committing at once: their transactions overlap.
      [0, 1, 2, 3].map(async (lane) => {
        for (let i = 1; i <= 30; i++) {
          const k = keys[(i + lane) % keys.length] as string;
          // Values rise with every round, whichever writer commits: a later end has a higher value.
          const v = i * 100 + w * 10 + lane;
          await commit(writer, k, v);
          ended.set(k, Math.max(ended.get(k) ?? 0, v));
        }
      }),
    );
    const all = Promise.all(writes).finally(() => (writing = false));
    // when
    const stale: string[] = [];
    let requests = 0;
    while (writing) {
      for (const k of keys) {
        const floor = ended.get(k) ?? 0;
        const seen = await request(k);
        requests += 1;
        // The value may be newer than the floor (a commit that ended meanwhile), never older.
        if (seen < floor) stale.push(`${k}: ${seen} < ${floor}`);
      }
    }
    await all;
    // then
    expect(stale).toEqual([]);
    expect(requests).toBeGreaterThan(0);
    for (const k of keys) expect(await request(k)).toBe(ended.get(k));
  });

  it('given an answer remembered, when another process commits to another scope, then it is served without reading; to its scope, then it is read again', async () => {
    // given
    await commit(writers[0] as PostgresReadDb, 'a', 1);
    await request('a');
    await request('a');
    reads = 0;
    // when
    await commit(writers[1] as PostgresReadDb, 'b', 5);
    const kept = await request('a');
    const readsKept = reads;
    await commit(writers[1] as PostgresReadDb, 'a', 2);
    const changed = await request('a');
    // then
    expect([kept, readsKept]).toEqual([1, 0]);
    expect([changed, reads]).toEqual([2, 1]);
  });

  it('given an answer remembered, when another process resets a read model, then every answer is read again', async () => {
    // given
    await commit(writers[0] as PostgresReadDb, 'a', 1);
    await request('a');
    await request('a');
    reads = 0;
    // when
    await postgresProjectionStore(writers[1] as PostgresReadDb, []).reset('notes');
    await request('a');
    // then
    expect(reads).toBe(1);
  });

  it('given an answer remembered, when more changes than a look reads at once were committed since, then everything is forgotten', async () => {
    // given
    await commit(writers[0] as PostgresReadDb, 'a', 1);
    await request('a');
    await request('a');
    reads = 0;
    // when: one commit naming more scopes than a look reads at once, none of them 'a'
    const writer = writers[1] as PostgresReadDb;
    await writer.transaction(async () => {
      for (let i = 0; i < 10_001; i++) writer.touch(`other:${i}`);
    });
    await request('a');
    // then
    expect(reads).toBe(1);
  });

  it('given a write in a process, when that process reads after it, then it reads the write without looking at the feed again', async () => {
    // given
    await commit(server, 'a', 1);
    await request('a');
    await request('a');
    // when
    await commit(server, 'a', 2);
    // then
    expect(Number(await answer('a'))).toBe(2);
  });

  it('given a change outside any transaction, when said, then it is refused: no other process would learn of it', () => {
    expect(() => server.touch('a')).toThrow(/outside a transaction/);
  });
});

describeExternal('the PostgreSQL change feed across generations', target, () => {
  it('given an answer remembered from one generation, when the read models switch to a copy of it, then the new generation answers it afresh', async () => {
    const base = freshSchema('feedgen');
    const generations = postgresGenerations(url, base, 5000, 4);
    try {
      const first = await generations.open(1);
      if (first.kind !== 'postgres') throw new Error('not a PostgreSQL generation');
      await first.postgres.query('create table t (v integer not null)');
      await first.postgres.query('insert into t values (1)');
      let reads = 0;
      const answer = async (read: PostgresReadDb) => {
        await startReading({ kind: 'postgres', postgres: read });
        return read.answers.json('v', ['t'], async () => {
          reads += 1;
          return String((await read.query<{ v: number }>('select v from t')).rows[0]?.v);
        });
      };
      await answer(first.postgres);
      await answer(first.postgres);
      const copy = await generations.openCopy?.(first, 2);
      if (copy?.kind !== 'postgres') throw new Error('not a PostgreSQL generation');
      await generations.switchTo(2);
      reads = 0;

      const answered = await answer(copy.postgres);

      expect([answered, reads]).toEqual(['1', 1]);
      await Promise.all([first.postgres.close(), copy.postgres.close()]);
    } finally {
      await generations.close();
      await dropSchemasOf(url, base);
    }
  });
});

/**
 * The PostgreSQL read database's own guarantees, against the real server: leases expire by the
 * server's clock and change token on takeover; a batch whose fence misses writes nothing; a batch
 * that fails leaves nothing; generations are schemas switched by one pointer and dropped whole.
 */
import { PostgresReadDb } from '../../src/infra/postgres/postgres-read-db';
import { postgresGenerations } from '../../src/infra/read-generations';
import { PostgresDocumentStore } from '../../src/infra/postgres/postgres-document-store';
import { LeaseLostError } from '../../src/projections/projection-lease';
import { readScope } from '../../src/projections/read-scopes';
import { describeExternal, externalTarget } from '../support/external';
import { dropSchema, dropSchemasOf, freshSchema, onServer } from '../support/postgres';

const target = externalTarget('postgres');
const url = target.kind === 'url' ? target.url : '';
const NOTES = [{ name: 'notes', indexes: {} }] as const;

describeExternal('the PostgreSQL read database', target, () => {
  let schema: string;
  let read: PostgresReadDb;
  let other: PostgresReadDb;

  beforeEach(async () => {
    schema = freshSchema('readdb');
    read = await PostgresReadDb.connect(url, { schema, queryTimeoutMs: 5000 });
    other = await PostgresReadDb.connect(url, { schema, queryTimeoutMs: 5000 });
  });
  afterEach(async () => {
    await Promise.all([read.close(), other.close()]);
    await dropSchema(url, schema);
  });

  it('given a lease held and renewed by its holder, when another asks, then it is refused until the lease expires by the server clock, then taken with a new token', async () => {
    const held = await read.leases.acquire('p', 'a', 300, 0);
    const renewed = await read.leases.acquire('p', 'a', 300, 0);
    // A client clock far in the future changes nothing: the server's decides.
    const refused = await other.leases.acquire('p', 'b', 300, Number.MAX_SAFE_INTEGER);
    await new Promise((resolve) => setTimeout(resolve, 400));
    const taken = await other.leases.acquire('p', 'b', 300, 0);

    expect(held?.token).toBe(1n);
    expect(renewed?.token).toBe(1n);
    expect(refused).toBeNull();
    expect(taken).toEqual({ projection: 'p', holder: 'b', token: 2n });
  });

  /**
   * A store of notes and holder a's lease on them, expired and then taken by b in another
   * process; `commitAsA` commits a batch at position 5 under a's lease.
   */
  const leaseTakenOver = async () => {
    const store = await PostgresDocumentStore.open(read, NOTES, readScope.documents('notes'));
    const lease = await read.leases.acquire('notes', 'a', 100, 0);
    await new Promise((resolve) => setTimeout(resolve, 150));
    await other.leases.acquire('notes', 'b', 10_000, 0);
    const commitAsA = (work: () => Promise<void>) =>
      store.projectionStore.commit('notes', 5n, work, { ...lease!, ttlMs: 10_000, nowMs: 0 });
    return { store, commitAsA };
  };

  it('given a holder whose lease was taken over, when it commits a batch, then the fence refuses it and nothing of the batch is written', async () => {
    const { store, commitAsA } = await leaseTakenOver();

    const commit = commitAsA(async () => {
      await store.save('notes', 1, { id: 1 }, 5n);
    });

    await expect(commit).rejects.toBeInstanceOf(LeaseLostError);
    expect(await store.get('notes', 1)).toBeNull();
    expect(await store.projectionStore.checkpoint('notes')).toBeUndefined();
  });

  it('given a holder whose lease was taken over, when its batch writes and then its fold throws, then the commit answers that the lease was lost and nothing is written', async () => {
    const { store, commitAsA } = await leaseTakenOver();

    const commit = commitAsA(async () => {
      await store.save('notes', 1, { id: 1 }, 5n);
      throw new Error('the fold failed');
    });

    await expect(commit).rejects.toBeInstanceOf(LeaseLostError);
    expect(await store.get('notes', 1)).toBeNull();
    expect(await other.leases.acquire('notes', 'b', 10_000, 0)).toMatchObject({ holder: 'b', token: 2n });
  });

  it('given a batch that fails half-way, then neither its writes nor its checkpoint remain, and the next batch commits', async () => {
    const store = await PostgresDocumentStore.open(read, NOTES, readScope.documents('notes'));

    const failing = store.projectionStore.commit('notes', 7n, async () => {
      await store.save('notes', 1, { id: 1 }, 6n);
      throw new Error('the projection failed on event 7');
    });
    await expect(failing).rejects.toThrow('event 7');
    await store.projectionStore.commit('notes', 8n, async () => {
      await store.save('notes', 2, { id: 2 }, 8n);
    });

    expect(await store.get('notes', 1)).toBeNull();
    expect(await store.get('notes', 2)).toEqual({ id: 2 });
    expect(await store.projectionStore.checkpoint('notes')).toBe(8n);
  });

  it("given a batch's write sent ahead that fails, when statements follow it and the batch commits, then nothing of the batch remains and the write's own error is thrown", async () => {
    await read.query('create table t (k integer primary key, v integer not null)');

    const failing = read.transaction(async () => {
      await read.write('insert into t (k, v) values (1, 1)');
      await read.write('insert into t (k, v) values (2, null)');
      await read.write('insert into t (k, v) values (3, 3)');
      // A read behind the failed write fails only because the transaction was aborted.
      await read.query('select count(*) from t');
      read.touch('t');
    });

    await expect(failing).rejects.toMatchObject({ code: '23502', column: 'v' });
    expect((await read.query('select k from t')).rows).toEqual([]);
    await read.transaction(() => read.write('insert into t (k, v) values (4, 4)'));
    expect((await other.query('select k from t')).rows).toEqual([{ k: 4 }]);
  });

  it('given the change feed past a multiple of its pruning step, when a commit crosses the next one, then the rows older than the kept number are dropped and the newer ones kept', async () => {
    const touching = (from: number, count: number) =>
      read.transaction(async () => {
        for (let n = from; n < from + count; n++) read.touch(`s${n}`);
      });
    const seqs = async () =>
      (
        await other.query<{ min: string; max: string; n: string }>(
          'select min(seq), max(seq), count(*) as n from read_changes',
        )
      ).rows[0];

    await touching(0, 55_000);
    const before = await seqs();
    await touching(55_000, 5_001);

    expect(before).toEqual({ min: '1', max: '55000', n: '55000' });
    // 60,001 rows written, crossing 60,000: those up to 60,001 - 50,000 dropped.
    expect(await seqs()).toEqual({ min: '10002', max: '60001', n: '50000' });
  });

  it("given a holder's batch running, when its lease is renewed meanwhile, then the renewal waits for the batch instead of failing", async () => {
    const store = await PostgresDocumentStore.open(read, NOTES, readScope.documents('notes'));
    const lease = await read.leases.acquire('notes', 'a', 10_000, 0);
    let release!: () => void;
    const running = new Promise<void>((resolve) => (release = resolve));
    const batch = store.projectionStore.commit(
      'notes',
      3n,
      async () => {
        await store.save('notes', 1, { id: 1 }, 3n);
        await running;
      },
      { ...lease!, ttlMs: 10_000, nowMs: 0 },
    );
    const renewal = read.leases.acquire('notes', 'a', 10_000, 0);
    release();

    await batch;
    expect(await renewal).toEqual(lease);
  });

  it("given a batch that ends late in its holder's lease, then the lease runs its whole TTL from the batch's end", async () => {
    const store = await PostgresDocumentStore.open(read, NOTES, readScope.documents('notes'));
    const lease = await read.leases.acquire('notes', 'a', 600, 0);

    await store.projectionStore.commit(
      'notes',
      4n,
      async () => {
        await store.save('notes', 1, { id: 1 }, 4n);
        await new Promise((resolve) => setTimeout(resolve, 400));
      },
      { ...lease!, ttlMs: 600, nowMs: 0 },
    );
    // Past the TTL from the batch's start, within it from the batch's end.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const refused = await other.leases.acquire('notes', 'b', 600, 0);
    await new Promise((resolve) => setTimeout(resolve, 400));
    const taken = await other.leases.acquire('notes', 'b', 600, 0);

    expect(refused).toBeNull();
    expect(taken?.token).toBe(2n);
    expect(await store.projectionStore.checkpoint('notes')).toBe(4n);
  });
});

describeExternal('read-model generations on PostgreSQL', target, () => {
  it('given a new generation built and switched to, when the old one is dropped, then the pointer names the new one and the old schema is gone, while generation 0 keeps the pointer', async () => {
    const base = freshSchema('gen');
    const generations = postgresGenerations(url, base, 5000);
    try {
      const first = await generations.open(1);
      if (first.kind !== 'postgres') throw new Error('not a PostgreSQL generation');
      await first.postgres.writeCheckpoint('notes', 4n);
      await first.postgres.close();
      const before = await generations.current();
      await generations.switchTo(1);
      const after = await generations.current();
      await generations.drop(1);
      const schemas = await onServer(url, async (client) =>
        (
          await client.query<{ nspname: string }>('select nspname from pg_namespace where nspname like $1 order by 1', [
            `${base}%`,
          ])
        ).rows.map((row) => row.nspname),
      );

      expect(before).toBe(0);
      expect(after).toBe(1);
      expect(schemas).toEqual([`${base}_read`]);
    } finally {
      await generations.close();
      await dropSchemasOf(url, base);
    }
  });

  it('given a rebuild lock held, when another process asks for it, then it is refused until released', async () => {
    const base = freshSchema('gen');
    const one = postgresGenerations(url, base, 5000);
    const two = postgresGenerations(url, base, 5000);
    try {
      const lock = await one.lockRebuild();
      const refused = await two.lockRebuild();
      await lock?.release();
      const next = await two.lockRebuild();

      expect(lock?.held).toBe(false);
      expect(refused).toBeNull();
      expect(next?.held).toBe(true);
      await next?.release();
    } finally {
      await Promise.all([one.close(), two.close()]);
      await dropSchemasOf(url, base);
    }
  });
});

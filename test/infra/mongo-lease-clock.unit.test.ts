/**
 * MongoDB leases expire by the server's clock (`$$NOW`), never by the clocks of the processes
 * that hold and watch them, which drift apart on several machines. On the mingo stand-in, whose
 * server clock the test sets apart from the processes' (the `nowMs` each passes).
 */
import { LeaseLostError } from '../../src/projections/projection-lease';
import { mongoProjectionStore } from '../../src/infra/mongo/mongo-read-db';
import { mingoReadDb } from '../support/mingo-mongo';

const TTL = 15_000;

function serverAt(startMs: number) {
  let now = startMs;
  const read = mingoReadDb({ transactions: true, serverNow: () => now });
  return { read, pass: (ms: number) => (now += ms) };
}

describe('MongoDB leases on the server clock', () => {
  it('given a live lease, when a standby whose clock runs an hour ahead tries to take it, then it is refused', async () => {
    const { read } = serverAt(1_000_000);
    await read.leases.acquire('resources', 'a', TTL, 1_000_000);

    expect(await read.leases.acquire('resources', 'b', TTL, 1_000_000 + 3_600_000)).toBeNull();
  });

  it("given a lease past its expiry on the server's clock, when a standby whose clock runs behind tries, then it takes it over with the next token", async () => {
    const { read, pass } = serverAt(1_000_000);
    expect(await read.leases.acquire('resources', 'a', TTL, 0)).toEqual({
      projection: 'resources',
      holder: 'a',
      token: 1n,
    });
    pass(TTL);

    expect(await read.leases.acquire('resources', 'b', TTL, 0)).toEqual({
      projection: 'resources',
      holder: 'b',
      token: 2n,
    });
    expect(await read.leases.acquire('resources', 'a', TTL, 10_000_000)).toBeNull();
  });

  it("given the holder renewing, then it keeps its token and the lease lives on from the server's now", async () => {
    const { read, pass } = serverAt(1_000_000);
    await read.leases.acquire('resources', 'a', TTL, 0);
    pass(TTL - 1);
    expect(await read.leases.acquire('resources', 'a', TTL, 0)).toEqual({
      projection: 'resources',
      holder: 'a',
      token: 1n,
    });
    pass(TTL - 1);

    expect(await read.leases.acquire('resources', 'b', TTL, 99_999_999)).toBeNull();
  });

  it("given a holder whose commit renewed the lease (its own clock far behind), then a standby still finds it live until the server's clock passes it", async () => {
    const { read, pass } = serverAt(1_000_000);
    const lease = await read.leases.acquire('resources', 'a', TTL, 0);
    if (!lease) throw new Error('given: a took the free lease');
    pass(TTL - 1);

    await mongoProjectionStore(read, []).commit('resources', 1n, async () => undefined, {
      ...lease,
      ttlMs: TTL,
      nowMs: 0,
    });
    pass(TTL - 1);
    expect(await read.leases.acquire('resources', 'b', TTL, 0)).toBeNull();
    pass(2);
    expect(await read.leases.acquire('resources', 'b', TTL, 0)).toMatchObject({ holder: 'b', token: 2n });
    await expect(
      mongoProjectionStore(read, []).commit('resources', 2n, async () => undefined, { ...lease, ttlMs: TTL, nowMs: 0 }),
    ).rejects.toBeInstanceOf(LeaseLostError);
  });
});

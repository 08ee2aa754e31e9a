/**
 * Idempotency records on EventStoreDB last as long as their key (24 hours), then are gone: each
 * claim sets its stream's `$maxAge`, the server stops returning events older than that by its
 * own clock and a scavenge deletes them (kurrent-io/KurrentDB IndexReader.cs reads an event
 * older than the stream's MaxAge as not found). Against the stand-in server
 * (test/support/fake-eventstoredb.ts) on a clock the test moves.
 */
import { EsdbEventStore, idempotencyStreamOf } from '../../../src/infra/eventstoredb/esdb-event-store';
import { FakeEventStoreDb } from '../../support/fake-eventstoredb';

const DAY_MS = 24 * 60 * 60 * 1000;

function serverAt(start: number) {
  let now = start;
  const server = new FakeEventStoreDb({ now: () => now });
  return { server, advance: (ms: number) => (now += ms), now: () => now };
}

function storeOn(server: FakeEventStoreDb): EsdbEventStore {
  // The constructor is private: production code connects through a connection string.
  const Store = EsdbEventStore as unknown as new (client: object) => EsdbEventStore;
  return new Store(server);
}

const answer = { status: 200, contentType: 'application/json', body: '{"id":1}' };

describe('EventStoreDB idempotency records expire', () => {
  const at = Date.UTC(2025, 5, 1, 12);
  const ref = { scope: 'user:7', key: 'key-1' };
  const claimed = { fingerprint: 'fp', now: at, expiresAt: at + DAY_MS };

  it('given a key claimed, then its stream is kept for as long as the key lasts: $maxAge 86,400 s', async () => {
    // given
    const { server } = serverAt(at);
    // when
    await storeOn(server).claimIdempotencyKey({ ...ref, owner: 'a' }, claimed);
    // then
    expect((await server.getStreamMetadata(idempotencyStreamOf(ref))).metadata).toEqual({ maxAge: 86_400 });
  });

  it('given a key answered, when the server passes its 24 hours, then the server no longer returns its record, read as of any time', async () => {
    // given
    const { server, advance } = serverAt(at);
    const store = storeOn(server);
    await store.claimIdempotencyKey({ ...ref, owner: 'a' }, claimed);
    await store.completeIdempotencyKey({ ...ref, owner: 'a' }, answer);
    expect(await store.readIdempotencyKey(ref, at)).toMatchObject({ answer });
    // when
    advance(DAY_MS + 1000);
    // then
    expect(await store.readIdempotencyKey(ref, at)).toBeUndefined();
    expect(await store.readStream(idempotencyStreamOf(ref))).toEqual([]);
  });

  it('given a key whose events are all past $maxAge, when it is claimed again, then the claim is taken although the stream is not new', async () => {
    // given
    const { server, advance, now } = serverAt(at);
    const store = storeOn(server);
    await store.claimIdempotencyKey({ ...ref, owner: 'a' }, claimed);
    await store.completeIdempotencyKey({ ...ref, owner: 'a' }, answer);
    advance(DAY_MS + 1000);
    // when
    const again = await store.claimIdempotencyKey(
      { ...ref, owner: 'b' },
      { fingerprint: 'fp-2', now: now(), expiresAt: now() + DAY_MS },
    );
    // then
    expect(again).toBe(true);
    expect(await store.readIdempotencyKey(ref, now())).toMatchObject({ owner: 'b', fingerprint: 'fp-2' });
  });

  it('given a key whose events are all past $maxAge, when two attempts claim it at once, then one gets it', async () => {
    // given
    const { server, advance, now } = serverAt(at);
    const store = storeOn(server);
    await store.claimIdempotencyKey({ ...ref, owner: 'a' }, claimed);
    advance(DAY_MS + 1000);
    const record = { fingerprint: 'fp-2', now: now(), expiresAt: now() + DAY_MS };
    // when
    const claims = await Promise.all([
      store.claimIdempotencyKey({ ...ref, owner: 'b' }, record),
      storeOn(server).claimIdempotencyKey({ ...ref, owner: 'c' }, record),
    ]);
    // then
    expect(claims.filter(Boolean)).toHaveLength(1);
    const winner = claims[0] ? 'b' : 'c';
    expect(await store.readIdempotencyKey(ref, now())).toMatchObject({ owner: winner });
  });
});

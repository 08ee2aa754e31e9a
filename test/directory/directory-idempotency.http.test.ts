/**
 * Idempotency-Key on the directory feed (POST /internal/directory/events), a POST that changes state
 * like the API's: a retried batch is stored once and its answer replayed; the same key with another batch
 * is a 422; a batch stored by an attempt that died before answering is answered from that write. Keys of
 * the feed belong to whoever holds the directory token, apart from every user's.
 */
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import { requestFingerprint } from '../../src/api/idempotency';
import { runUnderClaim } from '../../src/commands/idempotent-attempt';
import { systemActor } from '../../src/domain/event';
import { DIRECTORY_STREAM } from '../../src/directory/directory-events';
import { ingestDirectoryEvents } from '../../src/directory/ingest-directory-events';
import { serverForSuite } from '../support/suite-server';

const FEED = '/internal/directory/events';
const HOUR_MS = 3_600_000;
let counter = 0;
const newKey = () => `feed-${process.pid}-${Date.now()}-${++counter}`;
/** A batch that sets one user, unique to the test: its events are found in the log by the user id. */
const batchOf = (userId: number, name = `User ${userId}`) => ({
  events: [{ type: 'UserUpserted', data: { userId, name, status: 'active' } }],
});

describe('Idempotency-Key on the directory feed', () => {
  const server = serverForSuite([]);
  const send = (body: unknown, key?: string) =>
    server.request('POST', FEED, JSON.stringify(body), {
      headers: {
        'content-type': 'application/json',
        'x-directory-token': server.services.secrets.directoryToken,
        ...(key === undefined ? {} : { 'idempotency-key': key }),
      },
    });
  /** How many times the log holds an UserUpserted of this user. */
  const storedFor = async (userId: number): Promise<number> =>
    (await server.services.eventStore.readStream(DIRECTORY_STREAM)).filter(
      (e) => e.type === 'UserUpserted' && (e.data as { userId: number }).userId === userId,
    ).length;

  it('given a batch answered under a key, when it is sent again with that key, then the answer is replayed and the batch is stored once', async () => {
    const key = newKey();
    const first = await send(batchOf(9101), key);
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();

    const retry = await send(batchOf(9101), key);

    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toEqual(first.body);
    expect(await storedFor(9101)).toBe(1);
  });

  it('given a batch without a key, when it is sent twice, then it is stored twice (no key, no deduplication)', async () => {
    expect((await send(batchOf(9102))).status).toBe(200);
    expect((await send(batchOf(9102))).status).toBe(200);

    expect(await storedFor(9102)).toBe(2);
  });

  it('given a key used for one batch, when another batch comes with it, then 422 idempotency-key-reused and nothing is stored', async () => {
    const key = newKey();
    expect((await send(batchOf(9103), key)).status).toBe(200);

    const other = await send(batchOf(9104), key);

    expect(other.status).toBe(422);
    expect(other.body.type).toBe('/problems/idempotency-key-reused');
    expect(await storedFor(9104)).toBe(0);
  });

  it('given a batch stored by an attempt that died before answering, when it is retried, then the answer comes from that write and nothing is stored again', async () => {
    const key = newKey();
    const batch = batchOf(9105);
    // given: a process that is gone held the key and stored the batch
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    const claim = { scope: 'internal', key, owner: `${os.hostname()}/${gone}/dead-attempt` };
    const now = Date.now();
    expect(
      await server.services.idempotencyKeys.claimIdempotencyKey(claim, {
        fingerprint: requestFingerprint('POST', FEED, batch),
        now,
        expiresAt: now + 24 * HOUR_MS,
      }),
    ).toBe(true);
    const position = await runUnderClaim(claim, () =>
      ingestDirectoryEvents(server.services.eventStore, batch as never, {
        actor: systemActor,
        correlationId: 'dead-attempt',
        at: new Date(now).toISOString(),
      }),
    );

    const retry = await send(batch, key);

    expect(retry.status).toBe(200);
    expect(retry.body).toEqual({ accepted: 1, position: position.toString() });
    expect(await storedFor(9105)).toBe(1);
  });

  it('given a user who sends the feed’s key to the API, then it is their own key, not the feed’s', async () => {
    const key = newKey();
    expect((await send(batchOf(9106), key)).status).toBe(200);

    const res = await server.post(
      '/api/apikey',
      { name: 'same key' },
      { token: await server.sessionToken(9106), headers: { 'idempotency-key': key } },
    );

    expect(res.headers.get('idempotent-replayed')).toBeNull();
    expect(res.body.type).not.toBe('/problems/idempotency-key-reused');
  });
});

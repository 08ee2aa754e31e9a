import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { EventMetadata } from '../../../src/domain/event';
import { WrongExpectedRevisionError } from '../../../src/ports/event-store';
import { SqliteEventStore } from '../../../src/infra/sqlite/sqlite-event-store';
import { eventHash } from '../../../src/audit/log-hash';
import { ChainCursor } from '../../../src/infra/sqlite/sqlite-hash-chain';

/**
 * The embedded log's hash chain, through the port: appends chain in log order, also
 * inside a group commit where one append is refused; a log made before hashes keeps working and
 * is chained from its first new event; verification names the first event that does not match.
 */
const metadata: EventMetadata = {
  actor: { userId: 1, credential: 'session' },
  correlationId: 'c',
  at: '2025-03-01T00:00:00.000Z',
};
const happened = (n: number) => ({ type: 'Happened', data: { n }, metadata });

const tempFile = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'prs-chain-')), 'events.sqlite');

describe('hash chain of the SQLite event store', () => {
  const opened: SqliteEventStore[] = [];
  const open = (file: string) => {
    const store = SqliteEventStore.open(file);
    opened.push(store);
    return store;
  };
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close()));
  });

  it('given appends grouped in one commit with one refused, when the chain is verified, then it holds up to the last event', async () => {
    // given
    const store = open(tempFile());
    await store.appendToStream('s-1', [happened(0)], 'no_stream');
    const outcomes = await Promise.allSettled([
      store.appendToStream('s-1', [happened(1), happened(2)], 0n),
      store.appendToStream('s-1', [happened(3)], 0n), // refused: the first took revision 1
      store.appendToStream('s-2', [happened(4)], 'no_stream'),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedRevisionError);
    // when
    const report = await store.verifyIntegrity();
    // then
    expect(report).toMatchObject({ events: 4, unchained: 0, chainedFrom: 1n, firstMismatch: null });
    expect(report.head?.position).toBe(4n);
    expect(await store.integrityHead()).toEqual(report.head);
  });

  it.each([
    ['the first append of a commit', 0],
    ['an append after others in the commit', 2],
  ])(
    'given %s that fails after its events were hashed, when the cursor rolls back, then the chain goes on from before it',
    (_case, before) => {
      // given: a log whose last event is hashed (the cursor reads it at the commit's start)
      const db = new Database(':memory:');
      db.exec('create table events (position integer primary key, hash blob)');
      const end = eventHash('', 's-0', 0n, 'Happened', '{"n":0}', '{}');
      db.prepare('insert into events (hash) values (?)').run(Buffer.from(end, 'hex'));
      const cursor = new ChainCursor(db);
      cursor.begin();
      let expected = end;
      const next = (n: number) => {
        expected = eventHash(expected, 's-1', BigInt(n), 'Happened', `{"n":${n}}`, '{}');
        return cursor.next('s-1', BigInt(n), 'Happened', `{"n":${n}}`, '{}').toString('hex');
      };
      for (let n = 1; n <= before; n += 1) {
        cursor.mark();
        expect(next(n)).toBe(expected);
      }
      const kept = expected;
      // when: an append hashes two events, then fails and is rolled back
      cursor.mark();
      next(90);
      next(91);
      cursor.rollBack();
      expected = kept;
      // then
      expect(next(before + 1)).toBe(expected);
      db.close();
    },
  );

  it('given a log longer than one page of the check, when verified, then it holds across pages, and an edit in a later page is named', async () => {
    // given 12,000 events: the check reads 5,000 at a time, with a turn of the event loop between
    const file = tempFile();
    const store = open(file);
    for (let i = 0; i < 24; i += 1)
      await store.appendToStream(
        `s-${i}`,
        Array.from({ length: 500 }, (_, n) => happened(n)),
        'no_stream',
      );
    expect(await store.verifyIntegrity()).toMatchObject({
      events: 12_000,
      firstMismatch: null,
      head: { position: 12_000n },
    });
    // when an event of the third page is edited behind the store
    const other = new Database(file);
    other.exec(`update events set data = '{"n":-1}' where position = 11000`);
    other.close();
    // then
    expect((await store.verifyIntegrity()).firstMismatch).toMatchObject({ position: 11_000n, problem: 'hash' });
  });

  it('given two stores on one file appending in turn, when verified, then the chain runs across both', async () => {
    const file = tempFile();
    const [a, b] = [open(file), open(file)];
    for (let i = 0; i < 6; i += 1) await (i % 2 === 0 ? a : b).appendToStream(`s-${i}`, [happened(i)], 'no_stream');
    expect((await a.verifyIntegrity()).firstMismatch).toBeNull();
    expect((await b.integrityHead())?.position).toBe(6n);
  });

  it('given a log made before events were hashed, when the service appends to it, then old events stay unchained and the chain starts at the first new one', async () => {
    // given: the events table as it was before events were hashed, with two events
    const file = tempFile();
    const legacy = new Database(file);
    legacy.exec(`create table events (position integer primary key autoincrement, stream_id text not null, revision integer not null,
      type text not null, data text not null, metadata text not null, unique (stream_id, revision))`);
    const insert = legacy.prepare(
      'insert into events (stream_id, revision, type, data, metadata) values (?, ?, ?, ?, ?)',
    );
    insert.run('s-old', 0, 'Happened', '{"n":0}', JSON.stringify(metadata));
    insert.run('s-old', 1, 'Happened', '{"n":1}', JSON.stringify(metadata));
    legacy.close();
    // when
    const store = open(file);
    expect(await store.integrityHead()).toBeUndefined();
    await store.appendToStream('s-old', [happened(2)], 1n);
    await store.appendToStream('s-new', [happened(3)], 'no_stream');
    // then
    expect(await store.readStream('s-old')).toHaveLength(3);
    expect(await store.verifyIntegrity()).toMatchObject({
      events: 4,
      unchained: 2,
      chainedFrom: 3n,
      head: { position: 4n },
      firstMismatch: null,
    });
    // and a hash wiped from the first chained event is missing, not one more unchained event
    const other = new Database(file);
    other.exec('update events set hash = null where position = 3');
    other.close();
    expect((await store.verifyIntegrity()).firstMismatch).toMatchObject({ position: 3n, problem: 'missing' });
  });

  it.each([
    ['its data edited', `update events set data = '{"n":99}' where position = 3`, 'hash'],
    ['its hash removed', 'update events set hash = null where position = 3', 'missing'],
    [
      'its hash stored as text (the column is typeless)',
      'update events set hash = hex(hash) where position = 3',
      'hash',
    ],
    ['it deleted', 'delete from events where position = 3', 'hash'],
    ['every hash of the log removed', 'update events set hash = null', 'missing'],
    ['the hashes of its first events removed', 'update events set hash = null where position <= 3', 'missing'],
  ])(
    'given an event with %s behind the store, when verified, then the first event that does not match is named',
    async (_case, tamper, problem) => {
      // given
      const file = tempFile();
      const store = open(file);
      for (let i = 0; i < 5; i += 1) await store.appendToStream(`s-${i}`, [happened(i)], 'no_stream');
      const other = new Database(file);
      other.exec(tamper);
      other.close();
      // when
      const report = await store.verifyIntegrity();
      // then: a deleted event shows at the next one, whose link no longer holds
      const named = tamper.startsWith('delete')
        ? { position: 4n, streamId: 's-3' }
        : tamper.includes('where position = 3')
          ? { position: 3n, streamId: 's-2' }
          : { position: 1n, streamId: 's-0' };
      expect(report.firstMismatch).toEqual({ ...named, revision: 0n, type: 'Happened', problem });
    },
  );
});

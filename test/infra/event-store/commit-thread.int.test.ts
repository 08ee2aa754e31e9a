import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { EventMetadata } from '../../../src/domain/event';
import { WrongExpectedRevisionError } from '../../../src/ports/event-store';
import { IdempotencyClaimLostError } from '../../../src/ports/idempotency-keys';
import { SqliteEventStore } from '../../../src/infra/sqlite/sqlite-event-store';
import { fromWire, toWire } from '../../../src/infra/sqlite/sqlite-commit-wire';

/**
 * The embedded log commits on its own thread (SqliteCommitThread): an append is answered only
 * once its transaction has committed, appends asked for before close are committed, and the
 * errors of an append come back as the port's errors, or with SQLite's code.
 */
const metadata: EventMetadata = {
  actor: { userId: 1, credential: 'session' },
  correlationId: 'c',
  at: '2025-03-01T00:00:00.000Z',
};
const happened = (n: number) => ({ type: 'Happened', data: { n }, metadata });
const tempFile = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'prs-commit-thread-')), 'events.sqlite');

/** What another connection reads from the file: committed rows only. */
function committedEvents(file: string): number {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare('select count(*) as n from events').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

describe('SQLite event store: commits on the commit thread', () => {
  it('given an append, when it is answered, then another connection already reads it committed', async () => {
    // given
    const file = tempFile();
    const store = SqliteEventStore.open(file);
    try {
      // when
      for (let n = 0; n < 20; n += 1) {
        await store.appendToStream('s-1', [happened(n)], n === 0 ? 'no_stream' : BigInt(n - 1));
        // then
        expect(committedEvents(file)).toBe(n + 1);
      }
    } finally {
      await store.close();
    }
  });

  it('given appends asked for and not awaited, when the store closes, then they are committed', async () => {
    // given
    const file = tempFile();
    const store = SqliteEventStore.open(file);
    const appends = [0, 1, 2].map((n) => store.appendToStream(`s-${n}`, [happened(n)], 'no_stream'));
    // when
    await store.close();
    // then
    await expect(Promise.all(appends)).resolves.toHaveLength(3);
    expect(committedEvents(file)).toBe(3);
  });

  it('given the errors an append can fail with, when they cross the thread, then they are the same errors', () => {
    const cross = (error: unknown) => fromWire(structuredClone(toWire(error)));
    const conflict = cross(new WrongExpectedRevisionError('s-1', 3n, 'no_stream'));
    expect(conflict).toBeInstanceOf(WrongExpectedRevisionError);
    expect(conflict).toMatchObject({ streamId: 's-1', expected: 3n, actual: 'no_stream' });
    const ref = { scope: 'POST /x', key: 'k', owner: 'o' };
    const lost = cross(new IdempotencyClaimLostError(ref));
    expect(lost).toBeInstanceOf(IdempotencyClaimLostError);
    expect(lost).toMatchObject({ ref });
    const busy = cross(Object.assign(new Error('database is locked'), { name: 'SqliteError', code: 'SQLITE_BUSY' }));
    expect(busy).toMatchObject({ name: 'SqliteError', message: 'database is locked', code: 'SQLITE_BUSY' });
  });
});

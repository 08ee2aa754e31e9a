/**
 * What another process commits to the SQLite read models is seen by every request that starts after
 * it (src/infra/read-models/sqlite-read-db.ts, noticeOtherWriters): the remembered answers
 * (ReadSnapshotMemo, and the whole answers of VersionedAnswerMemo) are dropped once a look at data_version, when a request starts or a
 * checkpoint is read, finds the commit.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startReading } from '../../src/infra/read-models/read-db';
import { SqliteReadDb } from '../../src/infra/read-models/sqlite-read-db';

describe('reading another process’s commits', () => {
  let dir: string;
  let server: SqliteReadDb;
  let other: SqliteReadDb;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'read-snapshot-'));
    const file = path.join(dir, 'read-models.sqlite');
    server = SqliteReadDb.open(file);
    // Another process: its own connection to the same file.
    other = SqliteReadDb.open(file);
    other.db.exec('create table t (v integer not null)');
    other.db.exec('insert into t values (1)');
  });

  afterEach(() => {
    server.close();
    other.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const value = (db: SqliteReadDb) => db.memo.get('v', () => (db.db.prepare('select v from t').get() as { v: number }).v);
  const commit = (v: number) => other.db.prepare('update t set v = ?').run(v);

  it('given an answer remembered by an earlier request, when another process commits and a request is received after it, then that request reads the commit', () => {
    // given
    startReading({ kind: 'sqlite', sqlite: server });
    expect(value(server)).toBe(1);
    // when
    commit(2);
    startReading({ kind: 'sqlite', sqlite: server });
    // then
    expect(value(server)).toBe(2);
  });

  it('given a whole answer remembered by an earlier request, when another process commits and a request is received after it, then that request gets an answer holding the commit', async () => {
    // given
    const answer = () => server.answers.json('list', async () => JSON.stringify(value(server)));
    startReading({ kind: 'sqlite', sqlite: server });
    expect(await answer()).toBe('1');
    // when
    commit(3);
    startReading({ kind: 'sqlite', sqlite: server });
    // then
    expect(await answer()).toBe('3');
  });

  it('given answers remembered, when this process renews its lease, then they are still served; when it writes, they are not', async () => {
    // given
    let computed = 0;
    const answer = () =>
      server.answers.json('list', async () => {
        computed += 1;
        return JSON.stringify(value(server));
      });
    startReading({ kind: 'sqlite', sqlite: server });
    await answer();
    // when: two renewals, as each projection does every second
    const lease = await server.leases.acquire('resources', 'me', 3000, 1_000);
    await server.leases.acquire('resources', 'me', 3000, 2_000);
    expect(lease).not.toBeNull();
    // then
    expect(await answer()).toBe('1');
    expect(computed).toBe(1);
    // when: a write of this process
    server.db.prepare('update t set v = 5').run();
    // then
    expect(await answer()).toBe('5');
    expect(computed).toBe(2);
  });

  it('given a checkpoint read, when another process committed before it, then the answers read after it hold the commit', () => {
    // given
    startReading({ kind: 'sqlite', sqlite: server });
    expect(value(server)).toBe(1);
    // when: a write's read-your-writes wait reads the checkpoint
    commit(4);
    server.checkpoint('resources');
    // then
    expect(value(server)).toBe(4);
  });
});

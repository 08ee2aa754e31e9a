/**
 * Remembered answers of the SQLite read models stand until the scope they were read from changes
 * (src/infra/sqlite/sqlite-change-feed.ts): a commit names the scopes it changed in the
 * change feed, in its own transaction; this process applies its own at commit, and another
 * process's once a look at data_version (when a request starts or a checkpoint is read) finds it.
 * A commit to another scope leaves them standing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startReading } from '../../src/infra/read-db';
import { SqliteReadDb } from '../../src/infra/sqlite/sqlite-read-db';

describe('remembered answers and the change feed', () => {
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

  let reads = 0;
  const value = (db: SqliteReadDb) =>
    db.memo.get('t', 'v', () => {
      reads += 1;
      return (db.db.prepare('select v from t').get() as { v: number }).v;
    });
  /** A write of `writer` to table t, which it says changed scope t, in one transaction as a projection batch does. */
  const commit = (writer: SqliteReadDb, v: number, scope = 't') =>
    writer.transaction(async () => {
      writer.db.prepare('update t set v = ?').run(v);
      writer.feed.touch(scope);
    });
  const request = () => startReading({ kind: 'sqlite', sqlite: server });

  beforeEach(() => {
    reads = 0;
  });

  it('given an answer remembered by an earlier request, when another process commits to its scope and a request is received after it, then that request reads the commit', async () => {
    // given
    request();
    expect(value(server)).toBe(1);
    // when
    await commit(other, 2);
    request();
    // then
    expect(value(server)).toBe(2);
  });

  it('given a whole answer remembered by an earlier request, when another process commits to its scope and a request is received after it, then that request gets an answer holding the commit', async () => {
    // given
    const answer = () => server.answers.json('list', ['t'], async () => JSON.stringify(value(server)));
    request();
    // asked twice: kept
    expect(await answer()).toBe('1');
    expect(await answer()).toBe('1');
    // when
    await commit(other, 3);
    request();
    // then
    expect(await answer()).toBe('3');
  });

  it('given an answer remembered, when another process commits to another scope, then the answer is still served without reading', async () => {
    // given
    request();
    value(server);
    // when: a save in another project
    await other.transaction(async () => {
      other.db.exec('create table u (v integer)');
      other.feed.touch('view:c:1:50', 7);
    });
    request();
    // then
    expect(value(server)).toBe(1);
    expect(reads).toBe(1);
  });

  it('given answers remembered, when this process renews its lease or writes another scope, then they are still served; when it writes their scope, they are not', async () => {
    // given
    let computed = 0;
    const answer = () =>
      server.answers.json('list', ['t'], async () => {
        computed += 1;
        return JSON.stringify(value(server));
      });
    request();
    // asked twice: kept
    await answer();
    await answer();
    // when: two renewals, as each projection does every second, and a write elsewhere
    const lease = await server.leases.acquire('resources', 'me', 3000, 1_000);
    await server.leases.acquire('resources', 'me', 3000, 2_000);
    await server.transaction(async () => server.feed.touch('directory'));
    expect(lease).not.toBeNull();
    // then
    expect(await answer()).toBe('1');
    expect(computed).toBe(2);
    // when: a write of this process to the answer's scope
    await commit(server, 5);
    // then
    expect(await answer()).toBe('5');
    expect(computed).toBe(3);
  });

  it('given a write of this process rolled back, when the answer is asked again, then it is the answer before the write', async () => {
    // given
    request();
    expect(value(server)).toBe(1);
    // when
    await expect(
      server.transaction(async () => {
        server.db.prepare('update t set v = 9').run();
        server.feed.touch('t');
        throw new Error('the batch failed');
      }),
    ).rejects.toThrow('the batch failed');
    // then
    expect(value(server)).toBe(1);
    // and the next commit of another process is still seen (the feed's positions were not skipped)
    await commit(other, 6);
    request();
    expect(value(server)).toBe(6);
  });

  it('given a checkpoint read, when another process committed before it, then the answers read after it hold the commit', async () => {
    // given
    request();
    expect(value(server)).toBe(1);
    // when: a write's read-your-writes wait reads the checkpoint
    await commit(other, 4);
    server.checkpoint('resources');
    // then
    expect(value(server)).toBe(4);
  });

  it('given the feed pruned past what this process read, when a request is received, then everything remembered is forgotten', async () => {
    // given
    request();
    value(server);
    await commit(other, 8, 'elsewhere');
    // when: the rows this process had not read yet are gone, as pruning removes old rows
    other.db.exec('delete from read_changes');
    await commit(other, 8, 'elsewhere again');
    request();
    // then: it cannot know what changed, so it reads again
    expect(value(server)).toBe(8);
    expect(reads).toBe(2);
  });
});

describe('READ_MEMO=off', () => {
  it('given a read database opened without memos, when the same answers are asked again with nothing changed, then each is read again', async () => {
    // given
    const read = SqliteReadDb.open(':memory:', { memo: false });
    read.db.exec('create table t (v integer not null); insert into t values (1)');
    let reads = 0;
    const ask = () =>
      read.memo.get('t', 'v', () => {
        reads += 1;
        return 1;
      });
    let computed = 0;
    const answer = () =>
      read.answers.json('list', ['t'], async () => {
        computed += 1;
        return '1';
      });
    // when
    for (let i = 0; i < 3; i++) {
      ask();
      await answer();
    }
    // then
    expect({ reads, computed }).toEqual({ reads: 3, computed: 3 });
    read.close();
  });
});

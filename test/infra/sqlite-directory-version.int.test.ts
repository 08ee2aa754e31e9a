import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openReadModels } from '../../src/app/read-model-list';
import { DIRECTORY_STREAM, type DirectoryEvent } from '../../src/directory/directory-events';
import { SqliteReadDb } from '../../src/infra/sqlite/sqlite-read-db';

/**
 * On the embedded read database the directory's version (what DirectoryReader keeps its facts
 * and the list answers by) moves with every directory write, this connection's or another's, and
 * only with those: a write that changes nothing, or another read model's, leaves it.
 */
const tempFile = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'prs-directory-version-')), 'read.sqlite');

async function opened(file: string) {
  const read = SqliteReadDb.open(file, { memo: true });
  const models = await openReadModels({ kind: 'sqlite', sqlite: read });
  const projection = models.projectionOf.directory;
  const apply = (position: number, ...events: DirectoryEvent[]) =>
    projection.store.commit(projection.name, BigInt(position + events.length - 1), async () => {
      for (const [i, event] of events.entries())
        await projection.apply({
          streamId: DIRECTORY_STREAM,
          type: event.type,
          data: event.data,
          metadata: { actor: { userId: 1, credential: 'session' }, correlationId: 'version', at: '' },
          revision: 0n,
          position: BigInt(position + i),
        });
    });
  return { read, directory: models.stores.directory, apply };
}

describe('SQLite directory: its version', () => {
  const reads: SqliteReadDb[] = [];
  afterEach(() => {
    for (const read of reads.splice(0)) read.close();
  });

  it('given a writer and a reader on one file, when the writer changes a membership, then the reader sees the version move and the change', async () => {
    // given
    const file = tempFile();
    const writer = await opened(file);
    const reader = await opened(file);
    reads.push(writer.read, reader.read);
    await writer.apply(1, { type: 'CircleMemberSet', data: { circleId: 601, userId: 1 } });
    reader.read.noticeOtherWriters();
    const before = reader.directory.version?.();
    expect(before).toEqual(expect.any(String));
    expect((await reader.directory.memberships(1)).circleIds).toEqual([601]);

    // when: nothing changes (a replay), then a membership does
    await writer.apply(1, { type: 'CircleMemberSet', data: { circleId: 601, userId: 1 } });
    reader.read.noticeOtherWriters();
    expect(reader.directory.version?.()).toBe(before);
    await writer.apply(2, { type: 'CircleMemberRemoved', data: { circleId: 601, userId: 1 } });
    reader.read.noticeOtherWriters();

    // then
    expect(reader.directory.version?.()).not.toBe(before);
    expect((await reader.directory.memberships(1)).circleIds).toEqual([]);
  });
});

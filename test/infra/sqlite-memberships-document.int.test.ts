import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DirectoryEvent } from '../../src/directory/directory-events';
import { directoryChange, type DirectoryChange } from '../../src/directory/directory-records';
import { SqliteDirectoryStore } from '../../src/infra/sqlite/sqlite-directory-store';
import { SqliteReadDb } from '../../src/infra/sqlite/sqlite-read-db';

/**
 * The embedded directory keeps one memberships document per user, derived from the three
 * membership tables (SqliteDirectoryStore.memberships reads it): it must answer what the tables
 * say after every change, in a bulk-loaded generation, in a database made before the documents
 * existed, and after another connection's commit.
 */
const world: DirectoryEvent[] = [
  {
    type: 'ProjectUpserted',
    data: { projectId: 7, name: 'Seven', visibility: 'private', teamCircleId: 71, mentorsCircleId: 72 },
  },
  { type: 'CommunityMemberSet', data: { communityId: 20, userId: 1, role: 'member', status: 'pending' } },
  { type: 'CommunityMemberSet', data: { communityId: 10, userId: 1, role: 'admin', status: 'approved' } },
  { type: 'ProjectMemberSet', data: { projectId: 7, userId: 1, role: 'team' } },
  { type: 'CircleMemberSet', data: { circleId: 601, userId: 1 } },
  { type: 'CommunityMemberSet', data: { communityId: 10, userId: 2, role: 'member', status: 'approved' } },
];
const userOne = {
  communities: [
    { communityId: 10, role: 'admin', status: 'approved' },
    { communityId: 20, role: 'member', status: 'pending' },
  ],
  projects: [{ projectId: 7, role: 'team', teamCircleId: 71, mentorsCircleId: 72 }],
  circleIds: [601],
};
const none = { communities: [], projects: [], circleIds: [] };

const tempFile = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'prs-memberships-')), 'read.sqlite');

async function apply(store: SqliteDirectoryStore, events: readonly DirectoryEvent[], from = 1n): Promise<void> {
  await store.projectionStore.commit('directory', from + BigInt(events.length), async () => {
    for (const [i, event] of events.entries())
      await store.write(directoryChange(event) as DirectoryChange, from + BigInt(i));
  });
}

describe('SQLite directory: the memberships document', () => {
  const opened: SqliteReadDb[] = [];
  const open = (file: string, options: { bulkLoad?: boolean; memo?: boolean } = { memo: false }) => {
    const read = SqliteReadDb.open(file, options);
    opened.push(read);
    return read;
  };
  afterEach(() => {
    for (const read of opened.splice(0)) read.close();
  });

  it('given memberships set, changed and removed, when asked after each change, then the document follows', async () => {
    // given
    const store = new SqliteDirectoryStore(open(tempFile()));
    await apply(store, world);
    expect(await store.memberships(1)).toEqual(userOne);
    // when
    await apply(
      store,
      [
        { type: 'CommunityMemberRemoved', data: { communityId: 20, userId: 1 } },
        { type: 'ProjectMemberSet', data: { projectId: 7, userId: 1, role: 'mentor' } },
        { type: 'CircleMemberRemoved', data: { circleId: 601, userId: 1 } },
      ],
      100n,
    );
    // then
    expect(await store.memberships(1)).toEqual({
      communities: [{ communityId: 10, role: 'admin', status: 'approved' }],
      projects: [{ projectId: 7, role: 'mentor', teamCircleId: 71, mentorsCircleId: 72 }],
      circleIds: [],
    });
    await apply(store, [{ type: 'CommunityMemberRemoved', data: { communityId: 10, userId: 2 } }], 200n);
    expect(await store.memberships(2)).toEqual(none);
  });

  it('given a generation bulk-loaded, when its load ends, then every user has their document', async () => {
    // given
    const read = open(tempFile(), { bulkLoad: true, memo: false });
    const store = new SqliteDirectoryStore(read);
    await apply(store, world);
    // when
    read.finishBulkLoad();
    // then
    expect(await store.memberships(1)).toEqual(userOne);
    expect(await store.memberships(2)).toEqual({
      communities: [{ communityId: 10, role: 'member', status: 'approved' }],
      projects: [],
      circleIds: [],
    });
  });

  it('given a database made before the documents existed, when the store opens it, then it builds them', async () => {
    // given
    const file = tempFile();
    const before = open(file);
    await apply(new SqliteDirectoryStore(before), world);
    before.db.exec('drop table dir_caller_memberships');
    // when
    const store = new SqliteDirectoryStore(open(file));
    // then
    expect(await store.memberships(1)).toEqual(userOne);
  });

  it('given the projection reset, when memberships are asked, then there are none', async () => {
    // given
    const store = new SqliteDirectoryStore(open(tempFile()));
    await apply(store, world);
    // when
    await store.projectionStore.reset('directory');
    // then
    expect(await store.memberships(1)).toEqual(none);
  });

  it('given another connection commits a membership change, when this one asks (memos on), then it answers the change', async () => {
    // given
    const file = tempFile();
    const writer = new SqliteDirectoryStore(open(file));
    await apply(writer, world);
    const readDb = open(file, { memo: true });
    const reader = new SqliteDirectoryStore(readDb);
    expect(await reader.memberships(1)).toEqual(userOne);
    // when
    await apply(writer, [{ type: 'CircleMemberRemoved', data: { circleId: 601, userId: 1 } }], 100n);
    readDb.noticeOtherWriters(); // what every request does as it starts (src/app/notice-other-writers.ts)
    // then
    expect(await reader.memberships(1)).toEqual({ ...userOne, circleIds: [] });
  });
});

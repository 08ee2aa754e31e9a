/**
 * A read database written before the directory was documents holds the old `dir_*` tables and
 * their `directory` checkpoint: the document read model must not trust that checkpoint, or its
 * empty collections would never fill, and must not answer from the old tables.
 */
import { openReadModels } from '../../src/app/read-model-list';
import { DIRECTORY_READ_MODEL } from '../../src/directory/directory-projection';
import { DIRECTORY_STREAM } from '../../src/directory/directory-events';
import { SqliteReadDb } from '../../src/infra/sqlite/sqlite-read-db';

describe('the directory read model on a read database from before its documents', () => {
  it('given the old tables and checkpoint, when opened and folded from the start, then it answers what the log says, not the old rows', async () => {
    // given: the tables and the checkpoint as the service wrote them before
    const read = SqliteReadDb.open(':memory:');
    read.db.exec(`create table dir_users (user_id integer not null, record text not null, position integer not null,
      removed integer not null default 0, primary key (user_id)) strict`);
    read.db.exec(`create table dir_community_members (community_id integer not null, user_id integer not null,
      record text not null, position integer not null, removed integer not null default 0,
      primary key (community_id, user_id)) strict`);
    read.db.exec('create table dir_caller_memberships (user_id integer primary key, record text not null) strict');
    read.db
      .prepare('insert into dir_users values (1, ?, 1, 0)')
      .run(JSON.stringify({ userId: 1, name: 'Stale', status: 'banned', platformRoles: [] }));
    read.db
      .prepare('insert into dir_community_members values (10, 1, ?, 2, 0)')
      .run(JSON.stringify({ communityId: 10, userId: 1, role: 'admin', status: 'approved' }));
    read.db
      .prepare('insert into dir_caller_memberships values (1, ?)')
      .run('{"communities":[{"communityId":10,"role":"admin","status":"approved"}],"projects":[],"circles":[]}');
    read.writeCheckpoint('directory', 500n);

    // when
    const { stores, projections } = await openReadModels({ kind: 'sqlite', sqlite: read });
    const projection = projections.find((p) => p.store === stores.directory.projectionStore);

    // then
    expect(projection?.name).toBe(DIRECTORY_READ_MODEL.name);
    expect(await stores.directory.projectionStore.checkpoint(DIRECTORY_READ_MODEL.name)).toBeUndefined();
    expect(await stores.directory.user(1)).toBeNull();
    expect(await stores.directory.memberships(1)).toEqual({ communities: [], projects: [], circleIds: [] });

    // when: the log's events folded
    const events = [
      { type: 'UserUpserted', data: { userId: 1, name: 'Ada', status: 'active' } },
      { type: 'CommunityMemberSet', data: { communityId: 20, userId: 1, role: 'member', status: 'pending' } },
    ];
    await projection!.store.commit(projection!.name, BigInt(events.length), async () => {
      for (const [i, { type, data }] of events.entries())
        await projection!.apply({
          streamId: DIRECTORY_STREAM,
          type,
          data,
          metadata: { actor: { userId: 1, credential: 'session' }, correlationId: 'upgrade', at: '' },
          revision: BigInt(i),
          position: BigInt(i + 1),
        });
    });

    // then
    expect(await stores.directory.user(1)).toEqual({ userId: 1, name: 'Ada', status: 'active', platformRoles: [] });
    expect(await stores.directory.memberships(1)).toEqual({
      communities: [{ communityId: 20, role: 'member', status: 'pending' }],
      projects: [],
      circleIds: [],
    });
    read.close();
  });
});

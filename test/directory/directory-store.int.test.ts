/**
 * The directory read model's contract, through its projection (events in, the service's questions
 * out), run against every document-store adapter: SQLite always, the MongoDB adapter on the
 * in-process mingo stand-in always and on a real MongoDB when one answers, and PostgreSQL on the
 * suites' server. The events are folded by the runner's side of the document store
 * (`documentProjection`), so the position guard under test is the generic one.
 */
import type { DirectoryEvent } from '../../src/directory/directory-events';
import { DIRECTORY_STREAM } from '../../src/directory/directory-events';
import { DIRECTORY_READ_MODEL } from '../../src/directory/directory-projection';
import { directoryStore, type DirectoryStore, type Memberships } from '../../src/directory/directory-store';
import { MongoDocumentStore } from '../../src/infra/mongo/mongo-document-store';
import { PostgresDocumentStore } from '../../src/infra/postgres/postgres-document-store';
import { SqliteDocumentStore } from '../../src/infra/sqlite/sqlite-document-store';
import { documentProjection, scopeOf, type DocumentStore } from '../../src/projections/document-store';
import { PostgresReadDb } from '../../src/infra/postgres/postgres-read-db';
import { describeOnEveryReadDb, type OpenedStore, withFreshStore } from '../support/read-db-adapters';
import { describeExternal, externalTarget } from '../support/external';
import { dropSchema, freshSchema } from '../support/postgres';

/** The read model's queries, and `write`: one event folded at `position`, as the runner folds it. */
type DirectoryReadModel = DirectoryStore & {
  readonly projectionName: string;
  write(event: DirectoryEvent, position: bigint): Promise<void>;
};

function directoryReadModel(documents: DocumentStore): DirectoryReadModel {
  const projection = documentProjection(DIRECTORY_READ_MODEL, documents);
  return {
    ...directoryStore(documents),
    projectionName: projection.name,
    write: (event, position) =>
      projection.apply({
        streamId: DIRECTORY_STREAM,
        type: event.type,
        data: event.data,
        metadata: { actor: { userId: 1, credential: 'session' }, correlationId: 'contract', at: '' },
        revision: 0n,
        position,
      }),
  };
}

/** Communities 10 (public), 20, 30; projects 7 and 8; users 1 to 3; links, members, circles, paragraphs. */
const world: DirectoryEvent[] = [
  { type: 'UserUpserted', data: { userId: 1, name: 'Ada', status: 'active', platformRoles: ['auditor'] } },
  { type: 'UserUpserted', data: { userId: 2, name: 'Bo', status: 'active' } },
  { type: 'UserUpserted', data: { userId: 3, name: 'Cy', status: 'banned' } },
  { type: 'CommunityUpserted', data: { communityId: 10, name: 'Ten', visibility: 'public' } },
  { type: 'CommunityUpserted', data: { communityId: 20, name: 'Twenty', visibility: 'private' } },
  { type: 'CommunityUpserted', data: { communityId: 30, name: 'Thirty', visibility: 'private' } },
  {
    type: 'ProjectUpserted',
    data: { projectId: 7, name: 'Seven', visibility: 'private', teamCircleId: 71, mentorsCircleId: 72 },
  },
  {
    type: 'ProjectUpserted',
    data: { projectId: 8, name: 'Eight', visibility: 'public', teamCircleId: 81, mentorsCircleId: 82 },
  },
  { type: 'CommunityProjectUpserted', data: { communityProjectId: 103, communityId: 20, projectId: 7 } },
  { type: 'CommunityProjectUpserted', data: { communityProjectId: 100, communityId: 10, projectId: 7 } },
  { type: 'CommunityProjectUpserted', data: { communityProjectId: 101, communityId: 20, projectId: 7 } },
  { type: 'CommunityProjectUpserted', data: { communityProjectId: 102, communityId: 10, projectId: 8 } },
  { type: 'CommunityProjectUpserted', data: { communityProjectId: 104, communityId: 30, projectId: 7 } },
  { type: 'CommunityProjectRemoved', data: { communityProjectId: 104 } },
  { type: 'CommunityMemberSet', data: { communityId: 20, userId: 1, role: 'member', status: 'pending' } },
  { type: 'CommunityMemberSet', data: { communityId: 10, userId: 1, role: 'admin', status: 'approved' } },
  { type: 'CommunityMemberSet', data: { communityId: 30, userId: 1, role: 'member', status: 'approved' } },
  { type: 'CommunityMemberRemoved', data: { communityId: 30, userId: 1 } },
  { type: 'CommunityMemberSet', data: { communityId: 10, userId: 2, role: 'member', status: 'approved' } },
  { type: 'ProjectMemberSet', data: { projectId: 8, userId: 1, role: 'mentor' } },
  { type: 'ProjectMemberSet', data: { projectId: 7, userId: 1, role: 'team' } },
  { type: 'ProjectMemberSet', data: { projectId: 7, userId: 2, role: 'mentor' } },
  { type: 'ProjectMemberSet', data: { projectId: 9, userId: 2, role: 'team' } },
  {
    type: 'CircleUpserted',
    data: { circleId: 71, name: 'Team', longName: 'Team of 7', isActive: true, projectId: 7, communityId: null },
  },
  {
    type: 'CircleUpserted',
    data: {
      circleId: 601,
      name: 'Reviewers',
      longName: 'Reviewers of 10',
      isActive: false,
      projectId: null,
      communityId: 10,
    },
  },
  { type: 'CircleMemberSet', data: { circleId: 601, userId: 1 } },
  { type: 'CircleMemberSet', data: { circleId: 501, userId: 1 } },
  { type: 'CircleMemberSet', data: { circleId: 601, userId: 2 } },
  { type: 'CircleMemberRemoved', data: { circleId: 601, userId: 2 } },
  { type: 'ParagraphUpserted', data: { paragraphId: 11, projectId: 7, communityId: null } },
  { type: 'ParagraphUpserted', data: { paragraphId: 12, projectId: 7, communityId: 10 } },
];

/** The lookups' order is not part of the port (SQLite answers in insertion order): compare as sets. */
function normalised(m: Memberships): Memberships {
  return {
    communities: [...m.communities].sort((a, b) => a.communityId - b.communityId),
    projects: [...m.projects].sort((a, b) => a.projectId - b.projectId),
    circleIds: [...m.circleIds].sort((a, b) => a - b),
  };
}

export function describeDirectoryStoreContract(
  name: string,
  open: () => Promise<OpenedStore<DirectoryReadModel>>,
): void {
  describe(`${name} honours the DirectoryStore contract`, () => {
    let store: DirectoryReadModel;
    withFreshStore(open, (opened) => (store = opened));

    const applyAll = async (events: readonly DirectoryEvent[], first = 1n) => {
      for (const [i, event] of events.entries()) await store.write(event, first + BigInt(i));
    };

    describe('given the directory of a small world', () => {
      beforeEach(async () => applyAll(world));

      it('when users are looked up, then each record is whole, platform roles defaulting to none', async () => {
        expect(await store.user(1)).toEqual({ userId: 1, name: 'Ada', status: 'active', platformRoles: ['auditor'] });
        expect(await store.user(2)).toEqual({ userId: 2, name: 'Bo', status: 'active', platformRoles: [] });
        expect(await store.user(404)).toBeNull();
      });

      it('when communities are looked up, then their facts, unknown ids left out and repeated ids once', async () => {
        expect(await store.community(10)).toEqual({ communityId: 10, name: 'Ten', visibility: 'public' });
        expect(await store.community(404)).toBeNull();
        expect(await store.communities([20, 404, 10, 20])).toEqual(
          new Map([
            [20, { communityId: 20, name: 'Twenty', visibility: 'private' }],
            [10, { communityId: 10, name: 'Ten', visibility: 'public' }],
          ]),
        );
        expect(await store.communities([])).toEqual(new Map());
      });

      it('when a project is looked up, then its facts with its live communities, distinct, in id order', async () => {
        expect(await store.project(7)).toEqual({
          projectId: 7,
          name: 'Seven',
          visibility: 'private',
          teamCircleId: 71,
          mentorsCircleId: 72,
          communityIds: [10, 20],
        });
        expect(await store.project(8)).toEqual({
          projectId: 8,
          name: 'Eight',
          visibility: 'public',
          teamCircleId: 81,
          mentorsCircleId: 82,
          communityIds: [10],
        });
        expect(await store.project(404)).toBeNull();
      });

      it('when community-projects are looked up, then by id, and by project and community the lowest live id', async () => {
        expect(await store.communityProject(101)).toEqual({ communityProjectId: 101, communityId: 20, projectId: 7 });
        expect(await store.communityProject(104)).toBeNull();
        expect(await store.communityProjectOf(7, 20)).toEqual({
          communityProjectId: 101,
          communityId: 20,
          projectId: 7,
        });
        expect(await store.communityProjectOf(7, 30)).toBeNull();
        expect(await store.communityProjectOf(8, 20)).toBeNull();
      });

      it('when paragraphs and circles are looked up, then their records', async () => {
        expect(await store.paragraph(12)).toEqual({ paragraphId: 12, projectId: 7, communityId: 10 });
        expect(await store.paragraph(404)).toBeNull();
        expect(await store.circles([601, 71, 404])).toEqual(
          new Map([
            [
              601,
              {
                circleId: 601,
                name: 'Reviewers',
                longName: 'Reviewers of 10',
                isActive: false,
                projectId: null,
                communityId: 10,
              },
            ],
            [
              71,
              { circleId: 71, name: 'Team', longName: 'Team of 7', isActive: true, projectId: 7, communityId: null },
            ],
          ]),
        );
      });

      it('when memberships are asked, then the live communities, projects with their built-in circles, and circles', async () => {
        expect(normalised(await store.memberships(1))).toEqual({
          communities: [
            { communityId: 10, role: 'admin', status: 'approved' },
            { communityId: 20, role: 'member', status: 'pending' },
          ],
          projects: [
            { projectId: 7, role: 'team', teamCircleId: 71, mentorsCircleId: 72 },
            { projectId: 8, role: 'mentor', teamCircleId: 81, mentorsCircleId: 82 },
          ],
          circleIds: [501, 601],
        });
        expect(normalised(await store.memberships(2))).toEqual({
          communities: [{ communityId: 10, role: 'member', status: 'approved' }],
          projects: [
            { projectId: 7, role: 'mentor', teamCircleId: 71, mentorsCircleId: 72 },
            { projectId: 9, role: 'team', teamCircleId: null, mentorsCircleId: null },
          ],
          circleIds: [],
        });
        expect(await store.memberships(404)).toEqual({ communities: [], projects: [], circleIds: [] });
      });
    });

    describe('writes guarded by position', () => {
      it('given a newer record, when an older or equal upsert arrives, then nothing changes', async () => {
        await store.write({ type: 'UserUpserted', data: { userId: 1, name: 'New', status: 'active' } }, 5n);
        await store.write({ type: 'UserUpserted', data: { userId: 1, name: 'Old', status: 'banned' } }, 4n);
        await store.write({ type: 'UserUpserted', data: { userId: 1, name: 'Same', status: 'banned' } }, 5n);

        expect(await store.user(1)).toEqual({ userId: 1, name: 'New', status: 'active', platformRoles: [] });
      });

      it('given a removal, when an older upsert is replayed, then the record stays removed; a newer one brings it back', async () => {
        const member = (role: 'member' | 'admin'): DirectoryEvent => ({
          type: 'CommunityMemberSet',
          data: { communityId: 10, userId: 1, role, status: 'approved' },
        });
        await store.write(member('member'), 1n);
        await store.write({ type: 'CommunityMemberRemoved', data: { communityId: 10, userId: 1 } }, 3n);
        await store.write(member('admin'), 2n);
        expect((await store.memberships(1)).communities).toEqual([]);

        await store.write(member('admin'), 4n);
        expect((await store.memberships(1)).communities).toEqual([
          { communityId: 10, role: 'admin', status: 'approved' },
        ]);
      });

      it('given a link upserted then removed, when the upsert is replayed, then it is not brought back', async () => {
        const link: DirectoryEvent = {
          type: 'CommunityProjectUpserted',
          data: { communityProjectId: 100, communityId: 10, projectId: 7 },
        };
        await store.write(link, 4n);
        await store.write({ type: 'CommunityProjectRemoved', data: { communityProjectId: 100 } }, 5n);
        await store.write(link, 4n);

        expect(await store.communityProject(100)).toBeNull();
        expect(await store.communityProjectOf(7, 10)).toBeNull();
      });

      it('given the world applied, when any range is replayed twice, then the digest is unchanged', async () => {
        await applyAll(world);
        const once = await store.projectionStore.digest();
        const ranges: [number, number][] = [
          [0, world.length],
          [5, 15],
          [13, 20],
        ];
        for (const [from, to] of ranges) {
          await applyAll(world.slice(from, to), BigInt(from + 1));
          await applyAll(world.slice(from, to), BigInt(from + 1));
          expect(await store.projectionStore.digest()).toEqual(once);
        }
      });
    });

    describe('the projection side', () => {
      it('given a committed batch, when the checkpoint is read, then it is the batch position; after reset, nothing remains', async () => {
        expect(await store.projectionStore.checkpoint(store.projectionName)).toBeUndefined();
        await store.projectionStore.commit(store.projectionName, 31n, async () => applyAll(world));
        expect(await store.projectionStore.checkpoint(store.projectionName)).toBe(31n);

        await store.projectionStore.reset(store.projectionName);

        expect(await store.projectionStore.checkpoint(store.projectionName)).toBeUndefined();
        expect(await store.user(1)).toBeNull();
        expect(await store.memberships(1)).toEqual({ communities: [], projects: [], circleIds: [] });
        expect(Object.values((await store.projectionStore.digest()).counts).every((n) => n === 0)).toBe(true);
      });
    });
  });
}

describeOnEveryReadDb(describeDirectoryStoreContract, {
  sqlite: [
    'the directory on SqliteDocumentStore',
    (read) =>
      directoryReadModel(
        new SqliteDocumentStore(read, DIRECTORY_READ_MODEL.collections, scopeOf(DIRECTORY_READ_MODEL)),
      ),
  ],
  mongo: [
    'the directory on MongoDocumentStore',
    async (read) => directoryReadModel(await MongoDocumentStore.open(read, DIRECTORY_READ_MODEL.collections)),
  ],
  postgres: [
    'the directory on PostgresDocumentStore',
    async (read) =>
      directoryReadModel(
        await PostgresDocumentStore.open(read, DIRECTORY_READ_MODEL.collections, scopeOf(DIRECTORY_READ_MODEL)),
      ),
  ],
});

/**
 * A generation built from the whole log sends a batch's document writes as the batch commits, a
 * few statements of many rows: the same documents as one statement per event, whatever keys repeat
 * in the batch, and nothing of a batch that fails.
 */
const postgres = externalTarget('postgres');
describeExternal('the PostgreSQL directory store, bulk-loading', postgres, () => {
  const url = postgres.kind === 'url' ? postgres.url : '';
  // Keys written again and again within one batch: a removal of a record put in the same batch,
  // a put after a removal, a removal of a record never put.
  const history: DirectoryEvent[] = [
    ...world,
    { type: 'CommunityProjectUpserted', data: { communityProjectId: 104, communityId: 30, projectId: 8 } },
    { type: 'UserUpserted', data: { userId: 1, name: 'Ada L.', status: 'active' } },
    { type: 'CommunityMemberSet', data: { communityId: 30, userId: 1, role: 'admin', status: 'pending' } },
    { type: 'ProjectMemberRemoved', data: { projectId: 7, userId: 1 } },
    { type: 'ProjectMemberSet', data: { projectId: 7, userId: 1, role: 'mentor' } },
    { type: 'ProjectMemberRemoved', data: { projectId: 7, userId: 1 } },
    { type: 'CircleMemberRemoved', data: { circleId: 999, userId: 5 } },
    { type: 'CircleMemberRemoved', data: { circleId: 999, userId: 5 } },
  ];
  const opened: { read: PostgresReadDb; schema: string }[] = [];
  const open = async (bulkLoad: boolean) => {
    const schema = freshSchema('dirbulk');
    const read = await PostgresReadDb.connect(url, { schema, queryTimeoutMs: 10_000, bulkLoad });
    opened.push({ read, schema });
    const store = directoryReadModel(
      await PostgresDocumentStore.open(read, DIRECTORY_READ_MODEL.collections, scopeOf(DIRECTORY_READ_MODEL)),
    );
    await store.projectionStore.reset(store.projectionName);
    return store;
  };
  const writeAll = (store: DirectoryReadModel, events: readonly DirectoryEvent[]) =>
    store.projectionStore.commit(store.projectionName, BigInt(events.length), async () => {
      for (const [i, event] of events.entries()) await store.write(event, BigInt(i + 1));
    });
  afterEach(async () => {
    for (const { read, schema } of opened.splice(0)) {
      await read.close();
      await dropSchema(url, schema);
    }
  });

  it('given a history written in one batch, when digested, then it equals the history written one statement an event', async () => {
    const [through, bulk] = [await open(false), await open(true)];

    await writeAll(through, history);
    await writeAll(bulk, history);

    expect(await bulk.projectionStore.digest()).toEqual(await through.projectionStore.digest());
    expect(normalised(await bulk.memberships(1))).toEqual(normalised(await through.memberships(1)));
  });

  it('given a batch that fails half-way, when it is committed again, then nothing of the failed attempt remains', async () => {
    const [through, bulk] = [await open(false), await open(true)];
    const failing = bulk.projectionStore.commit(bulk.projectionName, 5n, async () => {
      for (const [i, event] of history.slice(0, 5).entries()) await bulk.write(event, BigInt(i + 1));
      throw new Error('the projection failed');
    });
    await expect(failing).rejects.toThrow('the projection failed');

    await writeAll(through, history);
    await writeAll(bulk, history);

    expect(await bulk.projectionStore.digest()).toEqual(await through.projectionStore.digest());
  });
});

/**
 * What the PostgreSQL resources read model does beyond the shared contract (test/contract): texts
 * a PostgreSQL text value cannot hold are stored and searched all the same, a batch that fails
 * leaves the lists as they were, and the view index a process lists from
 * follows what other processes commit, through the change feed.
 */
import { PostgresReadDb } from '../../src/infra/postgres/postgres-read-db';
import { PostgresResourceViewStore } from '../../src/infra/postgres/postgres-resource-view-store';
import {
  CIRCLE,
  D,
  O,
  P,
  PARAGRAPH,
  ViewModel,
  communityView,
  day,
  everything,
  naivePage,
  principals,
  query,
  resource,
} from '../resources/resource-view-fixtures';
import { seeded } from '../support/keyset-walk';
import type { PrivacyLevel } from '../../src/resources/access/privacy-policy';
import { describeExternal, externalTarget } from '../support/external';
import { dropSchema, freshSchema } from '../support/postgres';

class CrashMidway extends Error {}

const target = externalTarget('postgres');

describeExternal('PostgresResourceViewStore on PostgreSQL, beyond the contract', target, () => {
  const url = target.kind === 'url' ? target.url : '';
  let schema: string;
  let read: PostgresReadDb;
  let store: PostgresResourceViewStore;
  let model: ViewModel;

  beforeEach(async () => {
    schema = freshSchema('views');
    read = await PostgresReadDb.connect(url, { schema, queryTimeoutMs: 10_000 });
    store = await PostgresResourceViewStore.open(read);
    model = new ViewModel();
  });
  afterEach(async () => {
    await read.close();
    await dropSchema(url, schema);
  });

  const put = async (r: ReturnType<typeof resource>, position: bigint, communities = [O, D]) =>
    store.putResource(r.resourceId, r, position, model.put(r, communities));

  it('given texts holding U+0000, when stored, read back and searched, then they answer as any other text', async () => {
    const r = resource(1, { name: 'Nul\u0000Name', description: 'a\u0000b', tags: ['T\u0000ag'] });
    await put(r, 1n);
    await put(resource(2), 2n);

    expect(await store.resource(1)).toEqual(r);
    expect((await store.viewsOfResource(1)).map((v) => v.name)).toEqual([
      'Nul\u0000Name',
      'Nul\u0000Name',
      'Nul\u0000Name',
    ]);
    for (const q of [query({ concept: 'l\u0000n' }), query({ concept: '\u0000' }), query({ tags: ['t\u0000ag'] })])
      expect(await store.page(q)).toEqual(naivePage(model.all(), q));
    expect((await store.page(query({ concept: '\u0000' }))).count).toBe(1);
  });

  it('given a batch that fails after writing views, when it rolls back, then the lists are those before it', async () => {
    for (let id = 1; id <= 6; id++) await put(resource(id, { paragraphId: id % 2 ? PARAGRAPH : null }), BigInt(id));
    const lists = [
      query(),
      query({ audience: principals('public') }),
      query({ audience: principals('public'), paragraphId: PARAGRAPH, take: 0 }),
    ];
    const before = await Promise.all(lists.map((q) => store.page(q)));

    await expect(
      store.projectionStore.commit('resources', 8n, async () => {
        const r = resource(7);
        await store.putResource(7, r, 7n, new ViewModel().put(r, [O, D]));
        await store.putResource(1, null, 8n, []);
        throw new CrashMidway();
      }),
    ).rejects.toBeInstanceOf(CrashMidway);

    expect(await Promise.all(lists.map((q) => store.page(q)))).toEqual(before);
    for (const q of lists) expect(await store.page(q)).toEqual(naivePage(model.all(), q));
  });

  it('given every resource deleted, then no view row is left (a live read model and its rebuild hold the same rows)', async () => {
    for (let id = 1; id <= 4; id++) await put(resource(id), BigInt(id));
    for (let id = 1; id <= 4; id++) await store.putResource(id, null, BigInt(10 + id), []);

    expect((await store.projectionStore.digest()).counts).toMatchObject({ res_views: 0 });
    expect((await store.page(query())).count).toBe(0);
  });

  it('given a batch that reads its resources ahead, when it creates, moves, hides and deletes them, then it stores what writing them one by one does', async () => {
    const otherSchema = freshSchema('views');
    const otherRead = await PostgresReadDb.connect(url, { schema: otherSchema, queryTimeoutMs: 10_000 });
    try {
      const other = await PostgresResourceViewStore.open(otherRead);
      const otherModel = new ViewModel();
      for (let id = 1; id <= 4; id++) {
        await put(resource(id), BigInt(id));
        const r = resource(id);
        await other.putResource(id, r, BigInt(id), otherModel.put(r, [O, D]));
      }
      // Stored before, created in the batch, written twice in it, deleted, and one read ahead but never written.
      const writes: [number, ReturnType<typeof resource> | null, bigint][] = [
        [1, resource(1, { owner: { privacyLevel: 3, circles: [] } }), 10n],
        [
          5,
          resource(5, { owner: { privacyLevel: 4, circles: [{ circleId: CIRCLE, projectId: P, communityId: null }] } }),
          11n,
        ],
        [5, resource(5, { name: 'moved', postDate: day(3) }), 12n],
        [2, null, 13n],
      ];
      const fold = async (target: PostgresResourceViewStore, views: ViewModel, readAhead: boolean) =>
        target.projectionStore.commit('resources', 13n, async () => {
          if (readAhead) await target.readAhead([1, 2, 3, 5], [P]);
          for (const [id, r, position] of writes) {
            expect((await target.stored(id))?.position ?? null).toBe(
              id === 5 && position === 12n ? 11n : id === 5 ? null : BigInt(id),
            );
            if (!r) views.remove(id);
            await target.putResource(id, r, position, r ? views.put(r, [O, D]) : []);
          }
        });
      await fold(store, model, true);
      await fold(other, otherModel, false);

      expect((await store.projectionStore.digest()).digest).toBe((await other.projectionStore.digest()).digest);
      for (const q of [query(), query({ audience: principals('public') }), query({ orderBy: 1 })])
        expect(await store.page(q)).toEqual(naivePage(model.all(), q));
    } finally {
      await otherRead.close();
      await dropSchema(url, otherSchema);
    }
  });

  it("given projects linked to communities, when a batch reads ahead a creation's project and stored resources, then it answers each project's communities as the table holds them", async () => {
    const link = (communityProjectId: number, communityId: number, projectId: number, removed: boolean, at: bigint) =>
      store.writeProjectLink({ communityProjectId, communityId, projectId }, removed, at);
    const OTHER = P + 1;
    await store.projectionStore.commit('resources', 4n, async () => {
      await link(1, 7, P, false, 1n);
      await link(2, 3, P, false, 2n);
      await link(3, 9, P, true, 3n);
      await link(4, 5, OTHER, false, 4n);
    });
    await put(resource(1), 5n);
    const outside = await Promise.all([P, OTHER, 404].map((project) => store.projectCommunities(project)));

    const inside: number[][] = [];
    await store.projectionStore.commit('resources', 6n, async () => {
      // Resource 1 is stored in P; resource 8 is a creation in OTHER; project 404 has no link.
      await store.readAhead([1, 8], [OTHER, 404]);
      for (const project of [P, OTHER, 404]) inside.push(await store.projectCommunities(project));
    });

    expect(outside).toEqual([[3, 7], [5], []]);
    expect(inside).toEqual(outside);
  });

  describe('given a second process listing the same generation', () => {
    let listerRead: PostgresReadDb;
    let lister: PostgresResourceViewStore;

    beforeEach(async () => {
      listerRead = await PostgresReadDb.connect(url, { schema, queryTimeoutMs: 10_000 });
      lister = await PostgresResourceViewStore.open(listerRead);
    });
    afterEach(async () => listerRead.close());

    const lists = [O, D].flatMap((community) =>
      [everything, principals('public'), principals(`circle:${CIRCLE}`), principals('member:c:999')].flatMap(
        (audience) =>
          ([0, 1] as const).flatMap((orderBy) => [
            query({ audience, orderBy }),
            query({ audience, orderBy, skip: 7, take: 5 }),
            query({ audience, orderBy, paragraphId: PARAGRAPH, take: 0 }),
            query({ ...communityView(community), audience, orderBy, take: 50 }),
          ]),
      ),
    );

    it("when the writer creates, moves, hides and deletes resources, then every list the lister answers after looking at the feed is the writer's", async () => {
      const random = seeded(4242);
      const live = new Set<number>();
      let position = 0n;
      // The lister holds every view before the writes begin, so each write must reach its index.
      for (const q of lists) expect(await lister.page(q)).toEqual(naivePage(model.all(), q));
      for (let round = 0; round < 12; round++) {
        await store.projectionStore.commit('resources', position + 8n, async () => {
          for (let i = 0; i < 8; i++) {
            position += 1n;
            const id = 1 + Math.floor(random() * 30);
            if (live.has(id) && random() < 0.2) {
              await store.putResource(id, null, position, []);
              model.remove(id);
              live.delete(id);
              continue;
            }
            const level = (1 + Math.floor(random() * 5)) as PrivacyLevel;
            const r = resource(id, {
              postDate: day(Math.floor(random() * 4)),
              paragraphId: random() < 0.3 ? PARAGRAPH : null,
              owner: {
                privacyLevel: level,
                circles: level === 4 ? [{ circleId: CIRCLE, projectId: null, communityId: O }] : [],
              },
            });
            await store.putResource(id, r, position, model.put(r, random() < 0.5 ? [O, D] : [O]));
            live.add(id);
          }
        });
        // when: the lister looks at the feed, as every request does as it starts
        await listerRead.feed.sync();
        // then
        const answers = await Promise.all(lists.map((q) => lister.page(q)));
        answers.forEach((answer, i) =>
          expect(answer).toEqual(naivePage(model.all(), lists[i] as (typeof lists)[number])),
        );
      }
    });

    it('when the writer resets the read model, then the lister forgets its views and lists nothing', async () => {
      for (let id = 1; id <= 5; id++) await put(resource(id), BigInt(id));
      await listerRead.feed.sync();
      expect((await lister.page(query())).count).toBe(5);

      await store.projectionStore.reset('resources');
      await listerRead.feed.sync();

      expect(await lister.page(query())).toEqual({ count: 0, list: [] });
    });
  });
});

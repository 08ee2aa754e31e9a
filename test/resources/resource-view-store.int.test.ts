/**
 * The resources read model's contract, run against every adapter: SQLite always, the MongoDB
 * adapter on the in-process mingo stand-in always, and on a real MongoDB when one answers, and the
 * PostgreSQL adapter on the suites' server.
 */
import type { RecordedEvent } from '../../src/ports/event-store';
import { MongoResourceViewStore } from '../../src/infra/mongo/mongo-resource-view-store';
import { PostgresResourceViewStore } from '../../src/infra/postgres/postgres-resource-view-store';
import { SqliteResourceViewStore } from '../../src/infra/sqlite/sqlite-resource-view-store';
import { resourceProjection } from '../../src/resources/resource-projection';
import type { Audience, ResourceViewStore, ViewPageKey } from '../../src/resources/resource-view-store';
import {
  CIRCLE,
  D,
  O,
  OTHER_PARAGRAPH,
  OTHER_PROJECT,
  P,
  PARAGRAPH,
  ViewModel,
  communityView,
  createdData,
  day,
  everything,
  largeView,
  naivePage,
  pageQueries,
  principals,
  projectView,
  query,
  resource,
  updatedData,
} from './resource-view-fixtures';
import {
  describeOnEveryReadDb,
  describeOnPostgres,
  type OpenedStore,
  withFreshStore,
} from '../support/read-db-adapters';
import { seeded, walkFaults, walkWhileChanging } from '../support/keyset-walk';

const metadata = {
  actor: { userId: 1, credential: 'session' as const },
  correlationId: 'c',
  at: '2025-01-01T00:00:00.000Z',
};
const recorded = (position: bigint, type: string, data: object): RecordedEvent => ({
  streamId: `resource-${(data as { resourceId: number }).resourceId}`,
  type,
  data,
  metadata,
  revision: 0n,
  position,
});
const created = (position: bigint, resourceId: number, name = 'Created') =>
  recorded(position, 'ResourceCreated', createdData(resourceId, name));
const updated = (position: bigint, resourceId: number, name: string) =>
  recorded(position, 'ResourceUpdated', updatedData(resourceId, name));
const deleted = (position: bigint, resourceId: number) =>
  recorded(position, 'ResourceDeleted', { resourceId, resourceUrl: 'https://example.org/a.pdf' });
/** A directory event the resources read model folds (a project linked to a community, or unlinked). */
const link = (position: bigint, type: string, data: object): RecordedEvent => ({
  ...recorded(position, type, data),
  streamId: 'directory',
});

export function describeResourceViewStoreContract(
  name: string,
  open: () => Promise<OpenedStore<ResourceViewStore>>,
): void {
  describe(`${name} honours the ResourceViewStore contract`, () => {
    let store: ResourceViewStore;
    let model: ViewModel;
    withFreshStore(open, (opened) => {
      store = opened;
      model = new ViewModel();
    });

    const put = async (r: ReturnType<typeof resource>, position: bigint, communities: number[] = [O]) =>
      store.putResource(r.resourceId, r, position, model.put(r, communities));
    const remove = async (resourceId: number, position: bigint) => {
      model.remove(resourceId);
      await store.putResource(resourceId, null, position, []);
    };
    const expectPages = async (queries: Parameters<typeof naivePage>[1][]) => {
      for (const q of queries) expect({ q, page: await store.page(q) }).toEqual({ q, page: naivePage(model.all(), q) });
    };

    describe('resources and their views', () => {
      it('given a stored resource, when read back, then the resource, its position and its views sorted by view key are answered', async () => {
        const r = resource(1, { shares: [{ communityId: D, privacyLevel: 1, circles: [] }] });
        await put(r, 5n, [O]);

        expect(await store.resource(1)).toEqual(r);
        expect(await store.stored(1)).toEqual({ resource: r, position: 5n });
        const views = await store.viewsOfResource(1);
        expect(views.map((v) => v.viewKey)).toEqual(['c:10', 'c:20', 'p:7']);
        expect(views).toEqual([...model.views.get(1)!].sort((a, b) => (a.viewKey < b.viewKey ? -1 : 1)));
        expect(await store.resourceWithViews(1)).toEqual({ resource: r, views });
      });

      it('given nothing stored, when read, then null and no views', async () => {
        expect(await store.resource(404)).toBeNull();
        expect(await store.stored(404)).toBeNull();
        expect(await store.viewsOfResource(404)).toEqual([]);
        expect(await store.resourceWithViews(404)).toBeNull();
      });

      it('given a deleted resource, when read, then a tombstone at its position and no views, and it leaves its project', async () => {
        await put(resource(1), 1n);
        await put(resource(2), 2n);
        await remove(1, 3n);

        expect(await store.resource(1)).toBeNull();
        expect(await store.stored(1)).toEqual({ resource: null, position: 3n });
        expect(await store.viewsOfResource(1)).toEqual([]);
        expect(await store.resourceWithViews(1)).toBeNull();
        expect((await store.resourceWithViews(2))?.resource).toEqual(resource(2));
        expect((await store.resourcesOfProject(P)).map((r) => r.resourceId)).toEqual([2]);
      });

      it('given resources of two projects, when listed by project, then only that project live ones in id order', async () => {
        await put(resource(30), 1n);
        await put(resource(4), 2n);
        await put(resource(17, { scope: { kind: 'project', projectId: OTHER_PROJECT } }), 3n);

        expect((await store.resourcesOfProject(P)).map((r) => r.resourceId)).toEqual([4, 30]);
        expect(await store.resourcesOfProject(OTHER_PROJECT)).toEqual([
          resource(17, { scope: { kind: 'project', projectId: OTHER_PROJECT } }),
        ]);
        expect(await store.resourcesOfProject(999)).toEqual([]);
      });

      it('given a resource, when its views are replaced, then only the new views remain', async () => {
        await put(resource(1), 1n, [O, D]);
        const views = model.put(resource(1), [D]);
        await store.replaceViews(1, views);

        expect((await store.viewsOfResource(1)).map((v) => v.viewKey)).toEqual(['c:20', 'p:7']);
        expect((await store.resourceWithViews(1))?.views.map((v) => v.viewKey)).toEqual(['c:20', 'p:7']);
        expect(await store.stored(1)).toEqual({ resource: resource(1), position: 1n });
      });

      it('given a live resource whose views were all replaced by none, when read with its views, then the resource and no views', async () => {
        await put(resource(1), 1n, [O, D]);
        await store.replaceViews(1, []);

        expect(await store.resourceWithViews(1)).toEqual({ resource: resource(1), views: [] });
      });

      it('given live, deleted and absent resources, when read with their views all at once, then each answer is its own read', async () => {
        await put(resource(1), 1n, [O, D]);
        await put(resource(2), 2n, [D]);
        await put(resource(3), 3n);
        await remove(3, 4n);

        const together = await Promise.all([1, 404, 2, 3, 1].map((id) => store.resourceWithViews(id)));

        const alone = [await store.resourceWithViews(1), await store.resourceWithViews(2)];

        expect(together).toEqual([alone[0], null, alone[1], null, alone[0]]);
        expect(together.map((read) => read?.views.map((v) => v.viewKey))).toEqual([
          ['c:10', 'c:20', 'p:7'],
          undefined,
          ['c:20', 'p:7'],
          undefined,
          ['c:10', 'c:20', 'p:7'],
        ]);
      });
    });

    describe('project links', () => {
      it('given links written, when read, then each link with its position, and the project communities distinct in id order', async () => {
        await store.writeProjectLink({ communityProjectId: 100, communityId: D, projectId: P }, false, 1n);
        await store.writeProjectLink({ communityProjectId: 101, communityId: O, projectId: P }, false, 2n);
        await store.writeProjectLink({ communityProjectId: 102, communityId: D, projectId: P }, false, 3n);
        await store.writeProjectLink({ communityProjectId: 103, communityId: 5, projectId: OTHER_PROJECT }, false, 4n);

        expect(await store.projectLink(101)).toEqual({
          communityProjectId: 101,
          communityId: O,
          projectId: P,
          position: 2n,
          removed: false,
        });
        expect(await store.projectLink(404)).toBeNull();
        expect(await store.projectCommunities(P)).toEqual([O, D]);
        expect(await store.projectCommunities(OTHER_PROJECT)).toEqual([5]);
      });

      it('given a newer link, when an older write arrives, then nothing changes', async () => {
        await store.writeProjectLink({ communityProjectId: 100, communityId: D, projectId: P }, false, 5n);
        await store.writeProjectLink({ communityProjectId: 100, communityId: O, projectId: OTHER_PROJECT }, false, 4n);
        await store.writeProjectLink({ communityProjectId: 100, communityId: O, projectId: OTHER_PROJECT }, false, 5n);

        expect(await store.projectLink(100)).toEqual({
          communityProjectId: 100,
          communityId: D,
          projectId: P,
          position: 5n,
          removed: false,
        });
      });

      it('given a removed link, when an older upsert is replayed, then it stays removed; a newer one restores it', async () => {
        await store.writeProjectLink({ communityProjectId: 100, communityId: D, projectId: P }, false, 1n);
        await store.writeProjectLink({ communityProjectId: 100, communityId: D, projectId: P }, true, 3n);
        await store.writeProjectLink({ communityProjectId: 100, communityId: D, projectId: P }, false, 2n);

        expect(await store.projectLink(100)).toEqual({
          communityProjectId: 100,
          communityId: D,
          projectId: P,
          position: 3n,
          removed: true,
        });
        expect(await store.projectCommunities(P)).toEqual([]);

        await store.writeProjectLink({ communityProjectId: 100, communityId: D, projectId: P }, false, 4n);
        expect(await store.projectCommunities(P)).toEqual([D]);
      });
    });

    describe('pages', () => {
      it('given equal post dates, when paged by recency, then ties go by id descending; by id, ascending', async () => {
        for (const [i, id] of [3, 1, 4, 2, 5].entries())
          await put(resource(id, { postDate: id === 5 ? day(0) : day(1) }), BigInt(i + 1));

        const ids = async (orderBy: 0 | 1, skip = 0, take = 20) =>
          (await store.page(query({ orderBy, skip, take }))).list.map((v) => v.resourceId);
        expect(await ids(1)).toEqual([4, 3, 2, 1, 5]);
        expect(await ids(0)).toEqual([1, 2, 3, 4, 5]);
        expect(await ids(1, 1, 2)).toEqual([3, 2]);
        expect(await ids(0, 4, 10)).toEqual([5]);
        expect(await store.page(query({ skip: 10 }))).toEqual({ count: 5, list: [] });
        expect(await store.page(query({ take: 0 }))).toEqual({ count: 5, list: [] });
      });

      it('given resources of two projects in one community view, when paged, then only the asked project resources', async () => {
        await put(resource(1), 1n);
        await put(resource(2, { scope: { kind: 'project', projectId: OTHER_PROJECT } }), 2n);

        expect((await store.page(query({ ...communityView(O) }))).list.map((v) => v.resourceId)).toEqual([1]);
        expect((await store.page(query({ ...communityView(O, OTHER_PROJECT) }))).list.map((v) => v.resourceId)).toEqual(
          [2],
        );
        expect(await store.page(query({ ...communityView(D) }))).toEqual({ count: 0, list: [] });
      });

      it('given texts with pattern characters and mixed case, when searched by concept and tags, then substrings and tags match literally', async () => {
        await put(resource(1, { name: 'Guide v1.2 (draft)', tags: ['C++'] }), 1n);
        await put(resource(2, { name: 'Guide v1x2', description: 'About [pumps]' }), 2n);
        await put(resource(3, { name: 'Other', tags: ['Pumps', 'Water'] }), 3n);

        const ids = async (over: Parameters<typeof query>[0]) =>
          (await store.page(query(over))).list.map((v) => v.resourceId);
        expect(await ids({ concept: '1.2' })).toEqual([1]);
        expect(await ids({ concept: '(draft)' })).toEqual([1]);
        expect(await ids({ concept: 'c++' })).toEqual([1]);
        expect(await ids({ concept: '[pumps]' })).toEqual([2]);
        expect(await ids({ concept: 'pumps' })).toEqual([2, 3]);
        expect(await ids({ concept: 'guide' })).toEqual([1, 2]);
        expect(await ids({ concept: '.*' })).toEqual([]);
        // A NUL byte is a character like any other (MongoDB refuses one in a pattern as it is).
        expect(await ids({ concept: 'guide\u0000' })).toEqual([]);
        expect(await ids({ tags: ['water', 'c++'] })).toEqual([1, 3]);
        expect(await ids({ tags: ['pumps'], concept: 'other' })).toEqual([3]);
        expect((await store.page(query({ concept: 'guide', take: 0 }))).count).toBe(2);
      });

      it('given resources in paragraphs, when paged by paragraph, then only that paragraph', async () => {
        await put(resource(1, { paragraphId: PARAGRAPH }), 1n);
        await put(resource(2, { paragraphId: OTHER_PARAGRAPH }), 2n);
        await put(resource(3), 3n);

        expect(await store.page(query({ paragraphId: PARAGRAPH }))).toEqual(
          naivePage(model.all(), query({ paragraphId: PARAGRAPH })),
        );
        expect((await store.page(query({ paragraphId: PARAGRAPH }))).list.map((v) => v.resourceId)).toEqual([1]);
        expect((await store.page(query({ paragraphId: null }))).count).toBe(3);
      });

      it('given uneven audiences, when callers with different principals page, then each sees exactly what admits them', async () => {
        await put(resource(1), 1n);
        await put(resource(2, { owner: { privacyLevel: 3, circles: [] } }), 2n);
        await put(
          resource(3, { owner: { privacyLevel: 4, circles: [{ circleId: CIRCLE, projectId: P, communityId: null }] } }),
          3n,
        );

        const ids = async (audience: Audience) => (await store.page(query({ audience }))).list.map((v) => v.resourceId);
        expect(await ids(everything)).toEqual([1, 2, 3]);
        expect(await ids(principals('public'))).toEqual([1]);
        expect(await ids(principals(`circle:${CIRCLE}`))).toEqual([3]);
        expect(await ids(principals('public', `circle:${CIRCLE}`))).toEqual([1, 3]);
        expect(await ids(principals(`team:p:${P}`))).toEqual([1, 2, 3]);
        expect(await store.page(query({ audience: principals('nobody') }))).toEqual({ count: 0, list: [] });
        expect(await store.page(query({ audience: principals() }))).toEqual({ count: 0, list: [] });
      });

      it('given views, when audiences, paragraphs, deletions and view replacements change them, then counts and pages follow', async () => {
        for (let id = 1; id <= 12; id++)
          await put(resource(id, { paragraphId: id % 2 ? PARAGRAPH : null }), BigInt(id), [O, D]);
        const queries = [projectView(), communityView(O), communityView(D)].flatMap((view) =>
          [everything, principals('public'), principals(`team:p:${P}`), principals('member:c:20')].flatMap(
            (audience) => [
              query({ ...view, audience }),
              query({ ...view, audience, paragraphId: PARAGRAPH, take: 0 }),
              query({ ...view, audience, paragraphId: 0 }),
            ],
          ),
        );
        await expectPages(queries);

        await put(resource(2, { owner: { privacyLevel: 3, circles: [] }, paragraphId: PARAGRAPH }), 20n, [O, D]);
        await put(resource(3, { paragraphId: null, owner: { privacyLevel: 2, circles: [] } }), 21n, [O, D]);
        await remove(4, 22n);
        await store.replaceViews(5, model.put(resource(5, { paragraphId: PARAGRAPH }), [O]));
        await store.replaceViews(6, model.put(resource(6), []));
        await expectPages(queries);

        await remove(2, 23n);
        await store.replaceViews(6, model.put(resource(6), [O, D]));
        await expectPages(queries);
      });

      it('given ties and gaps, when paged after a key, then the rows past it in each order, the count still the whole list', async () => {
        for (const [i, id] of [3, 1, 4, 2, 5].entries())
          await put(resource(id, { postDate: id === 5 ? day(0) : day(1) }), BigInt(i + 1));
        const after = async (orderBy: 0 | 1, key: ViewPageKey, over: Parameters<typeof query>[0] = {}) => {
          const page = await store.page(query({ orderBy, after: key, ...over }));
          return { count: page.count, ids: page.list.map((v) => v.resourceId) };
        };

        expect(await after(1, { postDate: day(1), resourceId: 3 })).toEqual({ count: 5, ids: [2, 1, 5] });
        expect(await after(0, { postDate: '', resourceId: 2 })).toEqual({ count: 5, ids: [3, 4, 5] });
        // The row the key names is gone (or never was): the page still starts where it stood.
        expect(await after(0, { postDate: '', resourceId: 0 }, { take: 2 })).toEqual({ count: 5, ids: [1, 2] });
        expect(await after(1, { postDate: day(2), resourceId: 9 }, { take: 1 })).toEqual({ count: 5, ids: [4] });
        expect(await after(1, { postDate: day(0), resourceId: 5 })).toEqual({ count: 5, ids: [] });
        expect(await after(1, { postDate: day(1), resourceId: 3 }, { concept: 'resource' })).toEqual({
          count: 5,
          ids: [2, 1, 5],
        });
      });

      const walks = [
        { orderBy: 0 as const, audience: everything, concept: null },
        { orderBy: 1 as const, audience: everything, concept: null },
        { orderBy: 1 as const, audience: principals('public'), concept: null },
        { orderBy: 0 as const, audience: principals('public'), concept: 'resource' },
        { orderBy: 1 as const, audience: everything, concept: 'resource' },
      ];
      it.each(walks)(
        'given a view changing between pages, when walked after each page last key (orderBy $orderBy, concept $concept), then every resource that stayed is seen exactly once',
        async ({ orderBy, audience, concept }) => {
          const random = seeded(orderBy * 10 + (concept ? 1 : 0) + (audience.kind === 'everything' ? 0 : 5));
          const visible = new Set<number>();
          const used = new Set<number>();
          let position = 0n;
          // Ids and post dates anywhere in their ranges: new resources land before and after the walk's place.
          const insert = async () => {
            let id = 0;
            while (id === 0 || used.has(id)) id = 1 + Math.floor(random() * 1000);
            used.add(id);
            const hidden = random() < 0.25;
            if (!hidden) visible.add(id);
            await put(
              resource(id, {
                postDate: day(Math.floor(random() * 6)),
                owner: { privacyLevel: hidden ? 3 : 1, circles: [] },
              }),
              ++position,
            );
          };
          for (let i = 0; i < 40; i++) await insert();
          const stayed = new Set(audience.kind === 'everything' ? used : visible);
          const walk = await walkWhileChanging({
            page: (after: ViewPageKey | null) => store.page(query({ orderBy, audience, concept, take: 4, after })),
            idOf: (v) => v.resourceId,
            keyOf: (v) => ({ resourceId: v.resourceId, postDate: v.postDate }),
            live: () => (audience.kind === 'everything' ? model.views.size : visible.size),
            change: async () => {
              await insert();
              await insert();
              const ids = [...model.views.keys()];
              const gone = ids[Math.floor(random() * ids.length)] as number;
              visible.delete(gone);
              stayed.delete(gone);
              await remove(gone, ++position);
            },
          });

          expect(walkFaults(walk, stayed)).toEqual({ missedOrRepeated: [], repeated: [] });
          expect(walk.counts.filter((c) => c.answered !== c.live)).toEqual([]);
        },
      );

      describe('a view of 2,000 resources', () => {
        it('given callers admitted to few, most or all of its rows, when they page with every filter, then each answer equals a brute-force filter and sort', async () => {
          let position = 1n;
          for (const r of largeView(2000)) await put(r, position++, [O]);
          await put(resource(5000, { scope: { kind: 'project', projectId: OTHER_PROJECT } }), position++, [O]);

          const admittedToCircle = naivePage(
            model.all(),
            query({ audience: principals(`circle:${CIRCLE}`), take: 0 }),
          ).count;
          const admittedToPublic = naivePage(model.all(), query({ audience: principals('public'), take: 0 })).count;
          expect(admittedToCircle).toBeLessThan(2000 / 8);
          expect(admittedToPublic).toBeGreaterThan(2000 / 2);

          await expectPages([...pageQueries(projectView()), ...pageQueries(communityView(O))]);
        }, 120_000);
      });
    });

    describe('folded through the projection, guarded by position', () => {
      it('given a newer event applied, when an older one is replayed, then the resource and its views are unchanged', async () => {
        const projection = resourceProjection(store);
        await projection.apply(created(1n, 1));
        await projection.apply(updated(2n, 1, 'Renamed'));
        const before = { stored: await store.stored(1), views: await store.viewsOfResource(1) };

        await projection.apply(updated(2n, 1, 'Renamed'));
        await projection.apply(created(1n, 1, 'Old'));

        expect({ stored: await store.stored(1), views: await store.viewsOfResource(1) }).toEqual(before);
        expect(before.stored?.resource?.name).toBe('Renamed');
        expect(before.stored?.position).toBe(2n);
      });

      it('given a deleted resource, when older events are replayed, then the tombstone stays', async () => {
        const projection = resourceProjection(store);
        await projection.apply(created(1n, 1));
        await projection.apply(updated(2n, 1, 'Renamed'));
        await projection.apply(deleted(3n, 1));

        await projection.apply(created(1n, 1));
        await projection.apply(updated(2n, 1, 'Renamed'));

        expect(await store.stored(1)).toEqual({ resource: null, position: 3n });
        expect(await store.viewsOfResource(1)).toEqual([]);
      });

      it('given a history, when any range of it is replayed twice, then the digest is the one of a single pass', async () => {
        const projection = resourceProjection(store);
        const history: RecordedEvent[] = [
          created(1n, 1),
          created(2n, 2),
          link(3n, 'CommunityProjectUpserted', { communityProjectId: 100, communityId: O, projectId: P }),
          updated(4n, 1, 'Renamed'),
          link(5n, 'CommunityProjectUpserted', { communityProjectId: 101, communityId: D, projectId: P }),
          deleted(6n, 2),
          link(7n, 'CommunityProjectRemoved', { communityProjectId: 100 }),
          created(8n, 3),
        ];
        for (const event of history) await projection.apply(event);
        const once = await store.projectionStore.digest();

        for (const [from, to] of [
          [0, history.length],
          [2, 5],
          [5, 8],
        ]) {
          for (const event of history.slice(from, to)) await projection.apply(event);
          for (const event of history.slice(from, to)) await projection.apply(event);
          expect(await store.projectionStore.digest()).toEqual(once);
        }
        expect(await store.projectCommunities(P)).toEqual([D]);
        expect((await store.page(query({ ...communityView(D) }))).list.map((v) => v.resourceId)).toEqual([1, 3]);
      });
    });

    describe('folded in one batch', () => {
      it('given a history folded in one committed batch, with replays and link changes in it, then the read model is the one folded event by event', async () => {
        const projection = resourceProjection(store);
        const history: RecordedEvent[] = [
          created(1n, 1),
          created(2n, 2),
          updated(3n, 1, 'Renamed'),
          link(4n, 'CommunityProjectUpserted', { communityProjectId: 100, communityId: O, projectId: P }),
          updated(5n, 2, 'Second'),
          created(1n, 1, 'Old'),
          deleted(6n, 2),
          link(7n, 'CommunityProjectUpserted', { communityProjectId: 101, communityId: D, projectId: P }),
          created(8n, 3),
          updated(9n, 3, 'Third'),
          link(10n, 'CommunityProjectRemoved', { communityProjectId: 100 }),
          updated(11n, 1, 'Again'),
          deleted(6n, 2),
        ];
        const state = async () => ({
          stored: await Promise.all([1, 2, 3].map((id) => store.stored(id))),
          views: await Promise.all([1, 2, 3].map((id) => store.viewsOfResource(id))),
          communities: await store.projectCommunities(P),
          pages: await Promise.all(
            [query({ ...communityView(D) }), query({ ...communityView(O) }), query()].map((q) => store.page(q)),
          ),
          tables: (await store.projectionStore.digest()).counts,
        });
        for (const event of history) await projection.apply(event);
        const oneByOne = await state();
        await store.projectionStore.reset('resources');

        await store.projectionStore.commit('resources', 11n, async () => {
          for (const event of history) await projection.apply(event);
        });

        expect(await state()).toEqual(oneByOne);
        expect(oneByOne.stored[1]).toEqual({ resource: null, position: 6n });
        expect(oneByOne.pages[0]?.list.map((v) => v.resourceId)).toEqual([1, 3]);
      });
    });

    describe('the projection side', () => {
      it('given a committed batch, when the checkpoint is read, then it is the batch position; after reset, nothing remains', async () => {
        expect(await store.projectionStore.checkpoint('resources')).toBeUndefined();
        await store.projectionStore.commit('resources', 9n, async () => {
          await put(resource(1), 9n);
          await store.writeProjectLink({ communityProjectId: 100, communityId: O, projectId: P }, false, 9n);
        });
        expect(await store.projectionStore.checkpoint('resources')).toBe(9n);
        expect((await store.projectionStore.digest()).counts).not.toEqual({});

        await store.projectionStore.reset('resources');

        expect(await store.projectionStore.checkpoint('resources')).toBeUndefined();
        expect(await store.stored(1)).toBeNull();
        expect(await store.projectLink(100)).toBeNull();
        expect(await store.page(query())).toEqual({ count: 0, list: [] });
        expect(Object.values((await store.projectionStore.digest()).counts).every((n) => n === 0)).toBe(true);
      });
    });
  });
}

describeOnEveryReadDb(describeResourceViewStoreContract, {
  sqlite: ['SqliteResourceViewStore', (read) => new SqliteResourceViewStore(read)],
  mongo: ['MongoResourceViewStore', (read) => MongoResourceViewStore.open(read)],
  postgres: ['PostgresResourceViewStore', (read) => PostgresResourceViewStore.open(read)],
});

// A generation built from the whole log: the store holds its rows in the process from its reset
// on, and sends a batch's writes as the batch commits (ResourceMirror); it answers as above.
describeOnPostgres(
  describeResourceViewStoreContract,
  'PostgresResourceViewStore',
  async (read) => {
    const store = await PostgresResourceViewStore.open(read);
    await store.projectionStore.reset('resources');
    return store;
  },
  { bulkLoad: true },
);

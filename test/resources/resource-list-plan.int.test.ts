/**
 * A list answer costs an index lookup, whatever the size of the view and the depth of the page:
 * the page's ids and the count come from the view index (the view's rows in list order, kept in
 * step through the change feed) and each row of the page is read by its primary key, never by
 * walking the view; only a free-text or tag search asks SQLite to scan the view, through its index.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { principal } from '../../src/resources/access/principals';
import type { Resource } from '../../src/resources/resource';
import { startReading } from '../../src/infra/read-db';
import { SqliteReadDb } from '../../src/infra/sqlite/sqlite-read-db';
import { SqliteResourceViewStore } from '../../src/infra/sqlite/sqlite-resource-view-store';
import { viewRecords } from '../../src/resources/resource-projection';
import type { Audience, ViewPageQuery } from '../../src/resources/resource-view-store';
import { resource as fixtureResource } from './resource-view-fixtures';

const COMMUNITY = 1;
const PROJECT = 10;

function resource(id: number): Resource {
  const posted = new Date(Date.UTC(2026, 0, 1) + id * 1000).toISOString();
  return fixtureResource(id, {
    scope: { kind: 'communityProject', projectId: PROJECT, communityId: COMMUNITY, communityProjectId: 1000 },
    paragraphId: id % 10 === 0 ? 5000 : null,
    resourceType: 3,
    tags: id % 7 === 0 ? ['Seven'] : [],
    postDate: posted,
    lastUpdated: posted,
    // Most are for the community's members; one in a hundred for one circle only.
    owner:
      id % 100 === 0
        ? { privacyLevel: 4, circles: [{ circleId: 300, projectId: null, communityId: COMMUNITY }] }
        : { privacyLevel: 2, circles: [] },
  });
}

async function bigView(size: number): Promise<SqliteResourceViewStore> {
  const store = new SqliteResourceViewStore(SqliteReadDb.open(':memory:'));
  for (let id = 1; id <= size; id++)
    await store.putResource(id, resource(id), BigInt(id), viewRecords(resource(id), [COMMUNITY]));
  return store;
}

const member: Audience = { kind: 'principals', principals: [principal.public, principal.member(COMMUNITY)] };
const circleMember: Audience = { kind: 'principals', principals: [principal.public, principal.circle(300)] };
const outsider: Audience = { kind: 'principals', principals: [principal.public] };

const query = (audience: Audience, overrides: Partial<ViewPageQuery> = {}): ViewPageQuery => ({
  viewKey: `c:${COMMUNITY}`,
  projectId: PROJECT,
  audience,
  paragraphId: null,
  concept: null,
  tags: [],
  orderBy: 1,
  skip: 0,
  take: 50,
  ...overrides,
});

describe('GetResourceList query plan on the embedded read model', () => {
  let store: SqliteResourceViewStore;
  beforeAll(async () => {
    store = await bigView(4000);
  });

  it.each([
    ['a member (most rows admit them)', member, 0],
    ['a member, most recent first', member, 1],
    ['a circle member (few rows admit them)', circleMember, 1],
    ['an admin of the community', { kind: 'everything' } as Audience, 1],
  ] as const)(
    'given a 4,000-resource view, when %s lists it, then the count comes from the view index and each row by its key',
    async (_who, audience, orderBy) => {
      // when
      const plan = store.explainPage(query(audience, { orderBy, skip: 3000 }));
      // then
      expect(plan.counted).toBe('view index');
      expect(plan.plans).toHaveLength(1);
      expect(plan.plans[0]).toMatch(
        /SEARCH res_views USING INDEX sqlite_autoindex_res_views_1 \(resource_id=\? AND view_key=\?\)/,
      );
    },
  );

  it('given a tag search, then the count is a query over the view, still through its index', () => {
    const plan = store.explainPage(query(member, { tags: ['seven'] }));
    expect(plan.counted).toBe('query');
    // the page's plan and the count's: both searched through the index
    expect(plan.plans).toHaveLength(2);
    for (const p of plan.plans)
      expect(p).toMatch(/SEARCH res_views USING (COVERING )?INDEX res_views_(in_view|by_recent)/);
  });

  it('given an outsider, then they see nothing and nothing is read', async () => {
    expect(await store.page(query(outsider))).toEqual({ count: 0, list: [] });
  });

  it('given the view index, then counts and pages agree with the rows they stand for', async () => {
    // member: every level-2 resource; the circle member: the level-4 ones; the admin: all
    expect((await store.page(query(member, { take: 0 }))).count).toBe(3960);
    expect((await store.page(query(circleMember, { take: 0 }))).count).toBe(40);
    expect((await store.page(query({ kind: 'everything' }, { take: 0 }))).count).toBe(4000);
    const page = await store.page(query(circleMember, { orderBy: 1, skip: 5, take: 3 }));
    expect(page.list.map((r) => r.resourceId)).toEqual([3500, 3400, 3300]);
    const paragraph = await store.page(query(member, { paragraphId: 5000, orderBy: 0, take: 2 }));
    expect(paragraph).toMatchObject({ count: 360, list: [{ resourceId: 10 }, { resourceId: 20 }] });
  });
});

describe('the view index kept in step with writes', () => {
  it('given a view listed once, when resources are added, changed, moved to another level and removed, then the next list sees each change in both orders', async () => {
    // given
    const store = await bigView(300);
    // every list the then-part reads is built before the changes, so each must be kept in step
    expect((await store.page(query(member, { take: 0 }))).count).toBe(297);
    expect((await store.page(query(member, { orderBy: 0, take: 0 }))).count).toBe(297);
    expect((await store.page(query(circleMember, { take: 0 }))).count).toBe(3);
    // when: a new resource (the most recent), one made circle-only, one deleted
    await store.putResource(301, resource(301), 301n, viewRecords(resource(301), [COMMUNITY]));
    const hidden = {
      ...resource(150),
      owner: { privacyLevel: 4, circles: [{ circleId: 300, projectId: null, communityId: COMMUNITY }] },
    } as Resource;
    await store.putResource(150, hidden, 302n, viewRecords(hidden, [COMMUNITY]));
    await store.putResource(7, null, 303n, []);
    // then
    const recent = await store.page(query(member, { orderBy: 1, take: 3 }));
    expect(recent.count).toBe(297 + 1 - 2);
    expect(recent.list.map((r) => r.resourceId)).toEqual([301, 299, 298]);
    const byId = await store.page(query(member, { orderBy: 0, skip: 4, take: 3 }));
    expect(byId.list.map((r) => r.resourceId)).toEqual([5, 6, 8]);
    expect((await store.page(query(circleMember, { take: 10 }))).list.map((r) => r.resourceId)).toEqual([
      300, 200, 150, 100,
    ]);
  });

  it('given a view listed by this process, when another process writes to it, then a request after the write sees it', async () => {
    // given: two connections to one file, as an API process beside a projector
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'view-index-'));
    const file = path.join(dir, 'read-models.sqlite');
    const server = SqliteReadDb.open(file);
    const projector = SqliteReadDb.open(file);
    try {
      const serving = new SqliteResourceViewStore(server);
      const writing = new SqliteResourceViewStore(projector);
      for (let id = 1; id <= 20; id++)
        await writing.putResource(id, resource(id), BigInt(id), viewRecords(resource(id), [COMMUNITY]));
      startReading({ kind: 'sqlite', sqlite: server });
      expect((await serving.page(query(member, { take: 0 }))).count).toBe(20);
      // when
      await projector.transaction(() =>
        writing.putResource(21, resource(21), 21n, viewRecords(resource(21), [COMMUNITY])),
      );
      await projector.transaction(() => writing.putResource(3, null, 22n, []));
      startReading({ kind: 'sqlite', sqlite: server });
      // then
      const page = await serving.page(query(member, { orderBy: 1, take: 2 }));
      expect(page.count).toBe(20);
      expect(page.list.map((r) => r.resourceId)).toEqual([21, 20]);
      expect((await serving.page(query(member, { orderBy: 0, take: 3 }))).list.map((r) => r.resourceId)).toEqual([
        1, 2, 4,
      ]);
      // when: one batch writes more rows of the view than the feed names one by one (the whole view changed)
      await projector.transaction(async () => {
        for (let id = 101; id <= 1600; id++)
          await writing.putResource(id, resource(id), BigInt(id), viewRecords(resource(id), [COMMUNITY]));
      });
      startReading({ kind: 'sqlite', sqlite: server });
      // then
      const after = await serving.page(query(member, { orderBy: 1, take: 1 }));
      expect(after.count).toBe(20 + 1500 - 15);
      expect(after.list.map((r) => r.resourceId)).toEqual([1599]);
    } finally {
      server.close();
      projector.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

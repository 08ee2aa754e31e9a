/**
 * A list answer costs an index lookup, whatever the size of the view (issue: read models that
 * scale): the page is read through an index of the view, never by scanning the table, and the
 * count comes from the per-audience counters unless a free-text or tag search asks for a scan.
 */
import { principal } from '../../src/domain/access/principals';
import type { Resource } from '../../src/domain/resource/resource';
import { SqliteReadDb } from '../../src/infra/read-models/sqlite-read-db';
import { SqliteResourceViewStore } from '../../src/infra/read-models/sqlite-resource-view-store';
import { viewRecords } from '../../src/projections/resources/resource-projection';
import type { Audience, ViewPageQuery } from '../../src/projections/resources/resource-view-store';
import { resource as fixtureResource } from '../contract/resource-view-fixtures';

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
    owner: id % 100 === 0 ? { privacyLevel: 4, circles: [{ circleId: 300, projectId: null, communityId: COMMUNITY }] } : { privacyLevel: 2, circles: [] },
  });
}

async function bigView(size: number): Promise<SqliteResourceViewStore> {
  const store = new SqliteResourceViewStore(SqliteReadDb.open(':memory:'));
  for (let id = 1; id <= size; id++) await store.putResource(id, resource(id), BigInt(id), viewRecords(resource(id), [COMMUNITY]));
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
  ] as const)('given a 4,000-resource view, when %s lists it, then the page is an index search and the count comes from counters', async (_who, audience, orderBy) => {
    // when
    const plan = store.explainPage(query(audience, { orderBy }));
    // then
    expect(plan.counted).toBe('counters');
    expect(plan.plans).toHaveLength(1);
    expect(plan.plans[0]).toMatch(/SEARCH res_views USING (COVERING )?INDEX res_views_by_/);
    expect(plan.plans[0]).not.toMatch(/SCAN res_views(?! USING)/);
  });

  it('given a tag search, then the count is a query over the view, still through its index', () => {
    const plan = store.explainPage(query(member, { tags: ['seven'] }));
    expect(plan.counted).toBe('query');
    // the page's plan and the count's: both searched through the index
    expect(plan.plans).toHaveLength(2);
    for (const p of plan.plans) expect(p).toMatch(/SEARCH res_views USING (COVERING )?INDEX res_views_by_/);
  });

  it('given an outsider, then they see nothing and nothing is read', async () => {
    expect(await store.page(query(outsider))).toEqual({ count: 0, list: [] });
  });

  it('given the counters, then counts and pages agree with the rows they stand for', async () => {
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

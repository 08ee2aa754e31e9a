/**
 * A list answer on PostgreSQL costs index reads, whatever the size of the view: its count and its
 * page's ids come from the view index held in the process, and the page's documents are read by
 * their keys; only a free-text or tag search counts its matches in SQL, among the audience sets
 * the view index names, through an index of the view. Nothing walks the whole table.
 */
import { principal } from '../../src/resources/access/principals';
import type { Resource } from '../../src/resources/resource';
import { PostgresReadDb } from '../../src/infra/postgres/postgres-read-db';
import { PostgresResourceViewStore } from '../../src/infra/postgres/postgres-resource-view-store';
import { viewRecords } from '../../src/resources/resource-projection';
import type { Audience, ViewPageQuery } from '../../src/resources/resource-view-store';
import { resource as fixtureResource } from './resource-view-fixtures';
import { describeExternal, externalTarget } from '../support/external';
import { dropSchema, freshSchema } from '../support/postgres';

const COMMUNITY = 1;
const PROJECT = 10;
const SIZE = 4000;
const OTHER_VIEWS = 9;

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

const member: Audience = { kind: 'principals', principals: [principal.public, principal.member(COMMUNITY)] };
const circleMember: Audience = { kind: 'principals', principals: [principal.public, principal.circle(300)] };
const outsider: Audience = { kind: 'principals', principals: [principal.public] };
const admin: Audience = { kind: 'everything' };

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

const target = externalTarget('postgres');

describeExternal('GetResourceList query plan on PostgreSQL', target, () => {
  const url = target.kind === 'url' ? target.url : '';
  const schema = freshSchema('plan');
  let read: PostgresReadDb;
  let store: PostgresResourceViewStore;

  beforeAll(async () => {
    read = await PostgresReadDb.connect(url, { schema, queryTimeoutMs: 10_000 });
    store = await PostgresResourceViewStore.open(read);
    await store.projectionStore.commit('resources', BigInt(SIZE), async () => {
      for (let id = 1; id <= SIZE; id++)
        await store.putResource(id, resource(id), BigInt(id), viewRecords(resource(id), [COMMUNITY]));
    });
    // The view is one of many, as in a real read model: copies of it for other projects, written
    // straight to the table to keep the setup short.
    await read.query(
      `insert into res_views (resource_id, view_key, project_id, paragraph, post_date, audience_key, search, tags, doc)
       select resource_id + k * $2, view_key, project_id + k, paragraph, post_date, audience_key, search, tags, doc
       from res_views, generate_series(1, $3::int) as k where project_id = $1`,
      [PROJECT, SIZE, OTHER_VIEWS],
    );
    await read.query('analyze');
  }, 120_000);

  afterAll(async () => {
    await read.close();
    await dropSchema(url, schema);
  });

  it.each([
    ['a member (most rows admit them), by id', member, 0, null],
    ['a member, most recent first, deep in the view', member, 1, null],
    ['a circle member (few rows admit them)', circleMember, 1, null],
    ['an admin of the community', admin, 1, null],
    ['a member, in one paragraph', member, 0, 5000],
  ] as const)(
    'given a 4,000-resource view, when %s lists it, then the count comes from the view index and the page by key',
    async (_who, audience, orderBy, paragraphId) => {
      // when
      const plan = await store.explainPage(query(audience, { orderBy, paragraphId, skip: 3000 }));
      // then
      expect(plan.counted).toBe('view index');
      expect(plan.plans).toHaveLength(1);
      for (const p of plan.plans) {
        expect(p).toMatch(/Index (Only )?Scan|Bitmap Index Scan/);
        expect(p).not.toMatch(/Seq Scan/);
      }
    },
  );

  it('given a tag search, then the count is a query over the view, still through its index', async () => {
    const plan = await store.explainPage(query(member, { tags: ['seven'], concept: 'resource' }));
    expect(plan.counted).toBe('query');
    expect(plan.plans).toHaveLength(2);
    for (const p of plan.plans) expect(p).not.toMatch(/Seq Scan/);
  });

  it('given an outsider, then they see nothing', async () => {
    expect(await store.page(query(outsider))).toEqual({ count: 0, list: [] });
  });

  it('given the view index, then counts and pages agree with the rows they stand for', async () => {
    // member: every level-2 resource; the circle member: the level-4 ones; the admin: all
    expect((await store.page(query(member, { take: 0 }))).count).toBe(3960);
    expect((await store.page(query(circleMember, { take: 0 }))).count).toBe(40);
    expect((await store.page(query(admin, { take: 0 }))).count).toBe(4000);
    const page = await store.page(query(circleMember, { orderBy: 1, skip: 5, take: 3 }));
    expect(page.list.map((r) => r.resourceId)).toEqual([3500, 3400, 3300]);
    const paragraph = await store.page(query(member, { paragraphId: 5000, orderBy: 0, take: 2 }));
    expect(paragraph).toMatchObject({ count: 360, list: [{ resourceId: 10 }, { resourceId: 20 }] });
  });
});

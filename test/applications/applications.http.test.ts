import { application } from '../support/application-fixtures';
import { demo, demoDirectory } from '../support/demo-directory';
import { serverForSuite } from '../support/suite-server';

/**
 * POST /api/ApplicationDefinition/{applicationDefinitionId}/Applications, the example paginated
 * endpoint (docs/api.md "Paginated endpoints"). Besides the demo directory (definition 70 of
 * community 1, applications 700-702), the suite seeds:
 *  - definition 71 of community 1 with 25 applications 7100-7124, fed in reverse id order and
 *    with shared submission dates, so ordering cannot come from insertion order and the
 *    submittedAt tie-break is exercised;
 *  - definition 72 of community 1 with no application at all.
 */
const BATCH = 71;
const EMPTY = 72;
const BATCH_SIZE = 25;
const batchIds = Array.from({ length: BATCH_SIZE }, (_, i) => 7100 + i);
/** Five applications share each day: 7100, 7105, ... on 1 Jan; 7101, 7106, ... on 2 Jan; ... */
const submittedAtOf = (id: number) => `2026-01-0${1 + ((id - 7100) % 5)}T08:00:00Z`;

const path = (id: number | string) => `/api/ApplicationDefinition/${id}/Applications`;

const seed = [
  {
    type: 'ApplicationDefinitionUpserted',
    data: { applicationDefinitionId: BATCH, name: 'Batch Call', communityId: demo.communities.public1 },
  },
  {
    type: 'ApplicationDefinitionUpserted',
    data: { applicationDefinitionId: EMPTY, name: 'Quiet Call', communityId: demo.communities.public1 },
  },
  ...[...batchIds].reverse().map((applicationId) => ({
    type: 'ApplicationUpserted',
    data: application(applicationId, {
      applicationDefinitionId: BATCH,
      name: `Batch ${applicationId}`,
      submittedAt: submittedAtOf(applicationId),
      tags: ['batch'],
      country: 'Chile',
    }),
  })),
];

describe('POST /api/ApplicationDefinition/{id}/Applications', () => {
  const server = serverForSuite([demoDirectory.events, seed]);
  let adminToken: string;

  beforeAll(async () => {
    adminToken = await server.token(demo.users.admin1);
  });

  const asAdmin = (id: number | string, body: unknown) => server.post(path(id), body, { token: adminToken });
  const ids = (list: { id: number }[]) => list.map((item) => item.id);

  describe('given an approved admin of the owning community', () => {
    it('when listing with no paging, then count, every item, the filter values and filters null', async () => {
      const res = await asAdmin(demo.applicationDefinition, {});

      expect(res.status).toBe(200);
      expect(res.body.count).toBe(3);
      expect(res.body.filters).toBeNull();
      expect(res.body.applicationDefinitionFilters).toEqual({
        applicationTags: ['agriculture', 'energy', 'hardware', 'water'],
        applicationCountries: ['Kenya', 'Peru'],
        applicationStages: ['growth', 'idea', 'prototype'],
        applicationIndustries: ['energy', 'utilities'],
        applicationSDGs: ['13', '15', '2', '6', '7'],
        applicationUserInterests: ['sensors', 'solar', 'water'],
      });
      expect(ids(res.body.list)).toEqual([700, 701, 702]);
      expect(res.body.list[0]).toEqual({
        id: 700,
        applicationDefinitionId: 70,
        applicationDefinitionName: 'Spring Accelerator 2026',
        name: 'Solar Kiosk',
        submittedAt: '2026-03-01T10:00:00.000Z', // stored normalised to UTC with milliseconds
        tags: ['energy', 'hardware'],
        country: 'Kenya',
        stage: 'prototype',
        industry: 'energy',
        sdgs: ['7', '13'],
        userInterests: ['solar'],
      });
      for (const item of res.body.list) {
        expect(Number.isInteger(item.id)).toBe(true);
        expect(typeof item.applicationDefinitionName).toBe('string');
      }
    });

    it('when the body is omitted, then the defaults apply', async () => {
      const res = await server.post(path(demo.applicationDefinition), undefined, { token: adminToken });

      expect(res.status).toBe(200);
      expect(res.body.count).toBe(3);
      expect(ids(res.body.list)).toEqual([700, 701, 702]);
    });

    it('when the definition has no applications, then count 0, an empty list and empty filter lists', async () => {
      const res = await asAdmin(EMPTY, {});

      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        applicationDefinitionFilters: {
          applicationTags: [],
          applicationCountries: [],
          applicationStages: [],
          applicationIndustries: [],
          applicationSDGs: [],
          applicationUserInterests: [],
        },
        count: 0,
        list: [],
        nextCursor: null,
        filters: null,
      });
    });

    it('when another definition is listed, then only its own applications and values appear', async () => {
      const res = await asAdmin(BATCH, { take: 1000 });

      expect(res.status).toBe(200);
      expect(res.body.count).toBe(BATCH_SIZE);
      expect(ids(res.body.list)).toEqual(batchIds);
      expect(res.body.applicationDefinitionFilters.applicationTags).toEqual(['batch']);
      expect(res.body.applicationDefinitionFilters.applicationCountries).toEqual(['Chile']);
      expect(res.body.applicationDefinitionFilters.applicationStages).toEqual([]);
    });

    it('when take 10 and skip 5, then the items at positions 6 to 15 and the full count', async () => {
      const res = await asAdmin(BATCH, { take: 10, skip: 5 });

      expect(res.status).toBe(200);
      expect(res.body.count).toBe(BATCH_SIZE);
      expect(ids(res.body.list)).toEqual(batchIds.slice(5, 15));
    });

    it('when pageSize is sent instead of take, then it sets the page size', async () => {
      const res = await asAdmin(BATCH, { pageSize: 4, skip: 20 });

      expect(res.status).toBe(200);
      expect(ids(res.body.list)).toEqual(batchIds.slice(20, 24));
    });

    it('when take and pageSize are both sent and equal, then they are accepted', async () => {
      const res = await asAdmin(BATCH, { take: 3, pageSize: 3 });

      expect(res.status).toBe(200);
      expect(ids(res.body.list)).toEqual(batchIds.slice(0, 3));
    });

    it('when take is 0, then the count and no items', async () => {
      const res = await asAdmin(BATCH, { take: 0 });

      expect(res.status).toBe(200);
      expect(res.body.count).toBe(BATCH_SIZE);
      expect(res.body.list).toEqual([]);
    });

    it('when skip passes the end, then the count and no items', async () => {
      const res = await asAdmin(BATCH, { skip: 100 });

      expect(res.status).toBe(200);
      expect(res.body.count).toBe(BATCH_SIZE);
      expect(res.body.list).toEqual([]);
    });

    it('when more than 50 would match and take is absent, then 50 is the default page size', async () => {
      const more = Array.from({ length: 30 }, (_, i) => ({
        type: 'ApplicationUpserted',
        data: application(7300 + i, {
          applicationDefinitionId: 73,
          name: `Default ${i}`,
          submittedAt: '2026-02-01T00:00:00Z',
        }),
      }));
      const seeded = await server.directory([
        {
          type: 'ApplicationDefinitionUpserted',
          data: { applicationDefinitionId: 73, name: 'Big Call', communityId: demo.communities.public1 },
        },
        ...more,
        ...more.map((e) => ({ ...e, data: { ...e.data, applicationId: e.data.applicationId + 100 } })),
      ]);
      expect(seeded.status).toBe(200);

      const res = await asAdmin(73, {});

      expect(res.status).toBe(200);
      expect(res.body.count).toBe(60);
      expect(res.body.list).toHaveLength(50);
    });

    it('when orderBy 1, then newest submission first', async () => {
      const res = await asAdmin(demo.applicationDefinition, { orderBy: 1 });

      expect(res.status).toBe(200);
      expect(ids(res.body.list)).toEqual([702, 701, 700]);
    });

    it('when orderBy 1 and submissions share a date, then the higher id comes first among them', async () => {
      const res = await asAdmin(BATCH, { orderBy: 1, take: 1000 });

      // 5 Jan: 7124, 7119, ..., 7104; then 4 Jan: 7123, ...; down to 1 Jan: ..., 7100.
      const expected = [4, 3, 2, 1, 0].flatMap((day) => [20, 15, 10, 5, 0].map((base) => 7100 + base + day));
      expect(res.status).toBe(200);
      expect(ids(res.body.list)).toEqual(expected);
    });

    it('when orderBy 0, then applicationId ascending', async () => {
      const res = await asAdmin(BATCH, { orderBy: 0, take: 5, skip: 3 });

      expect(res.status).toBe(200);
      expect(ids(res.body.list)).toEqual(batchIds.slice(3, 8));
    });
  });

  describe('given an invalid request, then 400 naming the field', () => {
    it.each<[string, unknown, string]>([
      ['take over 1000', { take: 1001 }, 'take'],
      ['negative take', { take: -1 }, 'take'],
      ['non-integer take', { take: 1.5 }, 'take'],
      ['take as a string', { take: '10' }, 'take'],
      ['pageSize over 1000', { pageSize: 1001 }, 'pageSize'],
      ['take and pageSize disagreeing', { take: 10, pageSize: 20 }, 'pageSize'],
      ['negative skip', { skip: -1 }, 'skip'],
      ['non-integer skip', { skip: 0.5 }, 'skip'],
      ['orderBy 2', { orderBy: 2 }, 'orderBy'],
      ['orderBy -1', { orderBy: -1 }, 'orderBy'],
      ['orderBy as a string', { orderBy: '1' }, 'orderBy'],
      ['a body that is not an object', [1, 2], '(body)'],
    ])('when the body has %s', async (_case, body, field) => {
      const res = await asAdmin(demo.applicationDefinition, body);

      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(res.body.type).toBe('/problems/validation');
      expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    });

    it.each(['abc', '0', '-3', '1.5', '1e2', '99999999999999999999'])('when the path id is %s', async (id) => {
      const res = await asAdmin(id, {});

      expect(res.status).toBe(400);
      expect(res.body.type).toBe('/problems/validation');
      expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['applicationDefinitionId']);
    });
  });

  describe('given a caller who may not list the applications', () => {
    it.each([
      ['an approved non-admin member of the community', demo.users.member1],
      ['a pending member of the community', demo.users.pending1],
      ['an admin of another community', demo.users.admin2],
      ['a user with no membership', demo.users.outsider],
    ])('when %s asks, then 403', async (_who, userId) => {
      const res = await server.post(path(demo.applicationDefinition), {}, { token: await server.token(userId) });

      expect(res.status).toBe(403);
      expect(res.body.type).toBe('/problems/forbidden');
    });

    it('when nobody is authenticated, then 401', async () => {
      const res = await server.post(path(demo.applicationDefinition), {});

      expect(res.status).toBe(401);
      expect(res.body.type).toBe('/problems/unauthenticated');
    });
  });

  describe('given a definition that does not exist', () => {
    it.each([
      ['an admin', demo.users.admin1],
      ['a user with no membership (existence is checked before permission)', demo.users.outsider],
    ])('when %s asks, then 404', async (_who, userId) => {
      const res = await server.post(path(999), {}, { token: await server.token(userId) });

      expect(res.status).toBe(404);
      expect(res.body.type).toBe('/problems/not-found');
    });
  });
});

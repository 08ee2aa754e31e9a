import { application } from '../support/application-fixtures';
import { demo, demoDirectory } from '../support/demo-directory';
import type { ResourceList } from '../support/resource-api';
import { fieldsOf, idsOf, newResource, resourceApi, scope } from '../support/resource-api';
import { serverForSuite } from '../support/suite-server';

/**
 * The cursors of the lists (docs/api.md "Paginated endpoints"), over HTTP: GetResourceList and an
 * application definition's applications walked by `nextCursor` while items are added and removed
 * between pages. The suite's own projects and definitions hold what the walks change:
 *  - WALK_0 and WALK_1 (public projects, team Ada): one walk each, by id and most recent first;
 *  - OTHER (public project): a cursor of another project's list;
 *  - CALL (definition of community 1) with applications 8000-8011 submitted on six days.
 */
const { users, communities } = demo;
const WALK_0 = 66;
const WALK_1 = 67;
const OTHER = 68;
const CALL = 80;
const QUIET = 81;
const submittedAtOf = (id: number) => `2026-02-0${1 + (id % 6)}T08:00:00.000Z`;

const seed = [
  ...[WALK_0, WALK_1, OTHER].flatMap((projectId) => [
    {
      type: 'ProjectUpserted',
      data: {
        projectId,
        name: `Walk ${projectId}`,
        visibility: 'public',
        teamCircleId: projectId * 10,
        mentorsCircleId: projectId * 10 + 1,
      },
    },
    { type: 'ProjectMemberSet', data: { projectId, userId: users.team, role: 'team' } },
  ]),
  ...[CALL, QUIET].map((applicationDefinitionId) => ({
    type: 'ApplicationDefinitionUpserted',
    data: { applicationDefinitionId, name: `Call ${applicationDefinitionId}`, communityId: communities.public1 },
  })),
];

const upserted = (applicationId: number, submittedAt = submittedAtOf(applicationId)) => ({
  type: 'ApplicationUpserted',
  data: application(applicationId, { applicationDefinitionId: CALL, name: `Walk ${applicationId}`, submittedAt }),
});

describe('lists walked by cursor', () => {
  const server = serverForSuite([demoDirectory.events, seed]);
  const api = resourceApi(server);

  describe('POST /api/Project/GetResourceList', () => {
    const list = (body: Record<string, unknown>) => api.list(users.outsider, body);

    it.each([
      [0, WALK_0],
      [1, WALK_1],
    ] as const)(
      'given resources added and removed between pages, when walked by nextCursor in orderBy %i, then each resource that stayed comes exactly once, count is the total of the moment, and the last page has nextCursor null',
      async (orderBy, projectId) => {
        const live: number[] = [];
        for (let i = 0; i < 17; i++)
          live.push((await api.create(users.team, newResource(scope.project(projectId), { privacyLevel: 1 }))).id);
        const stayed = new Set(live);
        const seen: number[] = [];
        const counts: [answered: number, live: number][] = [];
        // Sent back as it came, null on the first page: the nextCursor of no page before.
        let cursor: string | null = null;
        let ends = false;
        for (let page = 0; page < 40 && !ends; page++) {
          const res = await list({ projectId, orderBy, take: 4, cursor });
          expect(res.status).toBe(200);
          const body = res.body as ResourceList;
          seen.push(...idsOf(body));
          counts.push([body.resources.count, live.length]);
          if (body.resources.nextCursor === null) ends = true;
          else cursor = body.resources.nextCursor;
          // Between pages: one added (after the walk's place by id, before it most recent first),
          // one removed, alternately among those seen and those not yet seen.
          live.push((await api.create(users.team, newResource(scope.project(projectId), { privacyLevel: 1 }))).id);
          const pool = live.filter((id) => stayed.has(id) && (page % 2 === 0) === seen.includes(id));
          const gone = pool[Math.floor(pool.length / 2)];
          if (gone !== undefined) {
            expect((await api.remove(users.team, gone)).status).toBe(200);
            live.splice(live.indexOf(gone), 1);
            stayed.delete(gone);
          }
        }

        expect(ends).toBe(true);
        expect(seen.filter((id, i) => seen.indexOf(id) !== i)).toEqual([]);
        expect([...stayed].filter((id) => !seen.includes(id))).toEqual([]);
        expect(counts.filter(([answered, total]) => answered !== total)).toEqual([]);
      },
    );

    it('given a list that fits one page, when listed, then nextCursor is null; given take 0, then only the count', async () => {
      await api.create(users.team, newResource(scope.project(OTHER), { privacyLevel: 1 }));
      const whole = (await list({ projectId: OTHER, take: 1000 })).body as ResourceList;
      expect(whole.resources.nextCursor).toBeNull();
      const counted = (await list({ projectId: OTHER, take: 0 })).body as ResourceList;
      expect(counted.resources).toEqual({ count: whole.resources.count, list: [], nextCursor: null });
    });

    describe('a cursor that does not belong', () => {
      let cursor: string;
      beforeAll(async () => {
        for (let i = 0; i < 3; i++)
          await api.create(users.team, newResource(scope.project(OTHER), { privacyLevel: 1 }));
        const first = (await list({ projectId: OTHER, orderBy: 1, take: 1 })).body as ResourceList;
        cursor = first.resources.nextCursor as string;
        expect(typeof cursor).toBe('string');
        expect((await list({ projectId: OTHER, orderBy: 1, take: 1, cursor })).status).toBe(200);
      });

      const flip = (text: string, at: number) =>
        text.slice(0, at) + (text[at] === 'A' ? 'B' : 'A') + text.slice(at + 1);

      it.each<[string, () => Record<string, unknown>]>([
        ['its signature altered', () => ({ projectId: OTHER, orderBy: 1, cursor: flip(cursor, cursor.length - 3) })],
        ['its sort key altered', () => ({ projectId: OTHER, orderBy: 1, cursor: flip(cursor, 5) })],
        ['no signature', () => ({ projectId: OTHER, orderBy: 1, cursor: cursor.split('.')[0] })],
        ['not base64 at all', () => ({ projectId: OTHER, orderBy: 1, cursor: '%%%' })],
        ['another order', () => ({ projectId: OTHER, orderBy: 0, cursor })],
        ['another project', () => ({ projectId: WALK_0, orderBy: 1, cursor })],
        ['another filter', () => ({ projectId: OTHER, orderBy: 1, concept: 'doc', cursor })],
        ['a skip beside it', () => ({ projectId: OTHER, orderBy: 1, skip: 2, cursor })],
      ])('given %s, when listed, then 400 naming cursor', async (_what, body) => {
        const res = await list(body());
        expect(res.status).toBe(400);
        expect(fieldsOf(res.body)).toEqual(['cursor']);
      });
    });
  });

  describe('POST /api/ApplicationDefinition/{id}/Applications', () => {
    const path = (id: number) => `/api/ApplicationDefinition/${id}/Applications`;
    type Page = { count: number; list: { id: number }[]; nextCursor: string | null };
    let token: string;
    beforeAll(async () => {
      token = await server.token(users.admin1);
      expect((await server.directory(Array.from({ length: 12 }, (_, i) => upserted(8000 + i)))).status).toBe(200);
    });
    const page = (id: number, body: Record<string, unknown>) => server.post<Page>(path(id), body, { token });

    it.each([0, 1] as const)(
      'given applications added before and after the walk place between pages, when walked by nextCursor in orderBy %i, then each one there at the start comes exactly once',
      async (orderBy) => {
        const first = await page(CALL, { orderBy, take: 1000 });
        const stayed = first.body.list.map((a) => a.id);
        const seen: number[] = [];
        let cursor: string | null = null;
        let next = 8100 + orderBy * 100;
        for (let pages = 0; pages < 40; pages++) {
          // Sent back as it came, null on the first page.
          const res = await page(CALL, { orderBy, take: 3, cursor });
          expect(res.status).toBe(200);
          expect(res.body.count).toBe(stayed.length + (next - 8100 - orderBy * 100));
          seen.push(...res.body.list.map((a) => a.id));
          cursor = res.body.nextCursor;
          if (cursor === null) break;
          // One submitted on the first day, one on the last: on either side of the walk's place.
          await server.directory([
            upserted(next++, '2026-01-01T08:00:00.000Z'),
            upserted(next++, '2026-03-01T08:00:00.000Z'),
          ]);
        }

        expect(cursor).toBeNull();
        expect(seen.filter((id, i) => seen.indexOf(id) !== i)).toEqual([]);
        expect(stayed.filter((id) => !seen.includes(id))).toEqual([]);
      },
    );

    it('given a cursor of one definition, when used with another, then 400 naming cursor; tampered, the same', async () => {
      const res = await page(CALL, { orderBy: 1, take: 1 });
      const cursor = res.body.nextCursor as string;

      const foreign = await page(QUIET, { orderBy: 1, take: 1, cursor });
      const tampered = await page(CALL, { orderBy: 1, take: 1, cursor: `${cursor.slice(0, -2)}xx` });

      expect([foreign.status, fieldsOf(foreign.body)]).toEqual([400, ['cursor']]);
      expect([tampered.status, fieldsOf(tampered.body)]).toEqual([400, ['cursor']]);
    });
  });
});

import { demo, demoDirectory } from '../support/demo-directory';
import type { ResourceRecord } from '../support/resource-api';
import { fieldsOf, idsOf, newResource, recordProblems, resourceApi, scope } from '../support/resource-api';
import { serverForSuite } from '../support/suite-server';

/**
 * POST /api/Project/GetResourceList (docs/api.md "GetResourceList", docs/api.md "Other endpoints"),
 * over HTTP. Besides the demo directory, the suite feeds three projects of its own so that counts
 * and orders are exactly known:
 *  - LAB (60, public): in community 1 (community project 1600) and 3 (1601), paragraphs 6000
 *    (LAB in community 1) and 6001 (LAB itself); Ada (1) is its team.
 *  - PAGING (61, public): in no community; Ada is its team. Holds 55 public and 5 Team resources.
 *  - CHURN (62, public): in community 1 (1620), built-in circles 180 (team) and 181 (mentors),
 *    both described as active; team Ada and Tara (31), mentor Milo (32); Nia (33) is an approved
 *    member of community 1. Used for directory changes.
 *  - SCRATCH (63, 64, 65, public): in no community; Ada is their team. Each belongs to one test
 *    that writes into it, so that no other test's counts depend on those writes.
 * Every test arranges what it reads: none depends on another having run before it (CI runs the
 * suite in a random order).
 */
const { users, communities, projects } = demo;
const LAB = 60;
const PAGING = 61;
const CHURN = 62;
const TARA = 31;
const MILO = 32;
const NIA = 33;
const FRESH = 63;
const REMEMBERED = 64;
const RECOUNTED = 65;

const seed = [
  { type: 'UserUpserted', data: { userId: TARA, name: 'Tara Team', status: 'active' } },
  { type: 'UserUpserted', data: { userId: MILO, name: 'Milo Mentor', status: 'active' } },
  { type: 'UserUpserted', data: { userId: NIA, name: 'Nia Member', status: 'active' } },
  {
    type: 'ProjectUpserted',
    data: { projectId: LAB, name: 'List Lab', visibility: 'public', teamCircleId: 160, mentorsCircleId: 161 },
  },
  {
    type: 'ProjectUpserted',
    data: { projectId: PAGING, name: 'Paging', visibility: 'public', teamCircleId: 170, mentorsCircleId: 171 },
  },
  {
    type: 'ProjectUpserted',
    data: { projectId: CHURN, name: 'Churn', visibility: 'public', teamCircleId: 180, mentorsCircleId: 181 },
  },
  ...[FRESH, REMEMBERED, RECOUNTED].flatMap((projectId) => [
    {
      type: 'ProjectUpserted',
      data: {
        projectId,
        name: `Scratch ${projectId}`,
        visibility: 'public',
        teamCircleId: projectId * 10,
        mentorsCircleId: projectId * 10 + 1,
      },
    },
    { type: 'ProjectMemberSet', data: { projectId, userId: users.team, role: 'team' } },
  ]),
  {
    type: 'CommunityProjectUpserted',
    data: { communityProjectId: 1600, communityId: communities.public1, projectId: LAB },
  },
  {
    type: 'CommunityProjectUpserted',
    data: { communityProjectId: 1601, communityId: communities.public3, projectId: LAB },
  },
  {
    type: 'CommunityProjectUpserted',
    data: { communityProjectId: 1620, communityId: communities.public1, projectId: CHURN },
  },
  { type: 'ParagraphUpserted', data: { paragraphId: 6000, projectId: LAB, communityId: communities.public1 } },
  { type: 'ParagraphUpserted', data: { paragraphId: 6001, projectId: LAB, communityId: null } },
  { type: 'ProjectMemberSet', data: { projectId: LAB, userId: users.team, role: 'team' } },
  { type: 'ProjectMemberSet', data: { projectId: PAGING, userId: users.team, role: 'team' } },
  { type: 'ProjectMemberSet', data: { projectId: CHURN, userId: users.team, role: 'team' } },
  { type: 'ProjectMemberSet', data: { projectId: CHURN, userId: TARA, role: 'team' } },
  { type: 'ProjectMemberSet', data: { projectId: CHURN, userId: MILO, role: 'mentor' } },
  {
    type: 'CommunityMemberSet',
    data: { communityId: communities.public1, userId: NIA, role: 'member', status: 'approved' },
  },
  {
    type: 'CircleUpserted',
    data: { circleId: 180, name: 'Team', longName: 'Churn team', isActive: true, projectId: CHURN, communityId: null },
  },
  {
    type: 'CircleUpserted',
    data: {
      circleId: 181,
      name: 'Mentors',
      longName: 'Churn mentors',
      isActive: true,
      projectId: CHURN,
      communityId: null,
    },
  },
];

describe('POST /api/Project/GetResourceList', () => {
  const server = serverForSuite([demoDirectory.events, seed]);
  const api = resourceApi(server);

  describe('filters, on LAB', () => {
    // Project resources: R1, R2, R5 (paragraph 6001). Community 1: R3, R4 (paragraph 6000). Community 3: R6.
    let r: Record<'R1' | 'R2' | 'R3' | 'R4' | 'R5' | 'R6', ResourceRecord>;

    beforeAll(async () => {
      const make = (scopeFields: Record<string, unknown>, fields: Record<string, unknown>) =>
        api.create(users.team, newResource(scopeFields, fields));
      r = {
        R1: await make(scope.project(LAB), {
          name: 'Solar manual',
          description: 'How to build it',
          resourceTags: ['Energy', 'Guide'],
        }),
        R2: await make(scope.project(LAB), {
          name: 'Budget',
          description: 'Contains SOLAR panel costs',
          resourceTags: ['finance'],
        }),
        R3: await make(scope.projectInCommunity(LAB, communities.public1), {
          name: 'Meetup notes',
          description: 'Tuesday',
          resourceTags: ['community', 'ENERGY'],
        }),
        R4: await make(scope.paragraph(6000), {
          name: 'Pitch deck',
          description: 'For the jury (final)',
          resourceTags: [],
        }),
        R5: await make(scope.paragraph(6001), {
          name: 'Roadmap',
          description: 'Next steps',
          resourceTags: ['planning'],
        }),
        R6: await make(scope.communityProject(1601), {
          name: 'Northern notes',
          description: 'Far away',
          resourceTags: ['energy'],
        }),
      };
    });

    const ids = (...names: (keyof typeof r)[]) => names.map((n) => r[n].id).sort((a, b) => a - b);
    const list = async (body: Record<string, unknown>, userId: number = users.member1) =>
      idsOf(await api.listOk(userId, { projectId: LAB, ...body }));

    it.each<[string, Record<string, unknown>]>([
      ['omitted', {}],
      ['null', { communityId: null }],
      ['0', { communityId: 0 }],
    ])('when communityId is %s, then the project-wide view: the project resources only', async (_how, body) => {
      expect(await list(body)).toEqual(ids('R1', 'R2', 'R5'));
    });

    it("given communityId 1, then that community's community-project resources and the project resources", async () => {
      expect(await list({ communityId: communities.public1 })).toEqual(ids('R1', 'R2', 'R3', 'R4', 'R5'));
    });

    it('given communityId 3, then its own community-project resources and the project resources, none of community 1', async () => {
      expect(await list({ communityId: communities.public3 })).toEqual(ids('R1', 'R2', 'R5', 'R6'));
    });

    it('given a community paragraph, then only the resources attached to it, and the paragraphId echoed', async () => {
      const answer = await api.listOk(users.member1, {
        projectId: LAB,
        communityId: communities.public1,
        paragraphId: 6000,
      });
      expect(idsOf(answer)).toEqual(ids('R4'));
      expect(answer.paragraphId).toBe(6000);
      expect(answer.resources.count).toBe(1);
    });

    it('given a project paragraph, then only its resources', async () => {
      const answer = await api.listOk(users.member1, { projectId: LAB, paragraphId: 6001 });
      expect(idsOf(answer)).toEqual(ids('R5'));
      expect(answer.paragraphId).toBe(6001);
    });

    it.each([null, 0])('given paragraphId %p, then no paragraph filter and paragraphId null', async (paragraphId) => {
      const answer = await api.listOk(users.member1, { projectId: LAB, paragraphId });
      expect(idsOf(answer)).toEqual(ids('R1', 'R2', 'R5'));
      expect(answer.paragraphId).toBeNull();
    });

    it.each<[string, Record<string, unknown>, (keyof typeof r)[]]>([
      ['in a name, any case', { concept: 'sOlAr' }, ['R1', 'R2']],
      ['in a description', { concept: 'panel' }, ['R2']],
      ['in a tag, as a substring', { concept: 'guid' }, ['R1']],
      ['in a tag, across views', { concept: 'energy', communityId: 1 }, ['R1', 'R3']],
      ['with regex characters, taken literally', { concept: '(final)', communityId: 1 }, ['R4']],
      ['that is a regex but not a literal substring', { concept: '.*' }, []],
      ['matching nothing', { concept: 'zebra' }, []],
      ['only in every link (https://example.org/…), which is not searched', { concept: 'example.org' }, []],
      ["only in every icon ('book'), which is not searched", { concept: 'book' }, []],
      ['empty', { concept: '' }, ['R1', 'R2', 'R5']],
    ])('given a concept %s, then the resources holding it', async (_what, body, expected) => {
      expect(await list(body)).toEqual(ids(...expected));
    });

    it.each<[string, Record<string, unknown>, (keyof typeof r)[]]>([
      ['one tag, other case', { tags: ['energy'], communityId: 1 }, ['R1', 'R3']],
      ['any of several', { tags: ['FINANCE', 'planning'] }, ['R2', 'R5']],
      ['a tag name prefix (tags match whole names)', { tags: ['ener'] }, []],
      ['an empty list (no filter)', { tags: [] }, ['R1', 'R2', 'R5']],
      ['null (no filter)', { tags: null }, ['R1', 'R2', 'R5']],
    ])('given tags: %s, then the resources carrying any of them', async (_what, body, expected) => {
      expect(await list(body)).toEqual(ids(...expected));
    });

    it('given concept, tags and a paragraph together, then all must hold', async () => {
      expect(await list({ communityId: 1, concept: 'notes', tags: ['community'] })).toEqual(ids('R3'));
      expect(await list({ communityId: 1, concept: 'notes', tags: ['guide'] })).toEqual([]);
      expect(await list({ communityId: 1, paragraphId: 6000, concept: 'solar' })).toEqual([]);
    });

    it('when LAB joins community 2, then its project resources are listed there at once; when it leaves, they are gone', async () => {
      const join = {
        type: 'CommunityProjectUpserted',
        data: { communityProjectId: 1602, communityId: communities.private2, projectId: LAB },
      };
      expect((await server.directory([join])).status).toBe(200);
      expect(await list({ communityId: communities.private2 }, users.admin2)).toEqual(ids('R1', 'R2', 'R5'));
      expect(await list({ communityId: communities.private2 }, users.team)).toEqual(ids('R1', 'R2', 'R5'));
      // Community 2 is private: its non-members do not reach it.
      expect(await list({ communityId: communities.private2 }, users.member1)).toEqual([]);
      expect(
        (await server.directory([{ type: 'CommunityProjectRemoved', data: { communityProjectId: 1602 } }])).status,
      ).toBe(200);
      expect(await list({ communityId: communities.private2 }, users.admin2)).toEqual([]);
      expect(await list({ communityId: communities.public1 }, users.member1)).toEqual(
        ids('R1', 'R2', 'R3', 'R4', 'R5'),
      );
    });

    it('every record carries every field of the resource record with its type, and the right scope facts', async () => {
      const answer = await api.listOk(users.team, { projectId: LAB, communityId: communities.public1 });
      expect(answer.resources.list).toHaveLength(5);
      for (const record of answer.resources.list)
        expect({ id: record.id, problems: recordProblems(record) }).toEqual({ id: record.id, problems: [] });
      const byId = new Map(answer.resources.list.map((x) => [x.id, x]));
      expect(byId.get(r.R1.id)).toMatchObject({
        isProjectScoped: true,
        isCommunityProjectScoped: false,
        projectId: LAB,
        communityProjectId: null,
        paragraphId: null,
        originCommunityId: null,
        originCommunityName: null,
        privacyLevel: 1,
        effectivePrivacyLevel: 1,
        canEdit: true,
        currentlySharedWith: [],
        resourceTags: ['Energy', 'Guide'],
      });
      expect(byId.get(r.R4.id)).toMatchObject({
        isProjectScoped: false,
        isCommunityProjectScoped: true,
        projectId: LAB,
        communityProjectId: 1600,
        paragraphId: 6000,
        originCommunityId: null,
        originCommunityName: null,
      });
    });

    it('for a non-editor, canEdit is false and currentlySharedWith is []', async () => {
      const answer = await api.listOk(users.member1, { projectId: LAB, communityId: communities.public1 });
      expect(answer.resources.list.length).toBeGreaterThan(0);
      for (const record of answer.resources.list) {
        expect(recordProblems(record)).toEqual([]);
        expect(record.canEdit).toBe(false);
        expect(record.currentlySharedWith).toEqual([]);
      }
    });

    it('orderBy 0 and omitted: id ascending', async () => {
      const all = ids('R1', 'R2', 'R3', 'R4', 'R5');
      expect(await list({ communityId: 1, orderBy: 0 })).toEqual(all);
      expect(await list({ communityId: 1 })).toEqual(all);
    });

    it('orderBy 1: most recent postDate first, then id descending', async () => {
      const answer = await api.listOk(users.member1, { projectId: LAB, communityId: 1, orderBy: 1 });
      const expected = [...answer.resources.list]
        .sort((a, b) => Date.parse(b.postDate) - Date.parse(a.postDate) || b.id - a.id)
        .map((x) => x.id);
      expect(idsOf(answer)).toEqual(expected);
      expect(new Set(idsOf(answer))).toEqual(new Set(ids('R1', 'R2', 'R3', 'R4', 'R5')));
    });

    it('orderBy 1 follows postDate, not the id: an update does not move a resource up', async () => {
      // given: two resources of FRESH, the second posted last, so listed first
      const first = await api.create(users.team, newResource(scope.project(FRESH)));
      const second = await api.create(users.team, newResource(scope.project(FRESH)));
      const newestFirst = async () =>
        idsOf(await api.listOk(users.member1, { projectId: FRESH, orderBy: 1, take: 1000 })).filter(
          (id) => id === first.id || id === second.id,
        );
      expect(await newestFirst()).toEqual([second.id, first.id]);
      // when the first is updated
      const touched = await api.save(users.team, {
        ...newResource({}),
        id: first.id,
        name: 'Touched',
        privacyLevel: 1,
      });
      expect(touched.status).toBe(200);
      // then it keeps its place
      expect(await newestFirst()).toEqual([second.id, first.id]);
    });

    it.each([2, -1, 0.5, '1'])('given orderBy %j, then 400 naming orderBy', async (orderBy) => {
      const res = await api.list(users.member1, { projectId: LAB, orderBy });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ type: '/problems/validation' });
      expect(fieldsOf(res.body)).toEqual(['orderBy']);
    });
  });

  describe('paging, on PAGING (55 public resources, 5 Team ones)', () => {
    let publicIds: number[];
    let teamIds: number[];

    beforeAll(async () => {
      publicIds = [];
      teamIds = [];
      for (let i = 0; i < 55; i++)
        publicIds.push((await api.create(users.team, newResource(scope.project(PAGING), { privacyLevel: 1 }))).id);
      for (let i = 0; i < 5; i++)
        teamIds.push((await api.create(users.team, newResource(scope.project(PAGING), { privacyLevel: 3 }))).id);
    });

    const page = (body: Record<string, unknown>, userId: number = users.outsider) =>
      api.list(userId, { projectId: PAGING, ...body });

    it('given no take, then 50 items and count 55 (the total visible, not the page size)', async () => {
      const res = await page({});
      expect(res.status).toBe(200);
      expect(res.body.resources.count).toBe(55);
      expect(idsOf(res.body)).toEqual(publicIds.slice(0, 50));
    });

    it('given the team, then count 60: it sees the Team resources too', async () => {
      const res = await page({ take: 1000 }, users.team);
      expect(res.body.resources.count).toBe(60);
      expect(idsOf(res.body)).toEqual([...publicIds, ...teamIds]);
    });

    it.each<[string, Record<string, unknown>]>([
      ['take', { skip: 5, take: 10 }],
      ['pageSize', { skip: 5, pageSize: 10 }],
      ['take and pageSize agreeing', { skip: 5, take: 10, pageSize: 10 }],
    ])('given skip 5 and %s 10, then items 6 to 15 and count 55', async (_how, body) => {
      const res = await page(body);
      expect(res.status).toBe(200);
      expect(idsOf(res.body)).toEqual(publicIds.slice(5, 15));
      expect(res.body.resources.count).toBe(55);
    });

    it('given skip past the end, then an empty list and count 55', async () => {
      const res = await page({ skip: 100, take: 10 });
      expect(idsOf(res.body)).toEqual([]);
      expect(res.body.resources.count).toBe(55);
    });

    it('given skip 50 and no take, then the last 5', async () => {
      expect(idsOf((await page({ skip: 50 })).body)).toEqual(publicIds.slice(50));
    });

    it('given take 0, then no items and count 55', async () => {
      const res = await page({ take: 0 });
      expect(res.status).toBe(200);
      expect(res.body.resources).toEqual({ count: 55, list: [], nextCursor: null });
    });

    it('given take 1000 (the maximum), then everything', async () => {
      const res = await page({ take: 1000 });
      expect(res.status).toBe(200);
      expect(res.body.resources.list).toHaveLength(55);
    });

    it('given a filter, count is the total matching the filter', async () => {
      const res = await page({ take: 1, concept: 'Resource' });
      expect(res.body.resources.count).toBe(55);
      expect(res.body.resources.list).toHaveLength(1);
    });

    it.each<[string, Record<string, unknown>, string]>([
      ['take 1001', { take: 1001 }, 'take'],
      ['take -1', { take: -1 }, 'take'],
      ['take 1.5', { take: 1.5 }, 'take'],
      ['take "10"', { take: '10' }, 'take'],
      ['pageSize 1001', { pageSize: 1001 }, 'pageSize'],
      ['pageSize -1', { pageSize: -1 }, 'pageSize'],
      ['skip -1', { skip: -1 }, 'skip'],
      ['skip 2.5', { skip: 2.5 }, 'skip'],
    ])('given %s, then 400 naming it', async (_what, body, field) => {
      const res = await page(body);
      expect(res.status).toBe(400);
      expect(res.body.type).toBe('/problems/validation');
      expect(fieldsOf(res.body)).toContain(field);
    });

    it('given take and pageSize disagreeing, then 400', async () => {
      const res = await page({ take: 10, pageSize: 20 });
      expect(res.status).toBe(400);
      expect(res.body.type).toBe('/problems/validation');
      expect(fieldsOf(res.body).some((f) => f === 'take' || f === 'pageSize')).toBe(true);
    });
  });

  describe('the request', () => {
    it.each<[string, unknown, string]>([
      ['projectId missing', {}, 'projectId'],
      ['projectId a string', { projectId: '10' }, 'projectId'],
      ['projectId 0', { projectId: 0 }, 'projectId'],
      ['communityId negative', { projectId: projects.solar, communityId: -1 }, 'communityId'],
      ['paragraphId a string', { projectId: projects.solar, paragraphId: 'x' }, 'paragraphId'],
      ['concept a number', { projectId: projects.solar, concept: 5 }, 'concept'],
      ['tags a string', { projectId: projects.solar, tags: 'energy' }, 'tags'],
    ])('given %s, then 400 naming it', async (_what, body, field) => {
      const res = await api.list(users.team, body);
      expect(res.status).toBe(400);
      expect(res.body.type).toBe('/problems/validation');
      expect(fieldsOf(res.body)).toContain(field);
    });

    it('given an unknown project, then 404', async () => {
      const res = await api.list(users.team, { projectId: 999_999 });
      expect(res.status).toBe(404);
      expect(res.body.type).toBe('/problems/not-found');
    });

    it('given an unknown community, then 404', async () => {
      const res = await api.list(users.team, { projectId: projects.solar, communityId: 999_999 });
      expect(res.status).toBe(404);
      expect(res.body.type).toBe('/problems/not-found');
    });

    it('given no credential, then 401', async () => {
      const res = await server.post('/api/Project/GetResourceList', { projectId: projects.solar });
      expect(res.status).toBe(401);
      expect(res.body.type).toBe('/problems/unauthenticated');
    });

    it('given a banned user, then 403', async () => {
      const res = await api.list(users.banned, { projectId: projects.solar });
      expect(res.status).toBe(403);
      expect(res.body.type).toBe('/problems/forbidden');
    });
  });

  describe('capability flags', () => {
    it.each<[string, number, number | null, boolean, boolean]>([
      // caller, project-wide or community view, canEditResources, canEditPrivacy
      ['the team, project-wide', users.team, null, true, true],
      ['the team, from community 1', users.team, communities.public1, true, true],
      ['a mentor, project-wide (mentors add inside a community only)', users.mentor, null, false, false],
      ['a mentor, from community 1', users.mentor, communities.public1, true, false],
      ['the admin of community 1, from community 1', users.admin1, communities.public1, true, true],
      ['the admin of community 1, project-wide', users.admin1, null, false, false],
      ['the admin of community 2, from community 1', users.admin2, communities.public1, false, false],
      ['the admin of community 2, from community 2', users.admin2, communities.private2, true, true],
      ['an approved member', users.member1, communities.public1, false, false],
      ['a pending member', users.pending1, communities.public1, false, false],
      ['an outsider', users.outsider, null, false, false],
      // Community 3 does not hold project 10: nobody adds there but the team (project resources).
      ['the team, from a community the project is not in', users.team, communities.public3, true, true],
      ['a mentor, from a community the project is not in', users.mentor, communities.public3, false, false],
      [
        'the admin of community 3, from community 3 (the project is not in it)',
        users.admin2,
        communities.public3,
        false,
        true,
      ],
    ])(
      'given %s, then the flags say what they may do',
      async (_who, userId, communityId, canEditResources, canEditPrivacy) => {
        const answer = await api.listOk(userId, { projectId: projects.solar, communityId });
        expect({ canEditResources: answer.canEditResources, canEditPrivacy: answer.canEditPrivacy }).toEqual({
          canEditResources,
          canEditPrivacy,
        });
      },
    );

    it('canEditResources is what SaveProjectResource then allows: a mentor in a community the project is not in is refused', async () => {
      const res = await api.save(
        users.mentor,
        newResource(scope.projectInCommunity(projects.solar, communities.public3)),
      );
      expect(res.status).toBe(400);
      expect(fieldsOf(res.body)).toEqual(['communityId']);
    });

    it('canEdit per record: the team edits all, the owning admin its community-project resources, a mentor their own', async () => {
      const inOne = await api.create(users.team, newResource(scope.communityProject(demo.communityProjects.solarIn1)));
      const projectWide = await api.create(users.team, newResource(scope.project(projects.solar)));
      const mentors = await api.create(
        users.mentor,
        newResource(scope.communityProject(demo.communityProjects.solarIn1)),
      );
      const canEdit = async (userId: number) => {
        const answer = await api.listOk(userId, {
          projectId: projects.solar,
          communityId: communities.public1,
          take: 1000,
        });
        const of = (id: number) => answer.resources.list.find((x) => x.id === id)?.canEdit;
        return [of(inOne.id), of(projectWide.id), of(mentors.id)];
      };
      expect(await canEdit(users.team)).toEqual([true, true, true]);
      expect(await canEdit(users.admin1)).toEqual([true, false, true]);
      expect(await canEdit(users.mentor)).toEqual([false, false, true]);
      expect(await canEdit(users.member1)).toEqual([false, false, undefined]);
    });
  });

  describe('read-your-writes', () => {
    it('a save is listed by the very next request, an update shows at once, a removal disappears at once', async () => {
      const created = await api.create(users.team, newResource(scope.project(FRESH), { name: 'Fresh' }));
      const find = async () =>
        (await api.listOk(users.member1, { projectId: FRESH, take: 1000 })).resources.list.find(
          (x) => x.id === created.id,
        );
      expect((await find())?.name).toBe('Fresh');
      await api.save(users.team, { ...newResource({}), id: created.id, name: 'Fresher', privacyLevel: 1 });
      expect((await find())?.name).toBe('Fresher');
      await api.save(users.team, { ...newResource({}), id: created.id, name: 'Fresher', privacyLevel: 3 });
      expect(await find()).toBeUndefined();
      await api.save(users.team, { ...newResource({}), id: created.id, name: 'Fresher', privacyLevel: 1 });
      expect(await find()).toBeDefined();
      await api.remove(users.team, created.id);
      expect(await find()).toBeUndefined();
    });
  });

  describe('answers remembered between writes', () => {
    it('given the team and a member asking the same list in turn, then each gets their own view every time', async () => {
      // given: REMEMBERED holds 3 public resources and 2 Team ones
      for (const privacyLevel of [1, 1, 1, 3, 3])
        await api.create(users.team, newResource(scope.project(REMEMBERED), { privacyLevel }));
      const count = async (userId: number) =>
        (await api.listOk(userId, { projectId: REMEMBERED, take: 1 })).resources.count;
      // when
      const counts = [
        await count(users.team),
        await count(users.member1),
        await count(users.team),
        await count(users.member1),
      ];
      // then
      expect(counts).toEqual([5, 3, 5, 3]);
    });

    it('given a list asked twice, when a resource is added between, then the second answer holds it and the first did not', async () => {
      // given
      for (let i = 0; i < 3; i++)
        await api.create(users.team, newResource(scope.project(RECOUNTED), { privacyLevel: 1 }));
      const body = { projectId: RECOUNTED, take: 1000 };
      const before = idsOf(await api.listOk(users.member1, body));
      expect(before).toHaveLength(3);
      expect(idsOf(await api.listOk(users.member1, body))).toEqual(before);
      // when
      const added = await api.create(users.team, newResource(scope.project(RECOUNTED), { privacyLevel: 1 }));
      // then
      const after = idsOf(await api.listOk(users.member1, body));
      expect(before).not.toContain(added.id);
      expect(after).toEqual([...before, added.id].sort((a, b) => a - b));
    });
  });

  describe('a directory change takes effect on the next request, on CHURN', () => {
    const sees = async (userId: number, resourceId: number, communityId: number | null = null) =>
      idsOf(await api.listOk(userId, { projectId: CHURN, communityId, take: 1000 })).includes(resourceId);

    it('given a Team resource, when Tara leaves the team, then she stops seeing it (and may no longer add)', async () => {
      const teamOnly = await api.create(users.team, newResource(scope.project(CHURN), { privacyLevel: 3 }));
      expect(await sees(TARA, teamOnly.id)).toBe(true);
      expect((await api.listOk(TARA, { projectId: CHURN })).canEditResources).toBe(true);

      expect(
        (await server.directory([{ type: 'ProjectMemberRemoved', data: { projectId: CHURN, userId: TARA } }])).status,
      ).toBe(200);

      expect(await sees(TARA, teamOnly.id)).toBe(false);
      expect((await api.listOk(TARA, { projectId: CHURN })).canEditResources).toBe(false);
      expect((await api.save(TARA, { ...newResource({}), id: teamOnly.id, privacyLevel: 3 })).status).toBe(403);
      expect(await sees(users.team, teamOnly.id)).toBe(true);
    });

    describe("given Milo's (a mentor's) resource, Custom with the team and mentors circles granted", () => {
      const mentorsCircle = (isActive: boolean) => ({
        type: 'CircleUpserted',
        data: {
          circleId: 181,
          name: 'Mentors',
          longName: 'Churn mentors',
          isActive,
          projectId: CHURN,
          communityId: null,
        },
      });
      const niaInCircle = { type: 'CircleMemberSet', data: { circleId: 181, userId: NIA } };
      const niaOutOfCircle = { type: 'CircleMemberRemoved', data: { circleId: 181, userId: NIA } };
      const directory = async (...events: { type: string; data: Record<string, unknown> }[]) =>
        expect((await server.directory(events)).status).toBe(200);
      let mentors: ResourceRecord;
      beforeAll(async () => {
        mentors = await api.create(MILO, newResource(scope.communityProject(1620), { privacyLevel: 1 }));
        expect(mentors.privacyLevel).toBe(4);
      });
      // Each test starts from the state the block names, whatever ran before it: the mentors
      // circle active and without Nia, Milo a mentor of CHURN.
      beforeEach(async () => {
        await directory(mentorsCircle(true), niaOutOfCircle, {
          type: 'ProjectMemberSet',
          data: { projectId: CHURN, userId: MILO, role: 'mentor' },
        });
      });

      it('Nia, an approved member, does not see it', async () => {
        expect(await sees(NIA, mentors.id, communities.public1)).toBe(false);
      });

      it('when Nia is put in the mentors circle, then she sees it on her next request', async () => {
        await directory(niaInCircle);
        expect(await sees(NIA, mentors.id, communities.public1)).toBe(true);
        // Being in a circle grants sight, not edit rights.
        const record = (
          await api.listOk(NIA, { projectId: CHURN, communityId: communities.public1 })
        ).resources.list.find((x) => x.id === mentors.id);
        expect(record?.canEdit).toBe(false);
      });

      it('given Nia in the circle, when the circle is made inactive, then it stops granting: Nia no longer sees it, Milo (its author) still does', async () => {
        // given
        await directory(niaInCircle);
        expect(await sees(NIA, mentors.id, communities.public1)).toBe(true);
        // when
        await directory(mentorsCircle(false));
        // then
        expect(await sees(NIA, mentors.id, communities.public1)).toBe(false);
        expect(await sees(MILO, mentors.id, communities.public1)).toBe(true);
        expect(await sees(users.team, mentors.id, communities.public1)).toBe(true);
      });

      it('given Nia in an inactive circle, when the circle is active again, then it grants again', async () => {
        // given
        await directory(niaInCircle, mentorsCircle(false));
        expect(await sees(NIA, mentors.id, communities.public1)).toBe(false);
        // when
        await directory(mentorsCircle(true));
        // then
        expect(await sees(NIA, mentors.id, communities.public1)).toBe(true);
      });

      it('given Nia in the circle, when she leaves it, then she stops seeing it', async () => {
        // given
        await directory(niaInCircle);
        expect(await sees(NIA, mentors.id, communities.public1)).toBe(true);
        // when
        await directory(niaOutOfCircle);
        // then
        expect(await sees(NIA, mentors.id, communities.public1)).toBe(false);
      });

      it('when Milo stops being a mentor, then he may no longer edit it nor see it', async () => {
        expect(await sees(MILO, mentors.id, communities.public1)).toBe(true);
        await directory({ type: 'ProjectMemberRemoved', data: { projectId: CHURN, userId: MILO } });
        expect(await sees(MILO, mentors.id, communities.public1)).toBe(false);
        const res = await api.save(MILO, { ...newResource({}), id: mentors.id, privacyLevel: 4 });
        expect(res.status).toBe(403);
      });
    });

    it('when a user is banned, then their next list is 403', async () => {
      await server.directory([{ type: 'UserUpserted', data: { userId: NIA, name: 'Nia Member', status: 'banned' } }]);
      const res = await api.list(NIA, { projectId: CHURN });
      expect(res.status).toBe(403);
      await server.directory([{ type: 'UserUpserted', data: { userId: NIA, name: 'Nia Member', status: 'active' } }]);
      expect((await api.list(NIA, { projectId: CHURN })).status).toBe(200);
    });
  });
});

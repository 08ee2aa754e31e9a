import { demo } from '../support/demo-directory';
import type { ResourceRecord } from '../support/resource-api';
import {
  ISO_8601,
  SAVED_FIELDS,
  fieldsOf,
  idsOf,
  newResource,
  recordProblems,
  resourceApi,
  scope,
} from '../support/resource-api';
import { serverForSuite } from '../support/suite-server';

/**
 * POST /api/Resource/SaveProjectResource (docs/api.md "SaveProjectResource"), over HTTP, on the demo
 * directory: project 10 is in communities 1 (community project 1000) and 2 (1001); paragraph 5000
 * belongs to project 10 in community 1, paragraph 5001 to project 10 itself.
 */
const { users, communities, projects, communityProjects, paragraphs } = demo;
const P = projects.solar;

describe('POST /api/Resource/SaveProjectResource', () => {
  const server = serverForSuite();
  const api = resourceApi(server);

  /** The record of a resource as `userId` sees it in a view, or undefined. */
  const seenIn = async (
    userId: number,
    resourceId: number,
    communityId: number | null,
  ): Promise<ResourceRecord | undefined> => {
    const answer = await api.listOk(userId, { projectId: P, communityId, take: 1000 });
    return answer.resources.list.find((r) => r.id === resourceId);
  };

  describe('creating with each scope shape', () => {
    it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
      [
        'given communityProjectId alone, then a community-project resource of that community project',
        scope.communityProject(communityProjects.solarIn1),
        {
          isCommunityProjectScoped: true,
          isProjectScoped: false,
          projectId: P,
          communityProjectId: communityProjects.solarIn1,
          paragraphId: null,
        },
      ],
      [
        'given projectId with communityId, then the same kind of resource: the community project of that pair',
        scope.projectInCommunity(P, communities.private2),
        {
          isCommunityProjectScoped: true,
          isProjectScoped: false,
          projectId: P,
          communityProjectId: communityProjects.solarIn2,
        },
      ],
      [
        'given projectId with communityProjectId and communityId sent as 0, then a project resource',
        scope.project(P),
        {
          isProjectScoped: true,
          isCommunityProjectScoped: false,
          projectId: P,
          communityProjectId: null,
          paragraphId: null,
        },
      ],
      [
        'given a community paragraph, then a community-project resource attached to it, whatever the other scope fields say',
        { ...scope.project(P), paragraphId: paragraphs.solarIn1 },
        {
          isCommunityProjectScoped: true,
          projectId: P,
          communityProjectId: communityProjects.solarIn1,
          paragraphId: paragraphs.solarIn1,
        },
      ],
      [
        'given a project paragraph, then a project resource attached to it',
        scope.paragraph(paragraphs.solarProject),
        { isProjectScoped: true, projectId: P, communityProjectId: null, paragraphId: paragraphs.solarProject },
      ],
    ])('%s', async (_title, scopeFields, expected) => {
      const res = await api.save(users.team, newResource(scopeFields));
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject(expected);
      expect(res.body.id).toBeGreaterThan(0);
    });

    it('given a paragraph of a community the project is not in, then 400 naming paragraphId', async () => {
      expect(
        (
          await server.directory([
            { type: 'ParagraphUpserted', data: { paragraphId: 5099, projectId: P, communityId: communities.public3 } },
          ])
        ).status,
      ).toBe(200);
      const res = await api.save(users.team, newResource(scope.paragraph(5099)));
      expect(res.status).toBe(400);
      expect(res.body.type).toBe('/problems/validation');
      expect(fieldsOf(res.body)).toEqual(['paragraphId']);
    });

    it.each<[string, Record<string, unknown>]>([
      ['an unknown paragraph', scope.paragraph(999_999)],
      ['an unknown project', scope.project(999_999)],
      ['a project with an unknown community', scope.projectInCommunity(P, 999_999)],
      ['an unknown community project', scope.communityProject(999_999)],
    ])('given %s, then 404', async (_given, scopeFields) => {
      const res = await api.save(users.team, newResource(scopeFields));
      expect(res.status).toBe(404);
      expect(res.body.type).toBe('/problems/not-found');
    });

    it('given a project and a community it is not part of, then 400 naming communityId', async () => {
      const res = await api.save(users.team, newResource(scope.projectInCommunity(P, communities.public3)));
      expect(res.status).toBe(400);
      expect(res.body.type).toBe('/problems/validation');
      expect(fieldsOf(res.body)).toContain('communityId');
    });
  });

  describe('invalid scope shapes', () => {
    it.each<[string, Record<string, unknown>]>([
      ['projectId alone, without the explicit zeros', { projectId: P }],
      ['projectId with communityId 0 but communityProjectId missing', { projectId: P, communityId: 0 }],
      ['projectId with communityProjectId 0 but communityId missing', { projectId: P, communityProjectId: 0 }],
      ['projectId with the zeros sent as null', { projectId: P, communityProjectId: null, communityId: null }],
      [
        'all three set',
        { projectId: P, communityProjectId: communityProjects.solarIn1, communityId: communities.public1 },
      ],
      [
        'communityProjectId with communityId',
        { communityProjectId: communityProjects.solarIn1, communityId: communities.public1 },
      ],
      ['communityProjectId with projectId', { communityProjectId: communityProjects.solarIn1, projectId: P }],
      ['communityId alone', { communityId: communities.public1 }],
      ['none at all', {}],
      ['all three 0', { projectId: 0, communityProjectId: 0, communityId: 0 }],
      ['paragraphId null and nothing else', { paragraphId: null }],
    ])('when the scope fields are %s, then 400 naming communityProjectId', async (_name, scopeFields) => {
      const res = await api.save(users.team, newResource(scopeFields));
      expect(res.status).toBe(400);
      expect(res.body.type).toBe('/problems/validation');
      expect(fieldsOf(res.body)).toEqual(['communityProjectId']);
    });
  });

  describe('privacyLevel', () => {
    it.each([0, 6, 7, -1])('when privacyLevel is %d, then 400 naming privacyLevel', async (privacyLevel) => {
      const res = await api.save(
        users.team,
        newResource(scope.communityProject(communityProjects.solarIn1), { privacyLevel }),
      );
      expect(res.status).toBe(400);
      expect(res.body.type).toBe('/problems/validation');
      expect(fieldsOf(res.body)).toEqual(['privacyLevel']);
    });

    it.each([1.5, '3', null])('when privacyLevel is %j, then 400 naming privacyLevel', async (privacyLevel) => {
      const res = await api.save(
        users.team,
        newResource(scope.communityProject(communityProjects.solarIn1), { privacyLevel }),
      );
      expect(res.status).toBe(400);
      expect(fieldsOf(res.body)).toEqual(['privacyLevel']);
    });

    it('when privacyLevel is missing, then 400 naming privacyLevel (there is no default level)', async () => {
      const { privacyLevel: _omitted, ...body } = newResource(scope.communityProject(communityProjects.solarIn1));
      const res = await api.save(users.team, body);
      expect(res.status).toBe(400);
      expect(fieldsOf(res.body)).toEqual(['privacyLevel']);
    });

    it('when level Community (2) is asked for a project resource, then 400 naming privacyLevel', async () => {
      const res = await api.save(users.team, newResource(scope.project(P), { privacyLevel: 2 }));
      expect(res.status).toBe(400);
      expect(res.body.type).toBe('/problems/validation');
      expect(fieldsOf(res.body)).toEqual(['privacyLevel']);
    });

    it.each([1, 2, 3, 4, 5])('given a community-project resource, level %d is taken as given', async (privacyLevel) => {
      const res = await api.save(
        users.team,
        newResource(scope.communityProject(communityProjects.solarIn1), { privacyLevel }),
      );
      expect(res.status).toBe(200);
      expect(res.body.privacyLevel).toBe(privacyLevel);
      expect(res.body.effectivePrivacyLevel).toBe(privacyLevel);
    });

    it.each([1, 3, 4, 5])('given a project resource, level %d is taken as given', async (privacyLevel) => {
      const res = await api.save(users.team, newResource(scope.project(P), { privacyLevel }));
      expect(res.status).toBe(200);
      expect(res.body.privacyLevel).toBe(privacyLevel);
    });
  });

  describe('who may add', () => {
    const inCommunity1 = () => newResource(scope.communityProject(communityProjects.solarIn1));
    const inCommunity2 = () => newResource(scope.projectInCommunity(P, communities.private2));
    const projectWide = () => newResource(scope.project(P));

    /** What the answer says besides its status: the caller may edit what they added, or why not. */
    const answers = { 200: { canEdit: true }, 403: { type: '/problems/forbidden' } };

    it.each<[string, keyof typeof answers, number, () => Record<string, unknown>]>([
      ['the team, on a project resource', 200, users.team, projectWide],
      ['the team, inside a community', 200, users.team, inCommunity1],
      ['a mentor, inside a community', 200, users.mentor, inCommunity1],
      ["the community's admin, inside their community", 200, users.admin1, inCommunity1],
      ["another community's admin, inside their own community", 200, users.admin2, inCommunity2],
      [
        "a mentor, through a community's paragraph",
        200,
        users.mentor,
        () => newResource(scope.paragraph(paragraphs.solarIn1)),
      ],
      ['an approved member of the community', 403, users.member1, inCommunity1],
      ['a pending member of the community', 403, users.pending1, inCommunity1],
      ['a member of an active circle of the community', 403, users.circleMember, inCommunity1],
      ['an outsider', 403, users.outsider, inCommunity1],
      ['an outsider, on a project resource', 403, users.outsider, projectWide],
      ['a mentor, on a project resource', 403, users.mentor, projectWide],
      ["a community's admin, on a project resource", 403, users.admin1, projectWide],
      ['the admin of another community', 403, users.admin2, inCommunity1],
      ['the admin of community 1, inside community 2', 403, users.admin1, inCommunity2],
      [
        "a mentor, through the project's own paragraph (a project resource)",
        403,
        users.mentor,
        () => newResource(scope.paragraph(paragraphs.solarProject)),
      ],
      ['a banned user', 403, users.banned, inCommunity1],
    ])('given %s, then %s', async (_who, status, userId, body) => {
      const res = await api.save(userId, body());
      expect(res.status).toBe(status);
      expect(res.body).toMatchObject(answers[status]);
    });

    it('given no credential, then 401', async () => {
      const res = await server.post('/api/Resource/SaveProjectResource', inCommunity1());
      expect(res.status).toBe(401);
      expect(res.body.type).toBe('/problems/unauthenticated');
    });
  });

  describe("a mentor's resource", () => {
    it.each([1, 2, 3, 5])('when a mentor asks for level %d, then it is created at Custom (4)', async (privacyLevel) => {
      const res = await api.save(
        users.mentor,
        newResource(scope.communityProject(communityProjects.solarIn1), { privacyLevel }),
      );
      expect(res.status).toBe(200);
      expect(res.body.privacyLevel).toBe(4);
      expect(res.body.effectivePrivacyLevel).toBe(4);
      expect(res.body.canEdit).toBe(true);
    });

    it('then it is listed for the team and the mentors only (and, as for everything in it, the community admin)', async () => {
      const created = await api.create(
        users.mentor,
        newResource(scope.communityProject(communityProjects.solarIn1), { privacyLevel: 1 }),
      );
      const sees = async (userId: number) => (await seenIn(userId, created.id, communities.public1)) !== undefined;
      expect(await sees(users.team)).toBe(true);
      expect(await sees(users.mentor)).toBe(true);
      expect(await sees(users.admin1)).toBe(true);
      expect(await sees(users.member1)).toBe(false);
      expect(await sees(users.circleMember)).toBe(false);
      expect(await sees(users.pending1)).toBe(false);
      expect(await sees(users.outsider)).toBe(false);
      expect(await sees(users.admin2)).toBe(false);
      const asTeam = await seenIn(users.team, created.id, communities.public1);
      expect(asTeam).toMatchObject({ privacyLevel: 4, effectivePrivacyLevel: 4, canEdit: true });
      // A mentor edits what they created, nothing else.
      const asMentor = await seenIn(users.mentor, created.id, communities.public1);
      expect(asMentor?.canEdit).toBe(true);
    });
  });

  describe('updating', () => {
    it('given a project resource, when the update sends a community scope, then the scope is kept', async () => {
      const created = await api.create(users.team, newResource(scope.project(P)));
      const res = await api.save(users.team, {
        ...newResource(scope.communityProject(communityProjects.solarIn1)),
        id: created.id,
        name: 'Renamed',
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        id: created.id,
        name: 'Renamed',
        isProjectScoped: true,
        isCommunityProjectScoped: false,
        projectId: P,
        communityProjectId: null,
      });
    });

    it('given a community-project resource, when the update sends project scope fields or a paragraph, then the scope is kept', async () => {
      const created = await api.create(users.team, newResource(scope.communityProject(communityProjects.solarIn1)));
      const asProject = await api.save(users.team, { ...newResource(scope.project(P)), id: created.id });
      expect(asProject.status).toBe(200);
      expect(asProject.body).toMatchObject({
        isCommunityProjectScoped: true,
        communityProjectId: communityProjects.solarIn1,
      });
      const asOtherCommunity = await api.save(users.team, {
        ...newResource(scope.projectInCommunity(P, communities.private2)),
        id: created.id,
      });
      expect(asOtherCommunity.status).toBe(200);
      expect(asOtherCommunity.body).toMatchObject({
        isCommunityProjectScoped: true,
        communityProjectId: communityProjects.solarIn1,
      });
      const viaParagraph = await api.save(users.team, {
        ...newResource(scope.paragraph(paragraphs.solarProject)),
        id: created.id,
      });
      expect(viaParagraph.status).toBe(200);
      expect(viaParagraph.body).toMatchObject({
        isCommunityProjectScoped: true,
        communityProjectId: communityProjects.solarIn1,
      });
      // The listing agrees: still in community 1, never in the project-wide view.
      expect(await seenIn(users.team, created.id, communities.public1)).toBeDefined();
      expect(await seenIn(users.team, created.id, null)).toBeUndefined();
    });

    it('given a resource, when a non-editor updates it, then 403 and nothing changes', async () => {
      const created = await api.create(users.team, newResource(scope.communityProject(communityProjects.solarIn1)));
      for (const userId of [users.member1, users.outsider, users.mentor, users.admin2, users.pending1]) {
        const res = await api.save(userId, {
          ...newResource(scope.communityProject(communityProjects.solarIn1)),
          id: created.id,
          name: 'Hijacked',
        });
        expect({ userId, status: res.status, type: res.body.type }).toEqual({
          userId,
          status: 403,
          type: '/problems/forbidden',
        });
      }
      expect((await seenIn(users.team, created.id, communities.public1))?.name).toBe(created.name);
    });

    it("given a community-project resource, the owning community's admin may update it", async () => {
      const created = await api.create(users.team, newResource(scope.communityProject(communityProjects.solarIn1)));
      const res = await api.save(users.admin1, {
        ...newResource(scope.communityProject(communityProjects.solarIn1)),
        id: created.id,
        name: 'By the admin',
      });
      expect(res.status).toBe(200);
      expect(res.body.name).toBe('By the admin');
    });

    it('given a project resource, a community admin may not update it', async () => {
      const created = await api.create(users.team, newResource(scope.project(P)));
      const res = await api.save(users.admin1, { ...newResource(scope.project(P)), id: created.id });
      expect(res.status).toBe(403);
      expect(res.body.type).toBe('/problems/forbidden');
    });

    it('when the id is unknown, then 404', async () => {
      const res = await api.save(users.team, { ...newResource(scope.project(P)), id: 987_654 });
      expect(res.status).toBe(404);
      expect(res.body.type).toBe('/problems/not-found');
    });

    it('given a deleted resource, when it is updated, then 404', async () => {
      const created = await api.create(users.team, newResource(scope.project(P)));
      expect((await api.remove(users.team, created.id)).status).toBe(200);
      const res = await api.save(users.team, { ...newResource(scope.project(P)), id: created.id });
      expect(res.status).toBe(404);
    });

    it('given a project resource, when the team updates it to level 2, then 400 naming privacyLevel', async () => {
      const created = await api.create(users.team, newResource(scope.project(P), { privacyLevel: 1 }));
      const res = await api.save(users.team, { ...newResource(scope.project(P)), id: created.id, privacyLevel: 2 });
      expect(res.status).toBe(400);
      expect(fieldsOf(res.body)).toEqual(['privacyLevel']);
    });

    it.each([0, 6])('when an update sends level %d, then 400 naming privacyLevel', async (privacyLevel) => {
      const created = await api.create(users.team, newResource(scope.project(P)));
      const res = await api.save(users.team, { ...newResource(scope.project(P)), id: created.id, privacyLevel });
      expect(res.status).toBe(400);
      expect(fieldsOf(res.body)).toEqual(['privacyLevel']);
    });

    it('given the team, when an update sends another level, then the level changes', async () => {
      const created = await api.create(
        users.team,
        newResource(scope.communityProject(communityProjects.solarIn1), { privacyLevel: 1 }),
      );
      const res = await api.save(users.team, {
        ...newResource(scope.communityProject(communityProjects.solarIn1)),
        id: created.id,
        privacyLevel: 3,
      });
      expect(res.status).toBe(200);
      expect(res.body.privacyLevel).toBe(3);
      expect(await seenIn(users.member1, created.id, communities.public1)).toBeUndefined();
    });

    describe("given a mentor's own resource", () => {
      let resource: ResourceRecord;
      beforeAll(async () => {
        resource = await api.create(users.mentor, newResource(scope.communityProject(communityProjects.solarIn1)));
      });

      it('when the mentor updates it with the same level, then 200', async () => {
        const res = await api.save(users.mentor, {
          ...newResource({}),
          id: resource.id,
          name: 'Mentor notes v2',
          privacyLevel: 4,
        });
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ name: 'Mentor notes v2', privacyLevel: 4 });
      });

      it.each([1, 3, 5])(
        'when the mentor updates it with level %d, then 403 and the level stays',
        async (privacyLevel) => {
          const res = await api.save(users.mentor, { ...newResource({}), id: resource.id, privacyLevel });
          expect(res.status).toBe(403);
          expect(res.body.type).toBe('/problems/forbidden');
          expect(fieldsOf(res.body)).toEqual(['privacyLevel']);
          expect((await seenIn(users.team, resource.id, communities.public1))?.privacyLevel).toBe(4);
        },
      );

      it('when a member updates it, then 403', async () => {
        const res = await api.save(users.member1, { ...newResource({}), id: resource.id, privacyLevel: 4 });
        expect(res.status).toBe(403);
      });

      it('when the mentor tries to update a resource the team created, then 403', async () => {
        const teams = await api.create(
          users.team,
          newResource(scope.communityProject(communityProjects.solarIn1), { privacyLevel: 5 }),
        );
        const res = await api.save(users.mentor, { ...newResource({}), id: teams.id, privacyLevel: 5 });
        expect(res.status).toBe(403);
        expect(res.body.type).toBe('/problems/forbidden');
      });
    });
  });

  // Upload paths must name real uploads now: their detection is tested in test/files/files-access.int.test.ts.
  describe('resourceType and image, detected from the URL', () => {
    it.each<[string, string, number, (url: string) => string]>([
      ['a linked PDF', 'https://example.org/files/Business%20plan.pdf', 3, () => ''],
      ['a linked PNG', 'https://example.org/files/logo.PNG', 1, (url) => url],
      ['a linked JPEG', 'https://cdn.example.org/photos/kiosk.jpg?size=large', 1, (url) => url],
      ['a linked MP4', 'https://example.org/files/demo.mp4', 2, () => ''],
      [
        'a YouTube watch link',
        'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
        2,
        () => 'https://img.youtube.com/vi/dQw4w9WgXcQ/hqdefault.jpg',
      ],
      [
        'a youtu.be link',
        'https://youtu.be/dQw4w9WgXcQ',
        2,
        () => 'https://img.youtube.com/vi/dQw4w9WgXcQ/hqdefault.jpg',
      ],
      ['a Vimeo link', 'https://vimeo.com/76979871', 2, () => ''],
      ['a web page', 'https://example.org/about', 0, () => ''],
      ['a linked spreadsheet', 'https://example.org/files/budget.xlsx', 0, () => ''],
    ])('given %s (%s), then resourceType %d and its preview image', async (_what, resourceUrl, resourceType, image) => {
      const res = await api.save(
        users.team,
        newResource(scope.project(P), { resourceUrl, resourceType: (resourceType + 1) % 4 }),
      );
      expect(res.status).toBe(200);
      expect(res.body.resourceType).toBe(resourceType);
      expect(res.body.resourceUrl).toBe(resourceUrl);
      const listed = await seenIn(users.team, res.body.id, null);
      expect(listed?.resourceType).toBe(resourceType);
      expect(listed?.image).toBe(image(resourceUrl));
    });

    it('a YouTube preview lives on img.youtube.com', async () => {
      const created = await api.create(
        users.team,
        newResource(scope.project(P), { resourceUrl: 'https://www.youtube.com/watch?v=aqz-KE-bpKQ' }),
      );
      const listed = await seenIn(users.team, created.id, null);
      expect(new URL(listed?.image ?? '').hostname).toBe('img.youtube.com');
    });

    it('when the client sends resourceType and image, then they are ignored', async () => {
      const res = await api.save(
        users.team,
        newResource(scope.project(P), {
          resourceUrl: 'https://example.org/page',
          resourceType: 1,
          image: 'https://evil.example/x.png',
        }),
      );
      expect(res.status).toBe(200);
      expect(res.body.resourceType).toBe(0);
      expect((await seenIn(users.team, res.body.id, null))?.image).toBe('');
    });

    it('when an update changes the URL, then the type is detected again', async () => {
      const created = await api.create(
        users.team,
        newResource(scope.project(P), { resourceUrl: 'https://example.org/x1/a.pdf' }),
      );
      expect(created.resourceType).toBe(3);
      const res = await api.save(users.team, {
        ...newResource({}),
        id: created.id,
        resourceUrl: 'https://example.org/x1/a.webp',
        privacyLevel: 1,
      });
      expect(res.body.resourceType).toBe(1);
      expect((await seenIn(users.team, created.id, null))?.image).toBe('https://example.org/x1/a.webp');
    });
  });

  describe('tags', () => {
    it('given tags, then they are saved and listed; an update replaces them; none given means []', async () => {
      const created = await api.create(
        users.team,
        newResource(scope.project(P), { resourceTags: ['energy', 'Solar'] }),
      );
      expect(created.resourceTags).toEqual(['energy', 'Solar']);
      expect((await seenIn(users.member1, created.id, null))?.resourceTags).toEqual(['energy', 'Solar']);
      const updated = await api.save(users.team, {
        ...newResource({}),
        id: created.id,
        resourceTags: ['water'],
        privacyLevel: 1,
      });
      expect(updated.body.resourceTags).toEqual(['water']);
      const untagged = await api.save(users.team, {
        ...newResource({}),
        id: created.id,
        resourceTags: undefined,
        privacyLevel: 1,
      });
      expect(untagged.body.resourceTags).toEqual([]);
    });

    it('given the same tag twice in different case, then it is kept once', async () => {
      const created = await api.create(
        users.team,
        newResource(scope.project(P), { resourceTags: ['Energy', 'energy', ' energy '] }),
      );
      expect(created.resourceTags).toEqual(['Energy']);
    });
  });

  describe('timestamps', () => {
    it('postDate and lastUpdated are ISO 8601; an update moves lastUpdated and keeps postDate', async () => {
      const created = await api.create(users.team, newResource(scope.project(P)));
      expect(created.postDate).toMatch(ISO_8601);
      expect(created.lastUpdated).toMatch(ISO_8601);
      expect(created.lastUpdated).toBe(created.postDate);
      // Let the clock move on, so that "later" is observable at millisecond resolution.
      await new Promise((resolve) => setTimeout(resolve, 5));
      const updated = await api.save(users.team, {
        ...newResource({}),
        id: created.id,
        name: 'Edited',
        privacyLevel: 1,
      });
      expect(updated.status).toBe(200);
      expect(updated.body.postDate).toBe(created.postDate);
      expect(Date.parse(updated.body.lastUpdated)).toBeGreaterThan(Date.parse(created.postDate));
      const listed = await seenIn(users.team, created.id, null);
      expect(listed).toMatchObject({ postDate: created.postDate, lastUpdated: updated.body.lastUpdated });
    });
  });

  describe('the response', () => {
    it.each<[string, () => Record<string, unknown>]>([
      ['a project resource', () => newResource(scope.project(P), { resourceTags: ['a'] })],
      [
        'a community-project resource',
        () => newResource(scope.communityProject(communityProjects.solarIn1), { privacyLevel: 2 }),
      ],
      ['a paragraph resource', () => newResource(scope.paragraph(paragraphs.solarIn1))],
    ])('given %s, then exactly the fields the contract lists, each with its type', async (_kind, body) => {
      const res = await api.save(users.team, body());
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual([...SAVED_FIELDS].sort());
      expect(recordProblems(res.body, SAVED_FIELDS)).toEqual([]);
      expect(res.body.currentlySharedWith).toEqual([]);
    });

    it('echoes what was sent, and the resource is listed at once (read-your-writes)', async () => {
      const body = newResource(scope.communityProject(communityProjects.solarIn1), {
        name: '  Kiosk wiring guide  ',
        description: 'Step by step',
        icon: 'wrench',
        resourceUrl: 'https://example.org/wiring',
        privacyLevel: 2,
      });
      const res = await api.save(users.team, body);
      expect(res.body).toMatchObject({
        name: 'Kiosk wiring guide',
        description: 'Step by step',
        icon: 'wrench',
        resourceUrl: 'https://example.org/wiring',
        privacyLevel: 2,
        effectivePrivacyLevel: 2,
        canEdit: true,
      });
      const listed = await api.listOk(users.member1, { projectId: P, communityId: communities.public1, take: 1000 });
      expect(idsOf(listed)).toContain(res.body.id);
    });

    it('optional fields may be omitted or null: description and icon become "", tags []', async () => {
      const res = await api.save(users.team, {
        id: 0,
        name: 'Bare',
        resourceUrl: 'https://example.org/bare',
        privacyLevel: 1,
        description: null,
        ...scope.project(P),
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ description: '', icon: '', resourceTags: [] });
    });
  });

  describe('malformed bodies', () => {
    const valid = () => newResource(scope.project(P));
    it.each<[string, (body: Record<string, unknown>) => unknown, string]>([
      ['name missing', ({ name: _n, ...rest }) => rest, 'name'],
      ['name empty', (b) => ({ ...b, name: '' }), 'name'],
      ['name only spaces', (b) => ({ ...b, name: '   ' }), 'name'],
      ['name a number', (b) => ({ ...b, name: 42 }), 'name'],
      ['resourceUrl missing', ({ resourceUrl: _u, ...rest }) => rest, 'resourceUrl'],
      ['resourceUrl javascript:', (b) => ({ ...b, resourceUrl: 'javascript:alert(1)' }), 'resourceUrl'],
      ['resourceUrl data:', (b) => ({ ...b, resourceUrl: 'data:text/html,<script>alert(1)</script>' }), 'resourceUrl'],
      ['resourceUrl file:', (b) => ({ ...b, resourceUrl: 'file:///etc/passwd' }), 'resourceUrl'],
      [
        'resourceUrl a path escaping upwards',
        (b) => ({ ...b, resourceUrl: 'resource_files/../secrets.txt' }),
        'resourceUrl',
      ],
      ['resourceUrl an object', (b) => ({ ...b, resourceUrl: { href: 'https://example.org' } }), 'resourceUrl'],
      ['id missing', ({ id: _i, ...rest }) => rest, 'id'],
      ['id negative', (b) => ({ ...b, id: -1 }), 'id'],
      ['id a string', (b) => ({ ...b, id: '0' }), 'id'],
      ['id fractional', (b) => ({ ...b, id: 1.5 }), 'id'],
      ['description a number', (b) => ({ ...b, description: 7 }), 'description'],
      ['icon an array', (b) => ({ ...b, icon: ['x'] }), 'icon'],
      ['resourceTags a string', (b) => ({ ...b, resourceTags: 'energy' }), 'resourceTags'],
      ['resourceTags holding a number', (b) => ({ ...b, resourceTags: ['ok', 5] }), 'resourceTags[1]'],
      ['projectId a string', (b) => ({ ...b, projectId: '10' }), 'projectId'],
      ['communityId negative', (b) => ({ ...b, communityId: -2 }), 'communityId'],
      ['communityProjectId fractional', (b) => ({ ...b, communityProjectId: 0.5 }), 'communityProjectId'],
      ['paragraphId a boolean', (b) => ({ ...b, paragraphId: true }), 'paragraphId'],
    ])('when %s, then 400 naming it', async (_what, mutate, field) => {
      const res = await api.save(users.team, mutate(valid()));
      expect(res.status).toBe(400);
      expect(res.body.type).toBe('/problems/validation');
      expect(fieldsOf(res.body)).toContain(field);
    });

    it.each<[string, unknown]>([
      ['an array', []],
      ['a string', 'hello'],
      ['null', null],
    ])('when the body is %s, then 400', async (_what, body) => {
      const res = await api.save(users.team, JSON.stringify(body));
      expect(res.status).toBe(400);
      expect(res.body.type).toBe('/problems/validation');
    });

    it('when several fields are wrong, then every one is named', async () => {
      const res = await api.save(users.team, {
        ...valid(),
        name: '',
        resourceUrl: 'javascript:void(0)',
        privacyLevel: 'high',
      });
      expect(res.status).toBe(400);
      expect(fieldsOf(res.body)).toEqual(expect.arrayContaining(['name', 'resourceUrl', 'privacyLevel']));
    });

    it('given a body shape error and a caller who may not add, then 400 first (shape before permission)', async () => {
      const res = await api.save(users.outsider, { ...valid(), name: '' });
      expect(res.status).toBe(400);
    });
  });
});

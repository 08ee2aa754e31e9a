/**
 * docs/api.md GetResourcePrivacy / SaveResourcePrivacy / UnshareResourceFromCommunity and docs/api.md
 * "Privacy changes (SaveResourcePrivacy)": what a change writes, what reading it back answers,
 * every 400, atomicity, the list endpoint following each change, and who may read the privacy.
 *
 * The world is the demo directory plus:
 *  - circle 310 "Panel" of community 3 and circle 320 "Board" of community 2;
 *  - Lia (21), admin of community 3 only; Max (22), approved member of private community 2 and of
 *    circle 320; Nia (23), approved member of public community 3.
 * Resources belong to project 10 (Solar Kiosk, in communities 1 and 2, not in 3). A "cp" resource
 * is owned by community 1 and created by its admin Cleo, who may change its own privacy and its
 * shares; a project resource is created by the team (Ada), who may change everything on it.
 */
import { demo, demoDirectory } from '../support/demo-directory';
import type { SavePrivacyBody } from '../support/privacy-api';
import {
  communityCircle,
  communityCircles,
  fieldsOf,
  privacyApi,
  projectCircle,
  projectCircles,
} from '../support/privacy-api';
import { serverForSuite } from '../support/suite-server';

const P = demo.projects.solar;
const C1 = demo.communities.public1;
const C2 = demo.communities.private2;
const C3 = demo.communities.public3;
const PANEL_3 = 310;
const BOARD_2 = 320;
const LIA = 21;
const MAX = 22;
const NIA = 23;
const { team, mentor, admin1, member1, pending1, admin2, outsider } = demo.users;

const NAMES = { [C1]: 'Green Valley Makers', [C2]: 'Harbour Founders', [C3]: 'Northern Lights' } as const;
const candidate = (communityId: 1 | 2 | 3) => ({ communityId, communityName: NAMES[communityId] });

const extraDirectory = [
  {
    type: 'CircleUpserted',
    data: {
      circleId: PANEL_3,
      name: 'Panel',
      longName: 'Northern Lights panel',
      isActive: true,
      projectId: null,
      communityId: C3,
    },
  },
  {
    type: 'CircleUpserted',
    data: {
      circleId: BOARD_2,
      name: 'Board',
      longName: 'Harbour board',
      isActive: true,
      projectId: null,
      communityId: C2,
    },
  },
  { type: 'UserUpserted', data: { userId: LIA, name: 'Lia Novak', status: 'active' } },
  { type: 'UserUpserted', data: { userId: MAX, name: 'Max Weber', status: 'active' } },
  { type: 'UserUpserted', data: { userId: NIA, name: 'Nia Obi', status: 'active' } },
  { type: 'CommunityMemberSet', data: { communityId: C3, userId: LIA, role: 'admin', status: 'approved' } },
  { type: 'CommunityMemberSet', data: { communityId: C2, userId: MAX, role: 'member', status: 'approved' } },
  { type: 'CommunityMemberSet', data: { communityId: C3, userId: NIA, role: 'member', status: 'approved' } },
  { type: 'CircleMemberSet', data: { circleId: BOARD_2, userId: MAX } },
];

describe('resource privacy over HTTP', () => {
  const server = serverForSuite([demoDirectory.events, extraDirectory]);
  const api = privacyApi(server);

  const newCp = (level = 1) => api.create(admin1, { projectId: P, communityId: C1 }, level);
  const newProjectResource = (level = 1) => api.create(team, { projectId: P, communityId: null }, level);

  describe('write, then read back', () => {
    it('given a cp resource, when its owner block and two shares are written, then reading back gives exactly what was written', async () => {
      const resourceId = await newCp(1);

      const res = await api.save(admin1, {
        resourceId,
        owner: {
          privacyLevel: 4,
          circlesToAdd: [projectCircle(400, P), communityCircle(300, C1), projectCircle(100, P)],
        },
        sharesToUpsert: [
          { communityId: C3, privacyLevel: 4, circlesToAdd: [communityCircle(PANEL_3, C3), projectCircle(101, P)] },
          { communityId: C2, privacyLevel: 3 },
        ],
      });

      expect(res.status).toBe(200);
      expect(res.text).toBe('');
      const read = await api.read(admin1, resourceId);
      expect(read.status).toBe(200);
      expect(read.body).toEqual({
        resourceId,
        isProjectScoped: false,
        owningCommunityId: C1,
        owningCommunityName: 'Green Valley Makers',
        owner: {
          privacyLevel: 4,
          circles: [
            projectCircles('Solar Kiosk', [
              { id: 100, name: 'Team', longName: 'Solar Kiosk team', isActive: true, projectId: P, communityId: null },
              {
                id: 400,
                name: 'Partners',
                longName: 'Solar Kiosk partners',
                isActive: true,
                projectId: P,
                communityId: null,
              },
            ]),
            communityCircles('Green Valley Makers', [
              {
                id: 300,
                name: 'Reviewers',
                longName: 'Green Valley reviewers',
                isActive: true,
                projectId: null,
                communityId: C1,
              },
            ]),
          ],
        },
        shares: [
          { communityId: C2, communityName: 'Harbour Founders', privacyLevel: 3, circles: [] },
          {
            communityId: C3,
            communityName: 'Northern Lights',
            privacyLevel: 4,
            circles: [
              projectCircles('Solar Kiosk', [
                {
                  id: 101,
                  name: 'Mentors',
                  longName: 'Solar Kiosk mentors',
                  isActive: true,
                  projectId: P,
                  communityId: null,
                },
              ]),
              communityCircles('Northern Lights', [
                {
                  id: PANEL_3,
                  name: 'Panel',
                  longName: 'Northern Lights panel',
                  isActive: true,
                  projectId: null,
                  communityId: C3,
                },
              ]),
            ],
          },
        ],
        shareCandidates: [],
        canEdit: true,
        canShareCrossCommunity: true,
      });
    });

    it('given a project resource, when it is read, then every community of the project is a candidate until it is shared there', async () => {
      const resourceId = await newProjectResource(3);

      const before = await api.readAll(resourceId);
      await api.saveOk(team, { resourceId, sharesToUpsert: [{ communityId: C1, privacyLevel: 2 }] });
      const after = await api.readAll(resourceId);

      expect(before).toMatchObject({
        isProjectScoped: true,
        owningCommunityId: null,
        owningCommunityName: null,
        owner: { privacyLevel: 3, circles: [] },
        shares: [],
        shareCandidates: [candidate(1), candidate(2)],
      });
      expect(after.shares).toEqual([
        { communityId: C1, communityName: 'Green Valley Makers', privacyLevel: 2, circles: [] },
      ]);
      expect(after.shareCandidates).toEqual([candidate(2)]);
      expect(after.owner).toEqual({ privacyLevel: 3, circles: [] });
    });

    it('given a cp resource with a share, when either level changes, then the other one stays as it was', async () => {
      const resourceId = await newCp(3);
      await api.saveOk(admin1, { resourceId, sharesToUpsert: [{ communityId: C2, privacyLevel: 1 }] });

      await api.saveOk(admin1, { resourceId, owner: { privacyLevel: 5 } });
      const afterOwn = await api.readAll(resourceId);
      await api.saveOk(admin1, { resourceId, sharesToUpsert: [{ communityId: C2, privacyLevel: 2 }] });
      const afterShare = await api.readAll(resourceId);

      expect([afterOwn.owner.privacyLevel, afterOwn.shares.map((s) => s.privacyLevel)]).toEqual([5, [1]]);
      expect([afterShare.owner.privacyLevel, afterShare.shares.map((s) => s.privacyLevel)]).toEqual([5, [2]]);
    });

    it('given Custom blocks with circles, when they move off Custom and back, then their circles are gone and the share stays', async () => {
      const resourceId = await newCp(1);
      await api.saveOk(admin1, {
        resourceId,
        owner: { privacyLevel: 4, circlesToAdd: [projectCircle(100, P)] },
        sharesToUpsert: [{ communityId: C3, privacyLevel: 4, circlesToAdd: [communityCircle(PANEL_3, C3)] }],
      });

      await api.saveOk(admin1, {
        resourceId,
        owner: { privacyLevel: 1 },
        sharesToUpsert: [{ communityId: C3, privacyLevel: 1 }],
      });
      const off = await api.readAll(resourceId);
      await api.saveOk(admin1, {
        resourceId,
        owner: { privacyLevel: 4 },
        sharesToUpsert: [{ communityId: C3, privacyLevel: 4 }],
      });
      const back = await api.readAll(resourceId);

      expect(off.owner).toEqual({ privacyLevel: 1, circles: [] });
      expect(off.shares).toEqual([{ communityId: C3, communityName: 'Northern Lights', privacyLevel: 1, circles: [] }]);
      expect(back.owner).toEqual({ privacyLevel: 4, circles: [] });
      expect(back.shares).toEqual([
        { communityId: C3, communityName: 'Northern Lights', privacyLevel: 4, circles: [] },
      ]);
    });

    it('given a Custom share with one circle, when that circle is removed, then the empty Custom share stays until removed', async () => {
      const resourceId = await newCp(1);
      await api.saveOk(admin1, {
        resourceId,
        sharesToUpsert: [{ communityId: C3, privacyLevel: 4, circlesToAdd: [communityCircle(PANEL_3, C3)] }],
      });

      await api.saveOk(admin1, {
        resourceId,
        sharesToUpsert: [{ communityId: C3, privacyLevel: 4, circlesToRemove: [communityCircle(PANEL_3, C3)] }],
      });

      expect((await api.readAll(resourceId)).shares).toEqual([
        { communityId: C3, communityName: 'Northern Lights', privacyLevel: 4, circles: [] },
      ]);
      // It still governs community 3: its admin sees the resource there, a plain member no longer does.
      expect((await api.listed(LIA, P, C3, resourceId))?.effectivePrivacyLevel).toBe(4);
      expect(await api.listed(NIA, P, C3, resourceId)).toBeUndefined();
    });

    it('given a Custom owner block, when circles are sent in later requests, then they are added to and removed from the granted ones, never replacing them', async () => {
      const resourceId = await newCp(4);
      const grantedIds = async () =>
        (await api.readAll(resourceId)).owner.circles.flatMap((g) => g.privacyCircles.map((c) => c.id));

      await api.saveOk(admin1, { resourceId, owner: { privacyLevel: 4, circlesToAdd: [projectCircle(100, P)] } });
      const first = await grantedIds();
      await api.saveOk(admin1, {
        resourceId,
        owner: { privacyLevel: 4, circlesToAdd: [projectCircle(400, P), projectCircle(100, P)] },
      });
      const second = await grantedIds();
      await api.saveOk(admin1, { resourceId, owner: { privacyLevel: 4, circlesToRemove: [projectCircle(100, P)] } });
      const third = await grantedIds();

      expect([first, second, third]).toEqual([[100], [100, 400], [400]]);
    });

    it('given a cp resource, when the same change is sent twice, then the second is a 200 that changes nothing', async () => {
      const resourceId = await newCp(1);
      const body: SavePrivacyBody = {
        resourceId,
        owner: { privacyLevel: 4, circlesToAdd: [projectCircle(100, P)] },
        sharesToUpsert: [{ communityId: C2, privacyLevel: 5 }],
      };
      await api.saveOk(admin1, body);
      const once = await api.readAll(resourceId);

      const res = await api.save(admin1, body);

      expect(res.status).toBe(200);
      expect(await api.readAll(resourceId)).toEqual(once);
    });

    it.each([1, 4])(
      'given a cp resource, when it is shared at level %p into a community its project is not in, then the share is made',
      async (level) => {
        const resourceId = await newCp(3);
        const circlesToAdd = level === 4 ? [communityCircle(PANEL_3, C3)] : [];

        const res = await api.save(admin1, {
          resourceId,
          sharesToUpsert: [{ communityId: C3, privacyLevel: level, circlesToAdd }],
        });

        expect(res.status).toBe(200);
        const shares = (await api.readAll(resourceId)).shares;
        expect(shares.map((s) => [s.communityId, s.privacyLevel, s.circles.length])).toEqual([
          [C3, level, level === 4 ? 1 : 0],
        ]);
      },
    );

    it('given a cp resource, when a share that does not exist is removed, then it is a 200 and nothing changes', async () => {
      const resourceId = await newCp(1);
      const before = await api.readAll(resourceId);

      const viaSave = await api.save(admin2, { resourceId, sharesToRemove: [{ communityId: C2 }] });
      const viaUnshare = await api.unshare(team, { resourceId, communityId: C3 });

      expect([viaSave.status, viaUnshare.status]).toEqual([200, 200]);
      expect(await api.readAll(resourceId)).toEqual(before);
    });
  });

  describe('invalid changes: 400 naming the field, and nothing applied', () => {
    type Case = [string, 'cp' | 'project', (resourceId: number) => unknown, string[]];
    const cases: Case[] = [
      [
        'a circle grant with both projectId and communityId',
        'cp',
        (id) => ({
          resourceId: id,
          owner: { privacyLevel: 4, circlesToAdd: [{ circleId: 100, projectId: P, communityId: C1 }] },
        }),
        ['owner.circlesToAdd[0].projectId'],
      ],
      [
        'a circle grant with neither projectId nor communityId',
        'cp',
        (id) => ({
          resourceId: id,
          owner: { privacyLevel: 4, circlesToAdd: [{ circleId: 100, projectId: null, communityId: null }] },
        }),
        ['owner.circlesToAdd[0].projectId'],
      ],
      [
        'a circle removal in a share with neither id',
        'cp',
        (id) => ({
          resourceId: id,
          sharesToUpsert: [{ communityId: C2, privacyLevel: 4, circlesToRemove: [{ circleId: 100 }] }],
        }),
        ['sharesToUpsert[0].circlesToRemove[0].projectId'],
      ],
      [
        'a foreign community’s circle in the owner block',
        'cp',
        (id) => ({ resourceId: id, owner: { privacyLevel: 4, circlesToAdd: [communityCircle(PANEL_3, C3)] } }),
        ['owner.circlesToAdd[0].circleId'],
      ],
      [
        'a community circle in a project resource’s owner block',
        'project',
        (id) => ({ resourceId: id, owner: { privacyLevel: 4, circlesToAdd: [communityCircle(300, C1)] } }),
        ['owner.circlesToAdd[0].circleId'],
      ],
      [
        'another project’s circle',
        'cp',
        (id) => ({ resourceId: id, owner: { privacyLevel: 4, circlesToAdd: [projectCircle(200, 20)] } }),
        ['owner.circlesToAdd[0].circleId'],
      ],
      [
        'a circle named as a circle of the wrong project',
        'cp',
        (id) => ({ resourceId: id, owner: { privacyLevel: 4, circlesToAdd: [projectCircle(100, 20)] } }),
        ['owner.circlesToAdd[0].projectId'],
      ],
      [
        'another community’s circle in a share',
        'cp',
        (id) => ({
          resourceId: id,
          sharesToUpsert: [{ communityId: C2, privacyLevel: 4, circlesToAdd: [communityCircle(PANEL_3, C3)] }],
        }),
        ['sharesToUpsert[0].circlesToAdd[0].circleId'],
      ],
      [
        'an unknown circle',
        'cp',
        (id) => ({
          resourceId: id,
          owner: { privacyLevel: 4, circlesToAdd: [projectCircle(100, P), projectCircle(999, P)] },
        }),
        ['owner.circlesToAdd[1].circleId'],
      ],
      [
        'circles with the own level Team',
        'cp',
        (id) => ({ resourceId: id, owner: { privacyLevel: 3, circlesToAdd: [projectCircle(100, P)] } }),
        ['owner.circlesToAdd'],
      ],
      [
        'circles with a share at Public',
        'cp',
        (id) => ({
          resourceId: id,
          sharesToUpsert: [{ communityId: C2, privacyLevel: 1, circlesToAdd: [communityCircle(BOARD_2, C2)] }],
        }),
        ['sharesToUpsert[0].circlesToAdd'],
      ],
      ['own level 0', 'cp', (id) => ({ resourceId: id, owner: { privacyLevel: 0 } }), ['owner.privacyLevel']],
      ['own level 6', 'cp', (id) => ({ resourceId: id, owner: { privacyLevel: 6 } }), ['owner.privacyLevel']],
      [
        'own level Community on a project resource',
        'project',
        (id) => ({ resourceId: id, owner: { privacyLevel: 2 } }),
        ['owner.privacyLevel'],
      ],
      [
        'a share at level 0',
        'cp',
        (id) => ({ resourceId: id, sharesToUpsert: [{ communityId: C2, privacyLevel: 0 }] }),
        ['sharesToUpsert[0].privacyLevel'],
      ],
      [
        'a share at Community into a community the project is not in',
        'cp',
        (id) => ({ resourceId: id, sharesToUpsert: [{ communityId: C3, privacyLevel: 2 }] }),
        ['sharesToUpsert[0].privacyLevel'],
      ],
      [
        'a share at Team into a community the project is not in',
        'cp',
        (id) => ({ resourceId: id, sharesToUpsert: [{ communityId: C3, privacyLevel: 3 }] }),
        ['sharesToUpsert[0].privacyLevel'],
      ],
      [
        'a share at Team and mentors into a community the project is not in',
        'cp',
        (id) => ({ resourceId: id, sharesToUpsert: [{ communityId: C3, privacyLevel: 5 }] }),
        ['sharesToUpsert[0].privacyLevel'],
      ],
      [
        'a project resource shared into a community its project is not in',
        'project',
        (id) => ({ resourceId: id, sharesToUpsert: [{ communityId: C3, privacyLevel: 1 }] }),
        ['sharesToUpsert[0].communityId'],
      ],
      [
        'a share into the owning community',
        'cp',
        (id) => ({ resourceId: id, sharesToUpsert: [{ communityId: C1, privacyLevel: 1 }] }),
        ['sharesToUpsert[0].communityId'],
      ],
      [
        'a share into a community that does not exist',
        'cp',
        (id) => ({ resourceId: id, sharesToUpsert: [{ communityId: 9999, privacyLevel: 1 }] }),
        ['sharesToUpsert[0].communityId'],
      ],
      [
        'the same community twice',
        'cp',
        (id) => ({
          resourceId: id,
          sharesToUpsert: [
            { communityId: C2, privacyLevel: 1 },
            { communityId: C2, privacyLevel: 3 },
          ],
        }),
        ['sharesToUpsert[1].communityId'],
      ],
      ['no resourceId', 'cp', () => ({ owner: { privacyLevel: 1 } }), ['resourceId']],
      [
        'a privacyLevel that is not an integer',
        'cp',
        (id) => ({
          resourceId: id,
          sharesToUpsert: [
            { communityId: C2, privacyLevel: 1 },
            { communityId: C3, privacyLevel: '1' },
          ],
        }),
        ['sharesToUpsert[1].privacyLevel'],
      ],
      [
        'a removal without communityId',
        'cp',
        (id) => ({ resourceId: id, sharesToRemove: [{}] }),
        ['sharesToRemove[0].communityId'],
      ],
      [
        'an owner block without privacyLevel',
        'cp',
        (id) => ({ resourceId: id, owner: { circlesToAdd: [] } }),
        ['owner.privacyLevel'],
      ],
      [
        'a valid owner block and an invalid second share',
        'cp',
        (id) => ({
          resourceId: id,
          owner: { privacyLevel: 4, circlesToAdd: [projectCircle(100, P)] },
          sharesToUpsert: [
            { communityId: C2, privacyLevel: 5 },
            { communityId: C3, privacyLevel: 2 },
          ],
        }),
        ['sharesToUpsert[1].privacyLevel'],
      ],
    ];

    it.each(cases)(
      'given a resource, when the request has %s, then 400 naming it and the privacy is unchanged',
      async (_what, kind, body, fields) => {
        const resourceId = kind === 'cp' ? await newCp(1) : await newProjectResource(1);
        const caller = kind === 'cp' ? admin1 : team;
        const before = await api.readAll(resourceId);

        const res = await api.save(caller, body(resourceId));

        expect(res.status).toBe(400);
        expect((res.body as { type: string }).type).toBe('/problems/validation');
        expect(fieldsOf(res.body)).toEqual(fields);
        expect(await api.readAll(resourceId)).toEqual(before);
      },
    );

    it('given a cp resource, when an allowed owner change comes with a share change the caller may not make, then 409 and nothing is applied', async () => {
      const resourceId = await newCp(1);
      await api.saveOk(admin1, { resourceId, sharesToUpsert: [{ communityId: C2, privacyLevel: 1 }] });
      const before = await api.readAll(resourceId);

      const res = await api.save(team, {
        resourceId,
        owner: { privacyLevel: 3 },
        sharesToUpsert: [{ communityId: C2, privacyLevel: 3 }],
      });

      expect(res.status).toBe(409);
      expect((res.body as { type: string }).type).toBe('/problems/conflict');
      expect(fieldsOf(res.body)).toEqual(['sharesToUpsert[0]']);
      expect(await api.readAll(resourceId)).toEqual(before);
    });

    it('given a caller with no right, when the request is also invalid, then 403 comes before 400', async () => {
      const resourceId = await newCp(1);

      const res = await api.save(member1, { resourceId, owner: { privacyLevel: 9 } });

      expect(res.status).toBe(403);
      expect((res.body as { type: string }).type).toBe('/problems/forbidden');
    });

    it('given no such resource, when its privacy is changed or unshared, then 404', async () => {
      const save = await api.save(team, { resourceId: 987654, owner: { privacyLevel: 1 } });
      const unshare = await api.unshare(team, { resourceId: 987654, communityId: C2 });

      expect([save.status, unshare.status]).toEqual([404, 404]);
      expect((save.body as { type: string }).type).toBe('/problems/not-found');
      expect((unshare.body as { type: string }).type).toBe('/problems/not-found');
    });

    it.each([
      ['no communityId', { resourceId: 1 }, ['communityId']],
      ['a resourceId that is not a number', { resourceId: 'x', communityId: C2 }, ['resourceId']],
    ])('given an unshare with %s, then 400 naming it', async (_what, body, fields) => {
      const res = await api.unshare(team, body);

      expect(res.status).toBe(400);
      expect(fieldsOf(res.body)).toEqual(fields);
    });
  });

  describe('the list follows every change on the next request', () => {
    it('given a Team cp resource, when it is shared into community 2 and the share and own levels change, then each list shows the governing level and origin', async () => {
      const resourceId = await newCp(3);
      const inC2 = (userId: number) => api.listed(userId, P, C2, resourceId);

      await api.saveOk(admin1, { resourceId, sharesToUpsert: [{ communityId: C2, privacyLevel: 1 }] });
      const shared = await inC2(MAX);
      await api.saveOk(admin1, {
        resourceId,
        sharesToUpsert: [{ communityId: C2, privacyLevel: 4, circlesToAdd: [communityCircle(BOARD_2, C2)] }],
      });
      const custom = await inC2(MAX);
      await api.saveOk(admin1, { resourceId, sharesToUpsert: [{ communityId: C2, privacyLevel: 3 }] });
      const teamOnlyForMax = await inC2(MAX);
      const teamOnlyForAdmin = await inC2(admin2);
      await api.saveOk(admin1, { resourceId, owner: { privacyLevel: 2 } });
      const ownInC1 = await api.listed(member1, P, C1, resourceId);

      expect(shared).toMatchObject({
        privacyLevel: 3,
        effectivePrivacyLevel: 1,
        originCommunityId: C1,
        originCommunityName: 'Green Valley Makers',
      });
      expect(custom).toMatchObject({ effectivePrivacyLevel: 4, originCommunityId: C1 });
      expect(teamOnlyForMax).toBeUndefined();
      expect(teamOnlyForAdmin).toMatchObject({ privacyLevel: 3, effectivePrivacyLevel: 3, originCommunityId: C1 });
      expect(ownInC1).toMatchObject({
        privacyLevel: 2,
        effectivePrivacyLevel: 2,
        originCommunityId: null,
        originCommunityName: null,
      });
      expect(await inC2(admin2)).toMatchObject({ privacyLevel: 2, effectivePrivacyLevel: 3 });
    });

    it('given a cp resource, when it is shared into a community its project is not in, then that community lists it with its origin', async () => {
      const resourceId = await newCp(3);

      await api.saveOk(admin1, { resourceId, sharesToUpsert: [{ communityId: C3, privacyLevel: 1 }] });

      expect(await api.listed(NIA, P, C3, resourceId)).toMatchObject({
        effectivePrivacyLevel: 1,
        originCommunityId: C1,
        originCommunityName: 'Green Valley Makers',
      });
      expect(await api.listed(outsider, P, C1, resourceId)).toBeUndefined();
    });

    it('given a Team project resource, when it is shared into community 1 at Public and then unshared, then community 1 follows the share and then the own level', async () => {
      const resourceId = await newProjectResource(3);

      await api.saveOk(team, { resourceId, sharesToUpsert: [{ communityId: C1, privacyLevel: 1 }] });
      const shared = await api.listed(member1, P, C1, resourceId);
      const unshare = await api.unshare(admin1, { resourceId, communityId: C1 });
      const unshared = await api.listed(member1, P, C1, resourceId);

      expect(shared).toMatchObject({
        privacyLevel: 3,
        effectivePrivacyLevel: 1,
        originCommunityId: null,
        originCommunityName: null,
      });
      expect(unshare.status).toBe(200);
      expect(unshared).toBeUndefined();
      expect(await api.listed(team, P, C1, resourceId)).toMatchObject({ effectivePrivacyLevel: 3 });
    });

    it('given a Community cp resource shared into community 3, when it is unshared, then community 3 loses it at once', async () => {
      const resourceId = await newCp(2);
      await api.saveOk(admin1, { resourceId, sharesToUpsert: [{ communityId: C3, privacyLevel: 1 }] });
      const before = [await api.listed(NIA, P, C3, resourceId), await api.listed(LIA, P, C3, resourceId)];

      const res = await api.unshare(LIA, { resourceId, communityId: C3 });

      expect(res.status).toBe(200);
      expect(res.text).toBe('');
      expect(before.map((r) => r?.id)).toEqual([resourceId, resourceId]);
      expect(await api.listed(NIA, P, C3, resourceId)).toBeUndefined();
      expect(await api.listed(LIA, P, C3, resourceId)).toBeUndefined();
      expect((await api.read(NIA, resourceId)).status).toBe(404);
    });

    it('given a cp resource shared into communities 2 and 3, when it is deleted, then neither community lists it and its privacy is gone', async () => {
      const resourceId = await newCp(1);
      await api.saveOk(admin1, {
        resourceId,
        sharesToUpsert: [
          { communityId: C2, privacyLevel: 1 },
          { communityId: C3, privacyLevel: 1 },
        ],
      });

      const res = await api.remove(team, resourceId);

      expect(res.status).toBe(200);
      expect(await api.listed(admin2, P, C2, resourceId)).toBeUndefined();
      expect(await api.listed(LIA, P, C3, resourceId)).toBeUndefined();
      expect((await api.read(team, resourceId)).status).toBe(404);
      expect((await api.save(admin1, { resourceId, owner: { privacyLevel: 1 } })).status).toBe(404);
    });
  });

  describe('who may read the privacy', () => {
    let resourceId: number;
    beforeAll(async () => {
      // Own level Community in community 1, shared into 2 at Team and into 3 at Public.
      resourceId = await newCp(2);
      await api.saveOk(admin1, {
        resourceId,
        sharesToUpsert: [
          { communityId: C2, privacyLevel: 3 },
          { communityId: C3, privacyLevel: 1 },
        ],
      });
    });

    const editors = {
      owner: { privacyLevel: 2, circles: [] },
      shares: [
        { communityId: C2, communityName: 'Harbour Founders', privacyLevel: 3, circles: [] },
        { communityId: C3, communityName: 'Northern Lights', privacyLevel: 1, circles: [] },
      ],
      shareCandidates: [],
      canEdit: true,
      canShareCrossCommunity: true,
    };
    const readers = {
      owningCommunityId: C1,
      owner: { privacyLevel: 2 },
      shares: [],
      shareCandidates: [],
      canEdit: false,
      canShareCrossCommunity: false,
    };

    it.each<[string, string, number, Record<string, unknown>]>([
      ['the team', 'every share and candidate, and both edit flags', team, editors],
      ['the owning admin', 'every share and candidate, and both edit flags', admin1, editors],
      [
        'an admin of one shared-into community',
        'only that community’s share, no candidates and no edit rights',
        LIA,
        {
          ...readers,
          owner: { privacyLevel: 2, circles: [] },
          shares: [{ communityId: C3, communityName: 'Northern Lights', privacyLevel: 1, circles: [] }],
        },
      ],
      ['an approved member of the owning community', '200 with no shares and no candidates', member1, readers],
      ['a member of a community it is shared into at Public', '200 with no shares and no candidates', NIA, readers],
      [
        'an outsider reaching a public community it is shared into at Public',
        '200 with no shares and no candidates',
        outsider,
        readers,
      ],
    ])('when %s reads it, then %s', async (_who, _then, userId, expected) => {
      const res = await api.read(userId, resourceId);

      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ resourceId, ...expected });
    });

    it('given a project resource shared by the team, when it is read, then the team sees every candidate', async () => {
      const projectResource = await newProjectResource(1);
      await api.saveOk(team, { resourceId: projectResource, sharesToUpsert: [{ communityId: C2, privacyLevel: 5 }] });

      const res = await api.read(team, projectResource);

      expect(res.body).toMatchObject({ shareCandidates: [candidate(1)], canEdit: true, canShareCrossCommunity: true });
    });

    it.each([
      ['a member of the owning community', member1],
      ['a pending member', pending1],
      ['a mentor', mentor],
      ['an admin of a community it is not shared into', LIA],
      ['an outsider', outsider],
    ])('given a Team resource, when %s reads it, then 404', async (_who, userId) => {
      const teamOnly = await newCp(3);

      const res = await api.read(userId, teamOnly);

      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ type: '/problems/not-found' });
    });

    it('given a Team and mentors resource, when a mentor reads it, then 200 with no shares', async () => {
      const forMentors = await newCp(5);

      const res = await api.read(mentor, forMentors);

      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ shares: [], shareCandidates: [], canEdit: false });
    });

    it.each([
      ['an unknown resource', '987654', 404, '/problems/not-found'],
      ['a resourceId that is not a number', 'abc', 400, '/problems/validation'],
      ['a resourceId of 0', '0', 400, '/problems/validation'],
      ['a resourceId in exponent notation', '1e0', 400, '/problems/validation'],
      ['a resourceId in hex', '0x1', 400, '/problems/validation'],
    ])('when %s is read, then it is refused with the matching problem', async (_what, id, status, type) => {
      const res = await api.read(team, id);

      expect(res.status).toBe(status);
      expect(res.body).toMatchObject({ type });
    });
  });

  it.each([
    ['GET', '/api/Privacy/GetResourcePrivacy?resourceId=1'],
    ['POST', '/api/Privacy/SaveResourcePrivacy'],
    ['POST', '/api/Privacy/UnshareResourceFromCommunity'],
  ])('given no credential, when %s %s is called, then 401', async (method, path) => {
    const res = await server.request(method, path, method === 'POST' ? { resourceId: 1, communityId: 2 } : undefined);

    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ type: '/problems/unauthenticated' });
  });
});

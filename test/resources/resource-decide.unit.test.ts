import { DomainError } from '../../src/domain/errors';
import type { Viewer } from '../../src/directory/viewer';
import type { Resource, ResourceState, ResourceType } from '../../src/resources/resource';
import type { ResourceCommand } from '../../src/resources/resource-commands';
import { resourceDecider } from '../../src/resources/resource-decide';
import type { ResourceEventData } from '../../src/resources/resource-events';
import {
  D,
  D_CIRCLE,
  E,
  EARLIER,
  E_CIRCLE,
  FOREIGN_PROJECT_CIRCLE,
  MENTORS_CIRCLE,
  N,
  UNKNOWN_COMMUNITY,
  N_CIRCLE,
  NOW,
  O,
  OWNER,
  O_CIRCLE,
  P,
  P_CIRCLE,
  P_INACTIVE_CIRCLE,
  RID,
  TEAM_CIRCLE,
  approvedMember,
  changePrivacy,
  communityScope,
  context,
  createResource,
  created,
  deleteResource,
  deleted,
  fields,
  given,
  refusal,
  withContext,
  type Request,
  granted,
  mentor,
  outsider,
  ownerBlock,
  ownerPrivacyChanged,
  owningAdmin,
  projectScope,
  ref,
  revoked,
  share,
  shareBlock,
  sharePrivacyChanged,
  shared,
  sharedIntoAdmin,
  team,
  unshared,
  updateResource,
  updated,
  viewer,
} from './resource-fixtures';

const resourceOf = (state: ResourceState): Resource => {
  if (state.status !== 'active') throw new Error(`expected an active resource, got ${state.status}`);
  return state.resource;
};

/**
 * The state a stream of events folds to. After `then([...expected])` has passed, the state of
 * `[...history, ...expected]` is the state the decision left behind.
 */
const stateAfter = (events: readonly ResourceEventData[]): ResourceState =>
  events.reduce(resourceDecider.evolve, resourceDecider.initialState());
const resourceAfter = (events: readonly ResourceEventData[]): Resource => resourceOf(stateAfter(events));

/** ResourceCreated as `who` records the pump manual now (a PDF: type 3, no image), with `data` changed. */
const createdNow = (who: Viewer, data: Parameters<typeof created>[0] = {}): ResourceEventData =>
  created({ createdBy: who.userId, postDate: NOW, ...data });

/** What a mentor's creation records, whatever level was asked: Custom, granted to the team and the mentors. */
const mentorCreation = (who: Viewer): ResourceEventData[] => [
  createdNow(who, { privacyLevel: 4, createdByMentor: true }),
  granted(OWNER, TEAM_CIRCLE),
  granted(OWNER, MENTORS_CIRCLE),
];

describe('CreateResource', () => {
  it('given nothing, when the team creates a project resource, then it is created as asked', () => {
    const tags = [' water ', 'Pumps', '', 'pumps', 'WATER'];
    const expected: ResourceEventData[] = [
      {
        type: 'ResourceCreated',
        data: {
          resourceId: RID,
          scope: projectScope,
          paragraphId: null,
          name: 'Pump manual',
          description: 'How to fix the pump',
          resourceUrl: 'resource_files/abc/manual.pdf',
          resourceType: 3,
          image: '',
          icon: 'book',
          tags: ['water', 'Pumps'],
          privacyLevel: 3,
          createdBy: team.userId,
          createdByMentor: false,
          postDate: NOW,
        },
      },
    ];

    given()
      .when(withContext(createResource({ scope: projectScope, privacyLevel: 3, tags }), context(team)))
      .then(expected);
    const resource = resourceAfter(expected);
    expect(resource.lastUpdated).toBe(NOW);
    expect(resource.owner).toEqual({ privacyLevel: 3, circles: [] });
    expect(resource.shares).toEqual([]);
  });

  it('given nothing, when an admin of the community creates a community-project resource at Community, then it is created', () => {
    given()
      .when(withContext(createResource({ privacyLevel: 2 }), context(owningAdmin)))
      .then([createdNow(owningAdmin, { privacyLevel: 2, createdByMentor: false })]);
  });

  it('given nothing, when a mentor creates inside a community, then it is Custom with the team and mentors circles, whatever was asked', () => {
    const expected = mentorCreation(mentor);

    given()
      .when(withContext(createResource({ privacyLevel: 1 }), context(mentor)))
      .then(expected);
    expect(resourceAfter(expected).owner).toEqual({
      privacyLevel: 4,
      circles: [
        { circleId: TEAM_CIRCLE, projectId: P, communityId: null },
        { circleId: MENTORS_CIRCLE, projectId: P, communityId: null },
      ],
    });
  });

  it('given nothing, when a mentor who also administers the community creates, then it is still Custom with the team and mentors circles', () => {
    const mentorAdmin = viewer(12, { mentor: true, admins: [O] });
    const expected = mentorCreation(mentorAdmin);

    given()
      .when(withContext(createResource({ privacyLevel: 1 }), context(mentorAdmin)))
      .then(expected);
    expect(resourceAfter(expected).owner).toEqual({
      privacyLevel: 4,
      circles: [ref(TEAM_CIRCLE), ref(MENTORS_CIRCLE)],
    });
  });

  it('given nothing, when a community admin who is not a mentor creates, then the requested level stands', () => {
    given()
      .when(withContext(createResource({ privacyLevel: 1 }), context(owningAdmin)))
      .then([createdNow(owningAdmin, { privacyLevel: 1, createdByMentor: false })]);
  });

  it.each([0, 6, 7, -1, 1.5])(
    'given nothing, when the level is %p, then it is invalid, even for an outsider',
    (level) => {
      for (const who of [team, outsider]) {
        given()
          .when(withContext(createResource({ privacyLevel: level }), context(who)))
          .thenThrows(DomainError, refusal('validation', ['privacyLevel']));
      }
    },
  );

  it('given nothing, when the team creates a project resource at Community, then it is invalid', () => {
    given()
      .when(withContext(createResource({ scope: projectScope, privacyLevel: 2 }), context(team)))
      .thenThrows(DomainError, refusal('validation', ['privacyLevel']));
  });

  it('given an existing resource, when it is created again, then it conflicts on its id', () => {
    given([created()])
      .when(withContext(createResource(), context(team)))
      .thenThrows(DomainError, refusal('conflict', ['id']));
  });

  // The level's range is body shape, checked before the permission: 0, 6 and the like are invalid
  // whoever sends them.
  it.each<[string, 0 | 6, Viewer]>([
    ['an outsider', 0, outsider],
    ['an approved member', 6, approvedMember],
  ])('given nothing, when %s creates at level %p, then it is invalid rather than forbidden', (_who, level, who) => {
    given()
      .when(withContext(createResource({ scope: communityScope, privacyLevel: level }), context(who)))
      .thenThrows(DomainError, refusal('validation', ['privacyLevel']));
  });

  it.each<[string, 0 | 6, Viewer]>([
    ['an outsider', 0, outsider],
    ['an approved member', 6, approvedMember],
    ['a mentor who did not create it', 0, mentor],
  ])(
    'given a resource, when %s updates it at level %p, then it is invalid rather than forbidden',
    (_who, level, who) => {
      given([created()])
        .when(withContext(updateResource({ privacyLevel: level }), context(who)))
        .thenThrows(DomainError, refusal('validation', ['privacyLevel']));
    },
  );

  it.each<[string, ResourceType, string]>([
    ['https://example.org/photo.JPG?size=large', 1, 'https://example.org/photo.JPG?size=large'],
    ['https://youtu.be/dQw4w9WgXcQ', 2, 'https://img.youtube.com/vi/dQw4w9WgXcQ/hqdefault.jpg'],
    ['https://example.org/page', 0, ''],
  ])('given nothing, when the URL is %s, then the type and image are detected', (resourceUrl, resourceType, image) => {
    given()
      .when(withContext(createResource({ resourceUrl }), context(team)))
      .then([createdNow(team, { resourceUrl, resourceType, image })]);
  });
});

describe('UpdateResource', () => {
  it('given a resource, when the team updates it, then the fields change and the scope stays', () => {
    const history = [created()];
    const expected: ResourceEventData[] = [
      {
        type: 'ResourceUpdated',
        data: {
          resourceId: RID,
          name: 'Pump manual v2',
          description: 'Now with pictures',
          resourceUrl: 'https://vimeo.com/12345',
          resourceType: 2,
          image: '',
          icon: 'book',
          tags: ['b', 'a'],
          lastUpdated: NOW,
        },
      },
    ];

    given(history)
      .when(
        withContext(updateResource({ resourceUrl: 'https://vimeo.com/12345', tags: ['b', 'B', 'a'] }), context(team)),
      )
      .then(expected);
    const resource = resourceAfter([...history, ...expected]);
    expect(resource.scope).toEqual(communityScope);
    expect(resource.lastUpdated).toBe(NOW);
    expect(resource.postDate).toBe(EARLIER);
  });

  it.each([
    ['never created', []],
    ['deleted', [created(), { type: 'ResourceDeleted' as const, data: { resourceId: RID, resourceUrl: 'x' } }]],
  ])('given a resource %s, when it is updated, then it is not found', (_what, history) => {
    given(history)
      .when(withContext(updateResource(), context(team)))
      .thenThrows(DomainError, refusal('not_found'));
  });

  it('given a resource a mentor created, when that mentor updates it at the same level, then it is updated', () => {
    const history = [
      created({ privacyLevel: 4, createdBy: mentor.userId, createdByMentor: true }),
      granted(OWNER, TEAM_CIRCLE),
    ];

    given(history)
      .when(withContext(updateResource({ privacyLevel: 4 }), context(mentor)))
      .then([updated()]);
  });

  it('given a resource a mentor created, when that mentor sends another level, then it is forbidden on privacyLevel', () => {
    const history = [created({ privacyLevel: 4, createdBy: mentor.userId, createdByMentor: true })];

    given(history)
      .when(withContext(updateResource({ privacyLevel: 1 }), context(mentor)))
      .thenThrows(DomainError, refusal('forbidden', ['privacyLevel']));
  });

  it.each([
    [
      'created on the team, now a mentor',
      { createdBy: 40, createdByMentor: false, privacyLevel: 1 as const },
      viewer(40, { mentor: true }),
    ],
    [
      'created as a community admin, now a mentor',
      { createdBy: 40, createdByMentor: false, privacyLevel: 2 as const },
      viewer(40, { mentor: true }),
    ],
    [
      'created as a mentor, now on the team',
      { createdBy: 40, createdByMentor: true, privacyLevel: 4 as const },
      viewer(40, { team: true }),
    ],
  ])(
    'given a resource %s, when its creator updates it at the same level, then it is updated',
    (_story, creation, now) => {
      given([created(creation)])
        .when(withContext(updateResource({ privacyLevel: creation.privacyLevel }), context(now)))
        .then([updated()]);
    },
  );

  it('given a resource created on the team, when its creator is now only an approved member, then they may not edit it', () => {
    given([created({ createdBy: 40 })])
      .when(withContext(updateResource({ privacyLevel: 1 }), context(viewer(40, { approved: [O] }))))
      .thenThrows(DomainError, refusal('forbidden'));
  });

  it('given a resource a mentor created, when they are no longer a mentor, then they may not edit it', () => {
    const history = [created({ privacyLevel: 4, createdBy: mentor.userId, createdByMentor: true })];

    given(history)
      .when(withContext(updateResource({ privacyLevel: 4 }), context(viewer(mentor.userId))))
      .thenThrows(DomainError, refusal('forbidden'));
  });

  it('given a community-project resource, when the owning admin changes its level, then the level changes', () => {
    const history = [created()];
    const expected = [updated(), ownerPrivacyChanged(2)];

    given(history)
      .when(withContext(updateResource({ privacyLevel: 2 }), context(owningAdmin)))
      .then(expected);
    expect(resourceAfter([...history, ...expected]).owner).toEqual({ privacyLevel: 2, circles: [] });
  });

  it('given a project resource, when the team moves it to Community, then it is invalid', () => {
    given([created({ scope: projectScope })])
      .when(withContext(updateResource({ privacyLevel: 2 }), context(team)))
      .thenThrows(DomainError, refusal('validation', ['privacyLevel']));
  });

  it.each([0, 6])('given a resource, when the level sent is %p, then it is invalid', (level) => {
    given([created()])
      .when(withContext(updateResource({ privacyLevel: level }), context(team)))
      .thenThrows(DomainError, refusal('validation', ['privacyLevel']));
  });

  it('given a Custom resource with circles, when the team moves it off Custom, then its circles are revoked first', () => {
    const history = [created({ privacyLevel: 4 }), granted(OWNER, P_CIRCLE), granted(OWNER, O_CIRCLE)];

    const expected = [updated(), revoked(OWNER, P_CIRCLE), revoked(OWNER, O_CIRCLE), ownerPrivacyChanged(3)];

    given(history)
      .when(withContext(updateResource({ privacyLevel: 3 }), context(team)))
      .then(expected);
    expect(resourceAfter([...history, ...expected]).owner).toEqual({ privacyLevel: 3, circles: [] });
  });
});

describe('DeleteResource', () => {
  it('given a resource, when the team deletes it, then it is deleted with its URL, and a second delete is not found', () => {
    const history = [created(), shared(D, 1)];
    const expected = [deleted('resource_files/abc/manual.pdf')];

    given(history)
      .when(withContext(deleteResource(), context(team)))
      .then(expected);
    expect(stateAfter([...history, ...expected])).toEqual({ status: 'deleted', resourceId: RID });
    given([created(), ...expected])
      .when(withContext(deleteResource(), context(team)))
      .thenThrows(DomainError, refusal('not_found'));
  });

  it('given a resource a mentor created, when that mentor deletes it, then it is deleted', () => {
    const history = [created({ privacyLevel: 4, createdBy: mentor.userId, createdByMentor: true })];

    given(history)
      .when(withContext(deleteResource(), context(mentor)))
      .then([deleted()]);
  });
});

describe('CreateResource, UpdateResource, DeleteResource: who is refused', () => {
  const histories = { nothing: [], 'a resource': [created(), shared(D, 1)] };

  // prettier-ignore
  it.each<[keyof typeof histories, string, string, Viewer, Request<ResourceCommand>]>([
    ['nothing',    'an approved member',                        'creates',    approvedMember,  createResource({ scope: communityScope })],
    ['nothing',    'an outsider',                               'creates',    outsider,        createResource({ scope: communityScope })],
    ['nothing',    'a mentor, on a project resource',           'creates',    mentor,          createResource({ scope: projectScope })],
    ['nothing',    'a community admin, on a project resource',  'creates',    owningAdmin,     createResource({ scope: projectScope })],
    ['nothing',    'an admin of another community',             'creates',    sharedIntoAdmin, createResource({ scope: communityScope })],
    ['a resource', 'an approved member',                        'updates it', approvedMember,  updateResource()],
    ['a resource', 'a mentor who did not create it',            'updates it', mentor,          updateResource()],
    ['a resource', 'an admin of a community it is shared into', 'updates it', sharedIntoAdmin, updateResource()],
    ['a resource', 'an approved member',                        'deletes it', approvedMember,  deleteResource()],
    ['a resource', 'a mentor who did not create it',            'deletes it', mentor,          deleteResource()],
    ['a resource', 'an admin of a community it is shared into', 'deletes it', sharedIntoAdmin, deleteResource()],
  ])('given %s, when %s %s, then it is forbidden', (history, _who, _does, who, request) => {
    given(histories[history]).when(withContext(request, context(who))).thenThrows(DomainError, refusal('forbidden'));
  });
});

describe('ChangeResourcePrivacy', () => {
  const cpResource = [created()];
  const projectResource = [created({ scope: projectScope })];

  describe('404 and permissions', () => {
    it('given no resource, when its privacy is changed, then it is not found', () => {
      given()
        .when(withContext(changePrivacy({ owner: ownerBlock(1) }), context(team)))
        .thenThrows(DomainError, refusal('not_found'));
    });

    it('given a resource, when an approved member changes the own privacy, then it is forbidden on owner', () => {
      given(cpResource)
        .when(withContext(changePrivacy({ owner: ownerBlock(3) }), context(approvedMember)))
        .thenThrows(DomainError, refusal('forbidden', ['owner']));
    });

    it('given a shared community-project resource, when the team updates the share, then it conflicts (they may only remove it)', () => {
      given([...cpResource, shared(D, 1)])
        .when(withContext(changePrivacy({ sharesToUpsert: [shareBlock(D, 3)] }), context(team)))
        .thenThrows(DomainError, refusal('conflict', ['sharesToUpsert[0]']));
    });

    it('given a community-project resource, when the team adds a share, then it is forbidden', () => {
      given(cpResource)
        .when(withContext(changePrivacy({ sharesToUpsert: [shareBlock(D, 1)] }), context(team)))
        .thenThrows(DomainError, refusal('forbidden', ['sharesToUpsert[0]']));
    });

    it('given a shared resource, when an approved member removes the share, then it is forbidden on sharesToRemove[0]', () => {
      given([...cpResource, shared(D, 1)])
        .when(withContext(changePrivacy({ sharesToRemove: [{ communityId: D }] }), context(approvedMember)))
        .thenThrows(DomainError, refusal('forbidden', ['sharesToRemove[0]']));
    });

    it('given a resource, when the team removes a share that does not exist, then nothing happens and nothing fails', () => {
      given(cpResource)
        .when(withContext(changePrivacy({ sharesToRemove: [{ communityId: D }] }), context(team)))
        .thenNothingHappened();
    });

    it('given a resource, when an outsider removes a share that does not exist, then it is still forbidden', () => {
      given(cpResource)
        .when(withContext(changePrivacy({ sharesToRemove: [{ communityId: D }] }), context(outsider)))
        .thenThrows(DomainError, refusal('forbidden'));
    });

    it('given a resource, when a permission fails and a level is also invalid, then the permission is reported', () => {
      given(cpResource)
        .when(withContext(changePrivacy({ owner: ownerBlock(0) }), context(approvedMember)))
        .thenThrows(DomainError, refusal('forbidden'));
    });

    it('given a resource, when the first block is allowed and the second is not, then the change is refused as a whole', () => {
      given([...cpResource, shared(D, 1)])
        .when(withContext(changePrivacy({ owner: ownerBlock(3), sharesToUpsert: [shareBlock(D, 3)] }), context(team)))
        .thenThrows(DomainError, refusal('conflict', ['sharesToUpsert[0]']));
    });
  });

  describe('400s', () => {
    const invalid: [string, Parameters<typeof changePrivacy>[0], string[], 'cp' | 'project'][] = [
      ['own level 0', { owner: ownerBlock(0) }, ['owner.privacyLevel'], 'cp'],
      ['own level 6', { owner: ownerBlock(6) }, ['owner.privacyLevel'], 'cp'],
      ['own level Community on a project resource', { owner: ownerBlock(2) }, ['owner.privacyLevel'], 'project'],
      ['share level 0', { sharesToUpsert: [shareBlock(D, 0)] }, ['sharesToUpsert[0].privacyLevel'], 'cp'],
      ['share level 7', { sharesToUpsert: [shareBlock(D, 7)] }, ['sharesToUpsert[0].privacyLevel'], 'project'],
      ['circles with level Team', { owner: ownerBlock(3, [ref(P_CIRCLE)]) }, ['owner.circlesToAdd'], 'cp'],
      [
        'circles with a share at Public',
        { sharesToUpsert: [shareBlock(D, 1, [ref(D_CIRCLE)])] },
        ['sharesToUpsert[0].circlesToAdd'],
        'cp',
      ],
      [
        'a circle ref with both projectId and communityId',
        { owner: ownerBlock(4, [{ circleId: P_CIRCLE, projectId: P, communityId: O }]) },
        ['owner.circlesToAdd[0].projectId'],
        'cp',
      ],
      [
        'a circle ref with neither projectId nor communityId',
        { owner: ownerBlock(4, [], [{ circleId: P_CIRCLE, projectId: null, communityId: null }]) },
        ['owner.circlesToRemove[0].projectId'],
        'cp',
      ],
      [
        'an unknown circle',
        { owner: ownerBlock(4, [ref(P_CIRCLE), { circleId: 999, projectId: P, communityId: null }]) },
        ['owner.circlesToAdd[1].circleId'],
        'cp',
      ],
      [
        'a circle named as a circle of the wrong project',
        { owner: ownerBlock(4, [{ circleId: P_CIRCLE, projectId: 8, communityId: null }]) },
        ['owner.circlesToAdd[0].projectId'],
        'cp',
      ],
      [
        'a circle named as a circle of the wrong community',
        { owner: ownerBlock(4, [{ circleId: O_CIRCLE, projectId: null, communityId: E }]) },
        ['owner.circlesToAdd[0].communityId'],
        'cp',
      ],
      [
        'a foreign community’s circle in the owner block',
        { owner: ownerBlock(4, [ref(E_CIRCLE)]) },
        ['owner.circlesToAdd[0].circleId'],
        'cp',
      ],
      [
        'another project’s circle in the owner block',
        { owner: ownerBlock(4, [ref(FOREIGN_PROJECT_CIRCLE)]) },
        ['owner.circlesToAdd[0].circleId'],
        'cp',
      ],
      [
        'another project’s circle in a project resource’s owner block',
        { owner: ownerBlock(4, [ref(P_CIRCLE), ref(FOREIGN_PROJECT_CIRCLE)]) },
        ['owner.circlesToAdd[1].circleId'],
        'project',
      ],
      [
        'a community circle in a project resource’s owner block',
        { owner: ownerBlock(4, [ref(P_CIRCLE), ref(O_CIRCLE)]) },
        ['owner.circlesToAdd[1].circleId'],
        'project',
      ],
      [
        'another community’s circle in a share',
        { sharesToUpsert: [shareBlock(D, 4, [ref(D_CIRCLE), ref(O_CIRCLE)])] },
        ['sharesToUpsert[0].circlesToAdd[1].circleId'],
        'cp',
      ],
      [
        'a share into the owning community',
        { sharesToUpsert: [shareBlock(O, 1)] },
        ['sharesToUpsert[0].communityId'],
        'cp',
      ],
      [
        'a share into a community the directory does not know',
        { sharesToUpsert: [shareBlock(UNKNOWN_COMMUNITY, 1)] },
        ['sharesToUpsert[0].communityId'],
        'cp',
      ],
      [
        'a project resource shared into a community the project is not in',
        { sharesToUpsert: [shareBlock(N, 1)] },
        ['sharesToUpsert[0].communityId'],
        'project',
      ],
      [
        'a share at Community into a community the project is not in',
        { sharesToUpsert: [shareBlock(N, 2)] },
        ['sharesToUpsert[0].privacyLevel'],
        'cp',
      ],
      [
        'a share at Team into a community the project is not in',
        { sharesToUpsert: [shareBlock(N, 3)] },
        ['sharesToUpsert[0].privacyLevel'],
        'cp',
      ],
      [
        'a share at Team and mentors into a community the project is not in',
        { sharesToUpsert: [shareBlock(N, 5)] },
        ['sharesToUpsert[0].privacyLevel'],
        'cp',
      ],
      [
        'the same community twice among upserts',
        { sharesToUpsert: [shareBlock(D, 1), shareBlock(D, 3)] },
        ['sharesToUpsert[1].communityId'],
        'cp',
      ],
      [
        'the same community upserted and removed',
        { sharesToUpsert: [shareBlock(D, 1)], sharesToRemove: [{ communityId: D }] },
        ['sharesToRemove[0].communityId'],
        'cp',
      ],
      [
        'a circle both added and removed',
        { owner: ownerBlock(4, [ref(P_CIRCLE)], [ref(P_CIRCLE)]) },
        ['owner.circlesToRemove[0].circleId'],
        'cp',
      ],
    ];

    it.each(invalid)('given a resource, when the request has %s, then it is invalid', (_what, body, expected, kind) => {
      // The team and the owning admin together hold every right, so only the 400 rules speak.
      const everything = viewer(20, { team: true, admins: [O] });
      const history = kind === 'cp' ? cpResource : projectResource;

      given(history)
        .when(withContext(changePrivacy(body), context(everything)))
        .thenThrows(DomainError, refusal('validation', expected));
    });

    it('given a resource, when several blocks are invalid, then every invalid field is reported at once', () => {
      given(cpResource)
        .when(
          withContext(
            changePrivacy({ owner: ownerBlock(0), sharesToUpsert: [shareBlock(O, 1), shareBlock(N, 3)] }),
            context(owningAdmin),
          ),
        )
        .thenThrows(DomainError, (error) => {
          expect(fields(error)).toEqual([
            'owner.privacyLevel',
            'sharesToUpsert[0].communityId',
            'sharesToUpsert[1].privacyLevel',
          ]);
        });
    });

    it.each([1, 4])(
      'given a community-project resource, when it is shared at %p into a community the project is not in, then it is shared',
      (level) => {
        const circlesToAdd = level === 4 ? [ref(N_CIRCLE), ref(P_CIRCLE)] : [];
        const expected =
          level === 4 ? [shared(N, 4), granted(share(N), N_CIRCLE), granted(share(N), P_CIRCLE)] : [shared(N, 1)];

        given(cpResource)
          .when(
            withContext(changePrivacy({ sharesToUpsert: [shareBlock(N, level, circlesToAdd)] }), context(owningAdmin)),
          )
          .then(expected);
      },
    );

    it('given a Custom resource, when an inactive project circle is granted, then it is granted (it admits no one while inactive)', () => {
      given([created({ privacyLevel: 4 })])
        .when(withContext(changePrivacy({ owner: ownerBlock(4, [ref(P_INACTIVE_CIRCLE)]) }), context(team)))
        .then([granted(OWNER, P_INACTIVE_CIRCLE)]);
    });
  });

  describe('events', () => {
    it('given a Public resource, when the owner block moves to Custom with circles, then the level changes and the circles are granted', () => {
      const expected: ResourceEventData[] = [
        { type: 'OwnerPrivacyChanged', data: { resourceId: RID, privacyLevel: 4, lastUpdated: NOW } },
        { type: 'CircleGranted', data: { resourceId: RID, block: OWNER, circle: ref(P_CIRCLE) } },
        { type: 'CircleGranted', data: { resourceId: RID, block: OWNER, circle: ref(O_CIRCLE) } },
      ];
      const owner = ownerBlock(4, [ref(P_CIRCLE), ref(O_CIRCLE), ref(P_CIRCLE)]);

      given(cpResource)
        .when(withContext(changePrivacy({ owner }), context(owningAdmin)))
        .then(expected);
      const resource = resourceAfter([...cpResource, ...expected]);
      expect(resource.owner).toEqual({ privacyLevel: 4, circles: [ref(P_CIRCLE), ref(O_CIRCLE)] });
      expect(resource.lastUpdated).toBe(NOW);
    });

    it('given a Custom resource, when a circle is removed and another added, then the removal comes first', () => {
      const history = [created({ privacyLevel: 4 }), granted(OWNER, P_CIRCLE)];
      const owner = ownerBlock(4, [ref(O_CIRCLE)], [ref(P_CIRCLE), ref(MENTORS_CIRCLE)]);
      const expected = [revoked(OWNER, P_CIRCLE), granted(OWNER, O_CIRCLE)];

      given(history)
        .when(withContext(changePrivacy({ owner }), context(team)))
        .then(expected);
      expect(resourceAfter([...history, ...expected]).owner).toEqual({ privacyLevel: 4, circles: [ref(O_CIRCLE)] });
    });

    it('given a Custom resource with circles, when the owner block moves off Custom, then every circle is revoked before the level changes', () => {
      const history = [created({ privacyLevel: 4 }), granted(OWNER, P_CIRCLE), granted(OWNER, O_CIRCLE)];
      const expected = [revoked(OWNER, P_CIRCLE), revoked(OWNER, O_CIRCLE), ownerPrivacyChanged(1)];

      given(history)
        .when(withContext(changePrivacy({ owner: ownerBlock(1, [], [ref(P_CIRCLE)]) }), context(team)))
        .then(expected);
      expect(resourceAfter([...history, ...expected]).owner).toEqual({ privacyLevel: 1, circles: [] });
    });

    it('given a project resource, when the team shares it at Custom with the community’s circle, then the share and its grant are recorded', () => {
      const expected: ResourceEventData[] = [
        { type: 'ResourceShared', data: { resourceId: RID, communityId: D, privacyLevel: 4 } },
        { type: 'CircleGranted', data: { resourceId: RID, block: share(D), circle: ref(D_CIRCLE) } },
      ];

      given(projectResource)
        .when(withContext(changePrivacy({ sharesToUpsert: [shareBlock(D, 4, [ref(D_CIRCLE)])] }), context(team)))
        .then(expected);
      const resource = resourceAfter([...projectResource, ...expected]);
      expect(resource.shares).toEqual([{ communityId: D, privacyLevel: 4, circles: [ref(D_CIRCLE)] }]);
      expect(resource.owner).toEqual({ privacyLevel: 1, circles: [] });
    });

    it('given a Custom share, when it moves to Team, then its circles are revoked and the share survives', () => {
      const history = [...cpResource, shared(D, 4), granted(share(D), D_CIRCLE)];

      const expected: ResourceEventData[] = [
        { type: 'CircleRevoked', data: { resourceId: RID, block: share(D), circle: ref(D_CIRCLE) } },
        { type: 'SharePrivacyChanged', data: { resourceId: RID, communityId: D, privacyLevel: 3 } },
      ];

      given(history)
        .when(withContext(changePrivacy({ sharesToUpsert: [shareBlock(D, 3)] }), context(owningAdmin)))
        .then(expected);
      expect(resourceAfter([...history, ...expected]).shares).toEqual([
        { communityId: D, privacyLevel: 3, circles: [] },
      ]);
    });

    it('given a Custom share, when its last circle is removed, then the empty Custom share stays', () => {
      const history = [...cpResource, shared(D, 4), granted(share(D), D_CIRCLE)];

      given(history)
        .when(
          withContext(changePrivacy({ sharesToUpsert: [shareBlock(D, 4, [], [ref(D_CIRCLE)])] }), context(owningAdmin)),
        )
        .then(({ events, state }) => {
          expect(events).toEqual([revoked(share(D), D_CIRCLE)]);
          expect(resourceOf(state).shares).toEqual([{ communityId: D, privacyLevel: 4, circles: [] }]);
        });
    });

    it('given a shared resource, when an admin of the shared-into community removes the share, then it is gone with its circles', () => {
      const history = [...cpResource, shared(D, 4), granted(share(D), D_CIRCLE)];

      const expected = [unshared(D)];

      given(history)
        .when(withContext(changePrivacy({ sharesToRemove: [{ communityId: D }] }), context(sharedIntoAdmin)))
        .then(expected);
      expect(resourceAfter([...history, ...expected]).shares).toEqual([]);
    });

    it('given a resource, when every block changes at once, then owner events come first, then upserts, then removals', () => {
      const everything = viewer(20, { team: true, admins: [O] });
      const history = [...cpResource, shared(E, 1)];

      const request = changePrivacy({
        owner: ownerBlock(3),
        sharesToUpsert: [shareBlock(D, 5)],
        sharesToRemove: [{ communityId: E }],
      });

      given(history)
        .when(withContext(request, context(everything)))
        .then([ownerPrivacyChanged(3), shared(D, 5), unshared(E)]);
    });

    it('given any change applied once, when the same request is sent again, then nothing is emitted', () => {
      const everything = viewer(20, { team: true, admins: [O] });
      const history = [
        created({ privacyLevel: 4 }),
        granted(OWNER, P_CIRCLE),
        shared(D, 1),
        shared(E, 4),
        granted(share(E), E_CIRCLE),
      ];
      const request = changePrivacy({
        owner: ownerBlock(4, [ref(O_CIRCLE)], [ref(P_CIRCLE)]),
        sharesToUpsert: [shareBlock(D, 4, [ref(D_CIRCLE)]), shareBlock(N, 1), shareBlock(E, 3)],
        sharesToRemove: [{ communityId: 50 }],
      });

      // The first time, every block changes something; community 50 has no share to remove.
      const firstTime = [
        revoked(OWNER, P_CIRCLE),
        granted(OWNER, O_CIRCLE),
        sharePrivacyChanged(D, 4),
        granted(share(D), D_CIRCLE),
        shared(N, 1),
        revoked(share(E), E_CIRCLE),
        sharePrivacyChanged(E, 3),
      ];

      given(history)
        .when(withContext(request, context(everything)))
        .then(firstTime);
      given([...history, ...firstTime])
        .when(withContext(request, context(everything)))
        .thenNothingHappened();
    });

    it('given a request with no blocks, when it is decided, then nothing is emitted', () => {
      given(cpResource)
        .when(withContext(changePrivacy(), context(approvedMember)))
        .thenNothingHappened();
    });
  });
});

describe('ChangeResourcePrivacy: why a new share is made', () => {
  const cpResource = [created()];
  const shareWith = (reason: string | null | undefined) =>
    withContext(
      changePrivacy({ sharesToUpsert: [{ ...shareBlock(D, 1), ...(reason === undefined ? {} : { reason }) }] }),
      context(owningAdmin),
    );

  it.each<[string, string | null]>([
    ['a reason', 'for the water review'],
    ['a null reason', null],
  ])('given a resource, when it is shared with %s, then the share records it', (_what, reason) => {
    given(cpResource)
      .when(shareWith(reason))
      .then(({ events }) =>
        expect(events).toStrictEqual([
          { type: 'ResourceShared', data: { resourceId: RID, communityId: D, privacyLevel: 1, reason } },
        ]),
      );
  });

  it('given a resource, when it is shared without a reason, then the share records no reason field at all', () => {
    given(cpResource)
      .when(shareWith(undefined))
      .then(({ events }) =>
        expect(events).toStrictEqual([
          { type: 'ResourceShared', data: { resourceId: RID, communityId: D, privacyLevel: 1 } },
        ]),
      );
  });
});

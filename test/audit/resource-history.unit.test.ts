import type { StreamEvent } from '../../src/audit/resource-history';
import { describeChange, diffStates, resourceHistory, withShareReasons } from '../../src/audit/resource-history';
import { initialState } from '../../src/resources/resource-evolve';
import type { Actor } from '../../src/domain/event';
import type { ResourceEventData } from '../../src/resources/resource-events';
import {
  D,
  E,
  MENTORS_CIRCLE,
  OWNER,
  P_CIRCLE,
  RID,
  TEAM_CIRCLE,
  created,
  granted,
  revoked,
  share,
  shared,
} from '../resources/resource-fixtures';

/** A stream: each command is a list of events made by one actor under one correlation id. */
function stream(...commands: { actor: Actor; events: ResourceEventData[] }[]): StreamEvent[] {
  let revision = 0n;
  return commands.flatMap(({ actor, events }, i) =>
    events.map((e) => ({
      ...e,
      metadata: { actor, correlationId: `c${i}`, at: `2025-03-0${i + 1}T10:00:00.000Z` },
      revision: revision++,
    })),
  );
}
const ada: Actor = { userId: 1, credential: 'session' };
const bot: Actor = { userId: 3, credential: 'apiKey', apiKeyId: 42 };
const other = (type: string, data: object): ResourceEventData => ({ type, data }) as unknown as ResourceEventData;
/** A ResourceUpdated that sends back the fields `created()` holds, with `tags`. */
const updatedWithTags = (tags: string[]): ResourceEventData =>
  other('ResourceUpdated', {
    resourceId: RID,
    name: 'Pump manual',
    description: 'How to fix the pump',
    resourceUrl: 'resource_files/abc/manual.pdf',
    resourceType: 3,
    image: '',
    icon: 'book',
    tags,
    lastUpdated: 'x',
  });

describe('resourceHistory', () => {
  it('given a mentor creation with its circles, then one step: created, then the circles granted', () => {
    const steps = resourceHistory(
      stream({
        actor: ada,
        events: [
          created({ privacyLevel: 4, createdByMentor: true }),
          granted(OWNER, TEAM_CIRCLE),
          granted(OWNER, MENTORS_CIRCLE),
        ],
      }),
    );

    expect(steps).toHaveLength(1);
    expect(steps[0]).toMatchObject({ actor: ada, correlationId: 'c0', fromRevision: 0n, toRevision: 2n });
    expect(steps[0]!.changes).toEqual([
      expect.objectContaining({ kind: 'created', privacyLevel: 4, createdByMentor: true }),
      { kind: 'circlesGranted', block: 'owner', circleIds: [TEAM_CIRCLE, MENTORS_CIRCLE].sort((a, b) => a - b) },
    ]);
  });

  it('given a move off Custom, then the step lists the circles revoked before the level change', () => {
    const steps = resourceHistory(
      stream(
        { actor: ada, events: [created({ privacyLevel: 4 }), granted(OWNER, P_CIRCLE)] },
        {
          actor: ada,
          events: [
            revoked(OWNER, P_CIRCLE),
            other('OwnerPrivacyChanged', { resourceId: RID, privacyLevel: 3, lastUpdated: 'x' }),
          ],
        },
      ),
    );

    expect(steps[1]!.changes).toEqual([
      { kind: 'circlesRevoked', block: 'owner', circleIds: [P_CIRCLE] },
      { kind: 'levelChanged', block: 'owner', from: 4, to: 3 },
    ]);
  });

  it('given shares added, changed and removed by an API key, then each reads as such, with the credential', () => {
    const steps = resourceHistory(
      stream(
        { actor: ada, events: [created()] },
        { actor: bot, events: [shared(D, 1), shared(E, 4), granted(share(E), P_CIRCLE)] },
        { actor: bot, events: [other('SharePrivacyChanged', { resourceId: RID, communityId: D, privacyLevel: 2 })] },
        { actor: bot, events: [other('ResourceUnshared', { resourceId: RID, communityId: E })] },
      ),
    );

    expect(steps.map((s) => s.actor)).toEqual([ada, bot, bot, bot]);
    expect(steps[1]!.changes).toEqual([
      { kind: 'shareAdded', communityId: D, privacyLevel: 1 },
      { kind: 'shareAdded', communityId: E, privacyLevel: 4 },
      { kind: 'circlesGranted', block: { share: E }, circleIds: [P_CIRCLE] },
    ]);
    expect(steps[2]!.changes).toEqual([{ kind: 'levelChanged', block: { share: D }, from: 1, to: 2 }]);
    expect(steps[3]!.changes).toEqual([{ kind: 'shareRemoved', communityId: E, privacyLevel: 4 }]);
  });

  it('given an update and a deletion, then the edited fields and the deletion are listed', () => {
    const update = other('ResourceUpdated', {
      resourceId: RID,
      name: 'Pump manual v2',
      description: '',
      resourceUrl: 'https://example.org/v2.pdf',
      resourceType: 3,
      image: '',
      icon: '',
      tags: ['pump'],
      lastUpdated: 'x',
    });
    const steps = resourceHistory(
      stream(
        {
          actor: ada,
          events: [
            created({
              name: 'Pump manual',
              description: '',
              resourceUrl: 'https://example.org/v1.pdf',
              icon: '',
              tags: [],
            }),
          ],
        },
        { actor: ada, events: [update] },
        {
          actor: ada,
          events: [other('ResourceDeleted', { resourceId: RID, resourceUrl: 'https://example.org/v2.pdf' })],
        },
      ),
    );

    expect(steps[1]!.changes).toEqual([
      { kind: 'edited', field: 'name', from: 'Pump manual', to: 'Pump manual v2' },
      { kind: 'edited', field: 'resourceUrl', from: 'https://example.org/v1.pdf', to: 'https://example.org/v2.pdf' },
      { kind: 'edited', field: 'tags', from: [], to: ['pump'] },
    ]);
    expect(steps[2]!.changes).toEqual([{ kind: 'deleted' }]);
  });

  it('given one command with a circle granted and revoked and a share whose reason was recorded, then the step says so, and its revisions', () => {
    const steps = resourceHistory(
      stream(
        { actor: ada, events: [created({ privacyLevel: 4 }), granted(OWNER, P_CIRCLE), granted(OWNER, TEAM_CIRCLE)] },
        {
          actor: bot,
          events: [
            revoked(OWNER, TEAM_CIRCLE),
            granted(OWNER, MENTORS_CIRCLE),
            other('ResourceShared', { resourceId: RID, communityId: D, privacyLevel: 1, reason: 'for the D teams' }),
            other('ResourceShared', { resourceId: RID, communityId: E, privacyLevel: 1, reason: null }),
          ],
        },
      ),
    );

    expect(steps[1]).toEqual({
      at: '2025-03-02T10:00:00.000Z',
      actor: bot,
      correlationId: 'c1',
      fromRevision: 3n,
      toRevision: 6n,
      eventTypes: ['CircleRevoked', 'CircleGranted', 'ResourceShared', 'ResourceShared'],
      changes: [
        { kind: 'circlesRevoked', block: 'owner', circleIds: [TEAM_CIRCLE] },
        { kind: 'circlesGranted', block: 'owner', circleIds: [MENTORS_CIRCLE] },
        { kind: 'shareAdded', communityId: D, privacyLevel: 1, reason: 'for the D teams' },
        { kind: 'shareAdded', communityId: E, privacyLevel: 1 },
      ],
    });
  });

  it('given two users under one correlation id, then two steps; an event of another kind is listed but changes nothing', () => {
    const events = stream({ actor: ada, events: [created(), other('SomethingElse', { resourceId: RID })] });
    const byBot = { ...events[1]!, metadata: { ...events[1]!.metadata, actor: bot } };

    const steps = resourceHistory([events[0]!, byBot]);

    expect(steps.map((step) => [step.actor.userId, step.correlationId, step.eventTypes, step.changes])).toEqual([
      [ada.userId, 'c0', ['ResourceCreated'], [expect.objectContaining({ kind: 'created' })]],
      [bot.userId, 'c0', ['SomethingElse'], []],
    ]);
  });

  it('given an update that sends the same tags and fields, then no field reads as edited', () => {
    const same = updatedWithTags(['water']);

    const steps = resourceHistory(stream({ actor: ada, events: [created()] }, { actor: ada, events: [same] }));

    expect(steps[1]!.changes).toEqual([]);
  });

  it('given tags that only differ in how they would join, then they read as edited', () => {
    const steps = resourceHistory(
      stream(
        { actor: ada, events: [created({ tags: ['a,b'] })] },
        { actor: ada, events: [updatedWithTags(['a', 'b'])] },
      ),
    );

    expect(steps[1]!.changes).toEqual([{ kind: 'edited', field: 'tags', from: ['a,b'], to: ['a', 'b'] }]);
  });

  it('given an update that sends the same two tags, then the tags do not read as edited', () => {
    const retagged = updatedWithTags(['water', 'pump']);

    const steps = resourceHistory(
      stream({ actor: ada, events: [created({ tags: ['water', 'pump'] })] }, { actor: ada, events: [retagged] }),
    );

    expect(steps[1]!.changes).toEqual([]);
  });

  it('given circles granted and then revoked in descending order, then each step lists them in ascending order', () => {
    const steps = resourceHistory(
      stream(
        {
          actor: ada,
          events: [created({ privacyLevel: 4 }), granted(OWNER, MENTORS_CIRCLE), granted(OWNER, TEAM_CIRCLE)],
        },
        { actor: ada, events: [revoked(OWNER, MENTORS_CIRCLE), revoked(OWNER, TEAM_CIRCLE)] },
      ),
    );

    expect(steps.map((step) => step.changes.filter((c) => c.kind !== 'created'))).toEqual([
      [{ kind: 'circlesGranted', block: 'owner', circleIds: [TEAM_CIRCLE, MENTORS_CIRCLE] }],
      [{ kind: 'circlesRevoked', block: 'owner', circleIds: [TEAM_CIRCLE, MENTORS_CIRCLE] }],
    ]);
    expect(TEAM_CIRCLE).toBeLessThan(MENTORS_CIRCLE);
  });

  it('given a share made with a reason, removed, then made again without one, then the second share reads without the reason', () => {
    const steps = resourceHistory(
      stream(
        { actor: ada, events: [created()] },
        {
          actor: ada,
          events: [other('ResourceShared', { resourceId: RID, communityId: D, privacyLevel: 1, reason: 'first' })],
        },
        { actor: ada, events: [other('ResourceUnshared', { resourceId: RID, communityId: D })] },
        { actor: ada, events: [shared(D, 1)] },
      ),
    );

    expect(steps.slice(1).map((step) => step.changes)).toEqual([
      [{ kind: 'shareAdded', communityId: D, privacyLevel: 1, reason: 'first' }],
      [{ kind: 'shareRemoved', communityId: D, privacyLevel: 1 }],
      [{ kind: 'shareAdded', communityId: D, privacyLevel: 1 }],
    ]);
  });

  it('given a step whose events hold a reason for one new share only, then only that share carries a reason field', () => {
    const changes = withShareReasons(
      [
        { kind: 'shareAdded', communityId: D, privacyLevel: 1 },
        { kind: 'shareAdded', communityId: E, privacyLevel: 3 },
      ],
      [
        { type: 'ResourceShared', data: { resourceId: RID, communityId: D, privacyLevel: 1, reason: 'why' } },
        { type: 'ResourceShared', data: { resourceId: RID, communityId: E, privacyLevel: 3 } },
      ],
    );

    expect(changes).toStrictEqual([
      { kind: 'shareAdded', communityId: D, privacyLevel: 1, reason: 'why' },
      { kind: 'shareAdded', communityId: E, privacyLevel: 3 },
    ]);
  });

  it('given no resource before or after, then there is no change', () => {
    expect(diffStates(initialState, initialState)).toEqual([]);
  });

  it('given a creation, then it reads with its scope, paragraph, name, URL, level and mentor flag', () => {
    const steps = resourceHistory(stream({ actor: ada, events: [created({ paragraphId: 9 })] }));

    expect(steps[0]!.changes).toEqual([
      {
        kind: 'created',
        scope: { kind: 'communityProject', projectId: 7, communityId: 10, communityProjectId: 100 },
        paragraphId: 9,
        name: 'Pump manual',
        resourceUrl: 'resource_files/abc/manual.pdf',
        privacyLevel: 1,
        createdByMentor: false,
      },
    ]);
  });

  it('given a deletion seen twice, then only the first reads as deleted', () => {
    const remove = other('ResourceDeleted', { resourceId: RID, resourceUrl: 'resource_files/abc/manual.pdf' });

    const steps = resourceHistory(
      stream({ actor: ada, events: [created()] }, { actor: ada, events: [remove] }, { actor: ada, events: [remove] }),
    );

    expect(steps.map((step) => step.changes)).toEqual([
      [expect.objectContaining({ kind: 'created' })],
      [{ kind: 'deleted' }],
      [],
    ]);
  });
});

describe('describeChange', () => {
  it.each<[Parameters<typeof describeChange>[0], string]>([
    [
      {
        kind: 'created',
        scope: { kind: 'project', projectId: 7 },
        paragraphId: null,
        name: 'Pump',
        resourceUrl: 'u/v/w.pdf',
        privacyLevel: 3,
        createdByMentor: false,
      },
      'created "Pump" (u/v/w.pdf) in project 7 at level 3',
    ],
    [
      {
        kind: 'created',
        scope: { kind: 'communityProject', projectId: 7, communityId: 10, communityProjectId: 100 },
        paragraphId: 2,
        name: 'Pump',
        resourceUrl: 'u/v/w.pdf',
        privacyLevel: 1,
        createdByMentor: true,
      },
      'created "Pump" (u/v/w.pdf) in project 7 in community 10 at level 1',
    ],
    [{ kind: 'edited', field: 'tags', from: ['a'], to: ['a', 'b'] }, 'tags changed from ["a"] to ["a","b"]'],
    [{ kind: 'levelChanged', block: 'owner', from: 4, to: 3 }, 'own privacy: level 4 -> 3'],
    [{ kind: 'levelChanged', block: { share: 20 }, from: 1, to: 2 }, 'share into community 20: level 1 -> 2'],
    [{ kind: 'circlesGranted', block: 'owner', circleIds: [71, 72] }, 'own privacy: circles granted 71, 72'],
    [
      { kind: 'circlesRevoked', block: { share: 30 }, circleIds: [501] },
      'share into community 30: circles revoked 501',
    ],
    [{ kind: 'shareAdded', communityId: 20, privacyLevel: 1 }, 'shared into community 20 at level 1'],
    [
      { kind: 'shareAdded', communityId: 20, privacyLevel: 1, reason: 'for the D teams' },
      'shared into community 20 at level 1: for the D teams',
    ],
    [{ kind: 'shareAdded', communityId: 20, privacyLevel: 1, reason: '' }, 'shared into community 20 at level 1'],
    [{ kind: 'shareRemoved', communityId: 30, privacyLevel: 4 }, 'share into community 30 removed (was level 4)'],
    [{ kind: 'deleted' }, 'deleted'],
  ])('given %j, then the line %j', (change, line) => {
    expect(describeChange(change)).toBe(line);
  });
});

import type { StreamEvent } from '../../src/audit/resource-history';
import { describeChange, resourceHistory } from '../../src/audit/resource-history';
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
} from './resource-fixtures';

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

  it('describes every change in one line', () => {
    expect(describeChange({ kind: 'shareAdded', communityId: D, privacyLevel: 1 })).toContain(`community ${D}`);
    expect(describeChange({ kind: 'deleted' })).toBe('deleted');
  });
});

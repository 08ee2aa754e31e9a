import { evolve, foldResource, initialState } from '../../src/resources/resource-evolve';
import { RESOURCE_EVENT_TYPES, resourceStreamId } from '../../src/resources/resource-events';
import { D, D_CIRCLE, OWNER, P_CIRCLE, RID, created, granted, revoked, share, shared } from './resource-fixtures';

describe('evolve', () => {
  it('given a share with circles, when it is unshared, then the share and its circles are gone', () => {
    const state = foldResource([
      created(),
      shared(D, 4),
      granted(share(D), D_CIRCLE),
      { type: 'ResourceUnshared', data: { resourceId: RID, communityId: D } },
    ]);

    expect(state.status === 'active' && state.resource.shares).toEqual([]);
  });

  it('given a granted circle, when it is granted again or revoked, then it is listed once, then not at all', () => {
    const twice = foldResource([created({ privacyLevel: 4 }), granted(OWNER, P_CIRCLE), granted(OWNER, P_CIRCLE)]);
    const gone = foldResource([created({ privacyLevel: 4 }), granted(OWNER, P_CIRCLE), revoked(OWNER, P_CIRCLE)]);

    expect(twice.status === 'active' && twice.resource.owner.circles.length).toBe(1);
    expect(gone.status === 'active' && gone.resource.owner.circles).toEqual([]);
  });

  it('given no resource, when an event other than its creation arrives, then the state stays initial', () => {
    expect(evolve(initialState, shared(D, 1))).toBe(initialState);
  });

  it.each([
    ['an active resource', [created()]],
    [
      'a deleted resource',
      [created(), { type: 'ResourceDeleted' as const, data: { resourceId: RID, resourceUrl: 'x' } }],
    ],
  ])('given %s, when it is created again, then the state is unchanged', (_what, history) => {
    const before = foldResource(history);

    expect(evolve(before, created({ name: 'another', privacyLevel: 5 }))).toBe(before);
  });

  it('given a share into D, when D is shared again at another level, then the share stays as it was, once', () => {
    const state = foldResource([created(), shared(D, 1), shared(D, 3)]);

    expect(state.status === 'active' && state.resource.shares).toEqual([
      { communityId: D, privacyLevel: 1, circles: [] },
    ]);
  });

  it('given a stream with events of other types, then they are skipped', () => {
    const state = foldResource([created(), { type: 'SomethingElse', data: {} }]);

    expect(state.status).toBe('active');
  });

  it('names the stream and lists every event type', () => {
    expect(resourceStreamId(12)).toBe('resource-12');
    expect(RESOURCE_EVENT_TYPES).toHaveLength(9);
  });
});

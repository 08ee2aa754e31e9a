import { EVENT_CATALOG } from '../../src/app/event-catalog';
import {
  currentVersionOf as currentVersionIn,
  storedVersionOf,
  upcastData as upcastIn,
} from '../../src/domain/event-upcasting';

const upcastData = (type: string, data: unknown, version: number) => upcastIn(EVENT_CATALOG, type, data, version);
const currentVersionOf = (type: string) => currentVersionIn(EVENT_CATALOG, type);
import { RESOURCE_EVENT_SCHEMAS } from '../../src/resources/resource-event-schemas';

/** The catalog of event versions and its upcasters, pure. */
describe('event versions and upcasting', () => {
  const sharedV1 = { resourceId: 7, communityId: 2, privacyLevel: 1 };

  it('given a ResourceShared of version 1, when it is upcast, then it reads as version 2 with no reason', () => {
    // when
    const current = upcastData('ResourceShared', sharedV1, 1);
    // then
    expect(current).toEqual({ ...sharedV1, reason: null });
    expect(RESOURCE_EVENT_SCHEMAS.ResourceShared.safeParse(current).success).toBe(true);
    expect(RESOURCE_EVENT_SCHEMAS.ResourceShared.safeParse(sharedV1).success).toBe(false);
  });

  it('given a ResourceShared of version 1, when it is upcast, then the stored data is left as it was', () => {
    const stored = { ...sharedV1 };
    upcastData('ResourceShared', stored, 1);
    expect(stored).toEqual(sharedV1);
  });

  it('given an event already at its current version, when it is upcast, then the very same data comes back', () => {
    const data = { ...sharedV1, reason: 'partners' };
    expect(upcastData('ResourceShared', data, 2)).toBe(data);
    const created = { id: 3 };
    expect(upcastData('IdAllocated', created, 1)).toBe(created);
  });

  it.each([
    ['an unknown type', 'SomethingElse', 1],
    ['a version newer than this code knows', 'ResourceShared', 9],
  ])('given %s, when it is upcast, then it is left as it is', (_case, type, version) => {
    const data = { x: 1 };
    expect(upcastData(type, data, version)).toBe(data);
  });

  it.each([
    [undefined, 1],
    [{}, 1],
    [{ schemaVersion: 2 }, 2],
    [{ schemaVersion: 'two' }, 1],
    [{ schemaVersion: 0 }, 1],
  ])('given metadata %j, then the stored version is %i', (metadata, version) => {
    expect(storedVersionOf(metadata)).toBe(version);
  });

  it('given an ApiKeyCreated of version 1, when it is upcast, then it reads as a full key with the service limit (null)', () => {
    const createdV1 = {
      userId: 3,
      id: 1,
      keyId: 'svc_live_1',
      name: 'ci',
      secretHash: 'h',
      createdAt: '2025-01-01T00:00:00.000Z',
      expiresAt: '2025-04-01T00:00:00.000Z',
    };

    const current = upcastData('ApiKeyCreated', createdV1, 1);

    expect(current).toEqual({ ...createdV1, readOnly: false, ratePerHour: null });
    expect(EVENT_CATALOG.get('ApiKeyCreated')?.schema.safeParse(current).success).toBe(true);
    expect(EVENT_CATALOG.get('ApiKeyCreated')?.schema.safeParse(createdV1).success).toBe(false);
    expect(currentVersionOf('ApiKeyCreated')).toBe(2);
  });

  it('given the catalog, then ResourceShared is at version 2 and the types never changed are at 1', () => {
    expect(currentVersionOf('ResourceShared')).toBe(2);
    expect(currentVersionOf('ResourceCreated')).toBe(1);
    expect(currentVersionOf('UserUpserted')).toBe(1);
    expect(currentVersionOf('NotAType')).toBe(1);
  });

  it('given the catalog, then it lists every type the service stores (34)', () => {
    expect(EVENT_CATALOG.size).toBe(34);
  });
});

/**
 * The resources projection, given / when / then over a fresh SQLite read model: which resource
 * and which views the store answers after the events, and that applying them again changes nothing.
 */
import { DIRECTORY_STREAM } from '../../src/directory/directory-events';
import { resourceStreamId } from '../../src/resources/resource-events';
import type { ResourceViewStore } from '../../src/resources/resource-view-store';
import { CP_ID, D, NOW, O, OWNER, P, RID, created, granted, projectScope, shared } from './resource-fixtures';
import { ProjectionSpecification, onStream } from '../support/projection-specification';

const given = ProjectionSpecification.for('resources');
const resource = (...events: { type: string; data: unknown }[]) => onStream(resourceStreamId(RID), ...events);
const linked = (communityProjectId: number, communityId: number) =>
  onStream(DIRECTORY_STREAM, {
    type: 'CommunityProjectUpserted',
    data: { communityProjectId, communityId, projectId: P },
  });
const unlinked = (communityProjectId: number) =>
  onStream(DIRECTORY_STREAM, { type: 'CommunityProjectRemoved', data: { communityProjectId } });
const D_LINK = 200;

/** Each view of the resource as [viewKey, governed by, effective level], in viewKey order (c:10 < c:20 < p:7). */
const views = async (store: ResourceViewStore) =>
  (await store.viewsOfResource(RID)).map((v) => [v.viewKey, v.governedBy, v.effectivePrivacyLevel]).sort();

describe('resources projection', () => {
  it('given project P in communities O and D, when a community-project resource of O is created, then it is stored with the one view of O', () =>
    given([...linked(CP_ID, O), ...linked(D_LINK, D)])
      .when(resource(created({ privacyLevel: 2 })))
      .then(async (store) => {
        expect(await store.resource(RID)).toMatchObject({
          resourceId: RID,
          name: 'Pump manual',
          owner: { privacyLevel: 2, circles: [] },
          shares: [],
        });
        expect(await views(store)).toEqual([[`c:${O}`, 'own', 2]]);
      }));

  it('given project P in communities O and D, when a project resource is created, then it has the project-wide view and one per community', () =>
    given([...linked(CP_ID, O), ...linked(D_LINK, D)])
      .when(resource(created({ scope: projectScope, privacyLevel: 3 })))
      .then(async (store) => {
        expect(await views(store)).toEqual([
          [`c:${O}`, 'own', 3],
          [`c:${D}`, 'own', 3],
          [`p:${P}`, 'own', 3],
        ]);
      }));

  it('given a community-project resource of O, when it is shared into D with a circle granted, then D has a view governed by the share', () =>
    given([...linked(CP_ID, O), ...linked(D_LINK, D), ...resource(created())])
      .when(resource(shared(D, 4), granted({ kind: 'share', communityId: D }, 602)))
      .then(async (store) => {
        expect(await views(store)).toEqual([
          [`c:${O}`, 'own', 1],
          [`c:${D}`, 'share', 4],
        ]);
        const [share] = (await store.resource(RID))?.shares ?? [];
        expect(share).toMatchObject({ communityId: D, privacyLevel: 4 });
        expect(share?.circles.map((c) => c.circleId)).toEqual([602]);
      }));

  it('given a resource, when it is updated and its own privacy changes, then the store answers the new content and level', () =>
    given([...linked(CP_ID, O), ...resource(created())])
      .when(
        resource(
          {
            type: 'ResourceUpdated',
            data: {
              resourceId: RID,
              name: 'Pump manual v2',
              description: 'Now with pictures',
              resourceUrl: 'https://example.org/v2',
              icon: 'book',
              tags: ['pump'],
              resourceType: 0,
              image: '',
              lastUpdated: NOW,
            },
          },
          { type: 'OwnerPrivacyChanged', data: { resourceId: RID, privacyLevel: 4, lastUpdated: NOW } },
          granted(OWNER, 601),
        ),
      )
      .then(async (store) => {
        expect(await store.resource(RID)).toMatchObject({
          name: 'Pump manual v2',
          tags: ['pump'],
          lastUpdated: NOW,
          owner: { privacyLevel: 4 },
        });
        expect((await store.viewsOfResource(RID)).map((v) => v.circles.map((c) => c.circleId))).toEqual([[601]]);
      }));

  it('given a resource, when it is deleted, then the store answers no resource and no view, and keeps a tombstone', () =>
    given([...linked(CP_ID, O), ...resource(created())])
      .when(
        resource({ type: 'ResourceDeleted', data: { resourceId: RID, resourceUrl: 'resource_files/abc/manual.pdf' } }),
      )
      .then(async (store) => {
        expect(await store.resource(RID)).toBeNull();
        expect(await store.viewsOfResource(RID)).toEqual([]);
        expect((await store.stored(RID))?.resource).toBeNull();
      }));

  it('given a project resource of P in O and D, when P leaves D, then its view of D goes and the link is recorded as removed', () =>
    given([...linked(CP_ID, O), ...linked(D_LINK, D), ...resource(created({ scope: projectScope }))])
      .when(unlinked(D_LINK))
      .then(async (store) => {
        expect(await views(store)).toEqual([
          [`c:${O}`, 'own', 1],
          [`p:${P}`, 'own', 1],
        ]);
        expect(await store.projectCommunities(P)).toEqual([O]);
        expect(await store.projectLink(D_LINK)).toMatchObject({ communityId: D, projectId: P, removed: true });
      }));

  it('given no resource, when an update arrives for it, then nothing is stored', () =>
    given([])
      .when(resource({ type: 'OwnerPrivacyChanged', data: { resourceId: RID, privacyLevel: 4, lastUpdated: NOW } }))
      .then(async (store) => {
        expect(await store.stored(RID)).toBeNull();
      }));
});

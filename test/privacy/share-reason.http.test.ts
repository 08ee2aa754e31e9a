import { demo, demoDirectory } from '../support/demo-directory';
import type { TestServer } from '../support/test-server';
import { startTestServer } from '../support/test-server';

/**
 * A share records why it was made (ResourceShared version 2): SaveResourcePrivacy's
 * `sharesToUpsert[].reason`, shown in the resource's audit history.
 */
const { users, communities, communityProjects } = demo;

describe('share reasons', () => {
  let server: TestServer;
  let resourceId: number;
  const as = async (userId: number) => ({ token: await server.sessionToken(userId) });

  beforeAll(async () => {
    server = await startTestServer();
    expect((await server.directory(demoDirectory.events)).status).toBe(200);
  });
  afterAll(() => server.close());

  beforeEach(async () => {
    const created = await server.post(
      '/api/Resource/SaveProjectResource',
      {
        id: 0,
        name: 'Deck',
        resourceUrl: 'https://example.org/deck.pdf',
        privacyLevel: 2,
        communityProjectId: communityProjects.solarIn1,
      },
      await as(users.team),
    );
    expect(created.status).toBe(200);
    resourceId = created.body.id;
  });

  const share = async (extra: Record<string, unknown>) =>
    server.post(
      '/api/Privacy/SaveResourcePrivacy',
      { resourceId, sharesToUpsert: [{ communityId: communities.private2, privacyLevel: 1, ...extra }] },
      await as(users.admin1),
    );
  const history = async () => server.get(`/api/audit/resources/${resourceId}/history`, await as(users.auditor));
  const sharedEvents = async () => {
    const query = new URLSearchParams({ stream: `resource-${resourceId}`, type: 'ResourceShared' });
    return (await server.get(`/api/audit/events?${query}`, await as(users.auditor))).body.items;
  };

  it('given a resource, when it is shared with a reason, then its ResourceShared and its history say why', async () => {
    // when
    expect((await share({ reason: 'Harbour Founders mentor the kiosk' })).status).toBe(200);
    // then
    expect((await sharedEvents())[0].data).toEqual({
      resourceId,
      communityId: communities.private2,
      privacyLevel: 1,
      reason: 'Harbour Founders mentor the kiosk',
    });
    const steps = (await history()).body.steps;
    const added = steps
      .flatMap((s: { changes: { kind: string }[] }) => s.changes)
      .find((c: { kind: string }) => c.kind === 'shareAdded');
    expect(added).toMatchObject({ communityId: communities.private2, reason: 'Harbour Founders mentor the kiosk' });
  });

  it('given a resource, when it is shared without a reason, then the event records none and the history shows none', async () => {
    expect((await share({})).status).toBe(200);
    expect((await sharedEvents())[0].data.reason).toBeNull();
    const steps = (await history()).body.steps;
    const added = steps
      .flatMap((s: { changes: { kind: string }[] }) => s.changes)
      .find((c: { kind: string }) => c.kind === 'shareAdded');
    expect(added).toBeDefined();
    expect(added).not.toHaveProperty('reason');
  });

  it.each([
    ['empty', ''],
    ['longer than 500 characters', 'x'.repeat(501)],
    ['not a string', 42],
  ])(
    'given a reason %s, when the share is asked, then 400 naming sharesToUpsert[0].reason and nothing is shared',
    async (_case, reason) => {
      const res = await share({ reason });
      expect(res.status).toBe(400);
      expect(res.body.type).toBe('/problems/validation');
      expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['sharesToUpsert[0].reason']);
      expect(await sharedEvents()).toEqual([]);
    },
  );
});

/**
 * `format=csv` on every audit list: RFC 4180 text with a header row, sent as a download, holding
 * the values of the JSON answer; an unknown format is a 400 naming `format`.
 */
import { demo, demoDirectory } from '../support/demo-directory';
import type { TestServer } from '../support/test-server';
import { startTestServer } from '../support/test-server';
import { csvObjects, parseCsv } from '../support/csv-records';

const asObjects = csvObjects;

describe('audit lists as CSV', () => {
  let server: TestServer;
  let auditor: string;
  let resourceId: number;
  const name = 'Budget, "draft"\nv2';

  const csv = async (path: string, token = auditor) => {
    const res = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
    return { res, text: await res.text() };
  };

  beforeAll(async () => {
    server = await startTestServer();
    expect((await server.directory(demoDirectory.events)).status).toBe(200);
    const team = { token: await server.sessionToken(demo.users.team) };
    const saved = await server.post(
      '/api/Resource/SaveProjectResource',
      { id: 0, name, resourceUrl: 'https://example.org/b.xlsx', privacyLevel: 2, communityProjectId: 1000 },
      team,
    );
    expect(saved.status).toBe(200);
    resourceId = saved.body.id;
    const shared = await server.post(
      '/api/Privacy/SaveResourcePrivacy',
      {
        resourceId,
        sharesToUpsert: [{ communityId: demo.communities.private2, privacyLevel: 1, reason: 'review, "now"' }],
      },
      { token: await server.sessionToken(demo.users.admin1) },
    );
    expect(shared.status).toBe(200);
    auditor = await server.sessionToken(demo.users.auditor);
  });
  afterAll(() => server.close());

  it('given the event log with format=csv, then a text/csv download whose rows are the JSON page, quoted where needed', async () => {
    const query = `stream=resource-${resourceId}`;
    const json = await server.get(`/api/audit/events?${query}`, { token: auditor });
    const { res, text } = await csv(`/api/audit/events?${query}&format=csv`);

    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="audit-events-\d+\.csv"$/);
    expect(res.headers.get('audit-has-more')).toBe('false');
    expect(res.headers.get('audit-next')).toBe(json.body.next);
    expect(text.endsWith('\r\n')).toBe(true);
    expect(text.replaceAll('\r\n', '').includes('\r')).toBe(false);
    const rows = asObjects(parseCsv(text));
    expect(rows.map((r) => [r.position, r.type, r.actorUserId, r.credential, r.correlationId])).toEqual(
      json.body.items.map((e: any) => [
        e.position,
        e.type,
        String(e.metadata.actor.userId),
        e.metadata.actor.credential,
        e.metadata.correlationId,
      ]),
    );
    expect(JSON.parse(rows[0]!.data!)).toEqual(json.body.items[0].data);
    expect(JSON.parse(rows[0]!.data!).name).toBe(name);
  });

  it("given a resource's history with format=csv, then one row per change saying who, when, with which credential, what", async () => {
    const { res, text } = await csv(`/api/audit/resources/${resourceId}/history?format=csv`);
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="resource-${resourceId}-history.csv"`);
    const rows = asObjects(parseCsv(text));
    expect(rows.map((r) => [r.actorUserId, r.credential, r.change])).toEqual([
      [String(demo.users.team), 'session', 'created'],
      [String(demo.users.admin1), 'session', 'shareAdded'],
    ]);
    expect(rows[1]!.description).toBe(`shared into community ${demo.communities.private2} at level 1: review, "now"`);
    expect(rows[1]!.actorName).toBe('Cleo Park');
  });

  it('given the access reviews with format=csv, then one row per view and user, or per view and resource, with the reasons', async () => {
    const byResource = await csv(`/api/audit/resources/${resourceId}/access?format=csv`);
    expect(byResource.res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const users = asObjects(parseCsv(byResource.text));
    expect(users).toContainEqual(
      expect.objectContaining({
        viewKey: `c:${demo.communities.private2}`,
        userId: String(demo.users.admin2),
        governedBy: 'share',
        reasonKinds: 'administersView reach',
      }),
    );

    const byPerson = await csv(`/api/audit/users/${demo.users.admin2}/access?format=csv`);
    expect(byPerson.res.headers.get('content-disposition')).toMatch(
      new RegExp(`^attachment; filename="user-${demo.users.admin2}-access-[0-9TZ-]+\\.csv"$`),
    );
    const seen = asObjects(parseCsv(byPerson.text));
    expect(seen).toContainEqual(
      expect.objectContaining({ resourceId: String(resourceId), resourceName: name, communityId: '2' }),
    );
  });

  it('given an unknown format, then 400 naming format; given a non-auditor, then 403 and no CSV', async () => {
    for (const path of [
      '/api/audit/events?format=xlsx',
      `/api/audit/resources/${resourceId}/history?format=xml`,
      `/api/audit/resources/${resourceId}/access?format=CSV`,
      `/api/audit/users/${demo.users.member1}/access?format=tsv`,
    ]) {
      const res = await server.get(path, { token: auditor });
      expect({ path, status: res.status, fields: res.body.errors?.map((e: { field: string }) => e.field) }).toEqual({
        path,
        status: 400,
        fields: ['format'],
      });
    }
    const refused = await csv('/api/audit/events?format=csv', await server.sessionToken(demo.users.team));
    expect(refused.res.status).toBe(403);
    expect(refused.res.headers.get('content-type')).toContain('application/problem+json');
  });
});

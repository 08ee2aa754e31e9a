/**
 * The CLI's audit reads through the HTTP API, as a person: `resources-cli audit --api <url>` with
 * the auditor's token (RESOURCES_TOKEN) or API key (RESOURCES_API_KEY) in the environment answers
 * what the API answers, every read recorded under that auditor, not the platform (`audit-0`), and
 * needs no store credentials; a credential without the auditor role is refused as the API refuses it.
 */
import { demo, demoDirectory } from '../support/demo-directory';
import { redirectingServer } from '../support/redirecting-server';
import { cli } from '../support/service-process';
import { startTestServer, type TestServer } from '../support/test-server';

type AuditItem = { position: string; streamId: string; type: string; data: Record<string, unknown> };

describe('resources-cli audit --api', () => {
  jest.setTimeout(90_000);
  let server: TestServer;
  let resourceId: number;
  // No DATA_DIR, no store URL: the CLI is given the service's address and a person's credential only.
  const asPerson = (credential: Record<string, string>) => ({
    DATA_DIR: '/nonexistent/no-stores-here',
    RESOURCES_API_URL: '',
    ...credential,
  });
  const jsonLines = (text: string) =>
    text
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as unknown);
  // The reads recorded under a person that asked for one resource's stream: this test's own
  // look-ups ask for the audit stream, so they are not counted and cannot make the check pass.
  const streamReadsOf = async (userId: number, stream: string) =>
    (
      await server.get<{ items: AuditItem[] }>(`/api/audit/events?stream=audit-${userId}&limit=1000`, {
        token: await server.token(demo.users.auditor),
      })
    ).body.items.filter(
      (e) => e.data.route === 'GET /api/audit/events' && (e.data.params as { stream?: string }).stream === stream,
    );

  beforeAll(async () => {
    server = await startTestServer();
    await server.directory(demoDirectory.events);
    const saved = await server.post(
      '/api/Resource/SaveProjectResource',
      {
        id: 0,
        name: 'plan',
        resourceUrl: 'https://example.org/plan.pdf',
        privacyLevel: 2,
        communityProjectId: demo.communityProjects.solarIn1,
      },
      { token: await server.token(demo.users.team) },
    );
    resourceId = saved.body.id as number;
  });
  afterAll(() => server.close());

  it("given an auditor's token, when the CLI lists a resource's events over the API, then it prints the API's records and the read is recorded under the auditor", async () => {
    // given
    const env = asPerson({ RESOURCES_TOKEN: await server.token(demo.users.auditor) });
    const stream = `resource-${resourceId}`;
    const before = await streamReadsOf(demo.users.auditor, stream);
    const platformBefore = await streamReadsOf(0, stream);
    // when
    const printed = jsonLines(
      await cli(env, 'audit', 'events', '--api', server.url, '--stream', stream),
    ) as AuditItem[];
    // then: the CLI's read is recorded under the auditor and not under the platform; counted
    // before this test asks the API for the same stream itself
    const after = await streamReadsOf(demo.users.auditor, stream);
    expect(after.length).toBeGreaterThan(before.length);
    expect(await streamReadsOf(0, stream)).toHaveLength(platformBefore.length);
    const answered = (
      await server.get<{ items: AuditItem[] }>(`/api/audit/events?stream=resource-${resourceId}`, {
        token: await server.token(demo.users.auditor),
      })
    ).body.items;
    expect(printed.length).toBeGreaterThan(0);
    expect(printed).toEqual(answered);
  });

  it('given an auditor, when the CLI asks over the API for a history, an access review and a person’s access, then each answers as the API does', async () => {
    const env = asPerson({ RESOURCES_TOKEN: await server.token(demo.users.auditor) });
    const auditor = { token: await server.token(demo.users.auditor) };

    const history = jsonLines(await cli(env, 'audit', 'history', String(resourceId), '--api', server.url));
    const at = new Date().toISOString();
    const access = jsonLines(await cli(env, 'audit', 'access', String(resourceId), '--at', at, '--api', server.url));
    const person = jsonLines(
      await cli(env, 'audit', 'access-of', String(demo.users.team), '--at', at, '--api', server.url),
    );

    expect(history).toEqual((await server.get(`/api/audit/resources/${resourceId}/history`, auditor)).body.steps);
    expect(access).toEqual([(await server.get(`/api/audit/resources/${resourceId}/access?at=${at}`, auditor)).body]);
    expect(person).toEqual([(await server.get(`/api/audit/users/${demo.users.team}/access?at=${at}`, auditor)).body]);
  });

  it("given an auditor's API key, when the CLI lists events over the API, then it prints them and the read is recorded under the auditor; a key without the role is refused", async () => {
    // given: a key of the auditor's, and one of a community admin without the role (creating a
    // key takes administering a community: the auditor is made an admin of community 3)
    const admin = await server.directory([
      {
        type: 'CommunityMemberSet',
        data: { communityId: demo.communities.public3, userId: demo.users.auditor, role: 'admin', status: 'approved' },
      },
    ]);
    expect(admin.status).toBe(200);
    const keyOf = async (userId: number) => {
      const created = await server.post<{ key: string }>(
        '/api/apikey',
        { name: 'cli' },
        { token: await server.sessionToken(userId) },
      );
      expect(created.status).toBe(200);
      return created.body.key;
    };
    const stream = `resource-${resourceId}`;
    const auditorKey = await keyOf(demo.users.auditor);
    const before = await streamReadsOf(demo.users.auditor, stream);
    // when
    const printed = jsonLines(
      await cli(
        asPerson({ RESOURCES_API_KEY: auditorKey }),
        'audit',
        'events',
        '--api',
        server.url,
        '--stream',
        stream,
      ),
    ) as AuditItem[];
    const refused = cli(
      asPerson({ RESOURCES_API_KEY: await keyOf(demo.users.admin1) }),
      'audit',
      'events',
      '--api',
      server.url,
    );
    // then
    expect(printed.map((e) => e.streamId)).toEqual(printed.map(() => stream));
    expect(printed.length).toBeGreaterThan(0);
    expect((await streamReadsOf(demo.users.auditor, stream)).length).toBeGreaterThan(before.length);
    await expect(refused).rejects.toMatchObject({ code: 1, stdout: '', stderr: expect.stringContaining('403') });
  });

  it('given a token without the auditor role, then the CLI is refused as the API refuses it, exit code 1, nothing printed', async () => {
    const env = asPerson({ RESOURCES_TOKEN: await server.token(demo.users.team) });

    const refused = cli(env, 'audit', 'events', '--api', server.url);

    await expect(refused).rejects.toMatchObject({ code: 1, stdout: '', stderr: expect.stringContaining('403') });
  });

  it('given --api and no credential in the environment, then it is a usage error naming the variables, exit code 2', async () => {
    const refused = cli(
      asPerson({ RESOURCES_TOKEN: '', RESOURCES_API_KEY: '' }),
      'audit',
      'events',
      '--api',
      server.url,
    );

    await expect(refused).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('RESOURCES_TOKEN') });
  });

  it('given an address that redirects elsewhere, then the CLI does not follow it: the API key reaches no other host, and it says where the redirect led, exit code 1', async () => {
    const redirecting = await redirectingServer();
    try {
      const env = asPerson({ RESOURCES_API_KEY: 'rk_live_not-a-real-key-but-a-secret-all-the-same' });

      const followed = cli(env, 'audit', 'events', '--api', redirecting.url);

      await expect(followed).rejects.toMatchObject({
        code: 1,
        stdout: '',
        stderr: expect.stringContaining(`a redirect to ${redirecting.elsewhereUrl}/api/audit/events`),
      });
      expect(redirecting.reached).toEqual([]);
    } finally {
      await redirecting.close();
    }
  });
});

/**
 * `resources-cli rebuild --api <url>`: the CLI asks the running service for a rebuild job with the
 * operator credential and follows it to its end, needing no store; the job runs in the service,
 * so its metrics count it. A refused credential, a missing one and a bad address each say so.
 */
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { demoDirectory } from '../support/demo-directory';
import { redirectingServer } from '../support/redirecting-server';
import { cli } from '../support/service-process';
import { startTestServer, type TestServer } from '../support/test-server';

describe('resources-cli rebuild --api', () => {
  jest.setTimeout(90_000);
  let server: TestServer;
  const metricsToken = randomBytes(32).toString('base64url');
  const operatorToken = randomBytes(32).toString('base64url');
  const succeeded = 'read_model_rebuilds_total{outcome="succeeded"}';
  const metric = async (series: string) => {
    const scraped = await server.get('/internal/metrics', { headers: { authorization: `Bearer ${metricsToken}` } });
    expect(scraped.status).toBe(200);
    const line = scraped.text.split('\n').find((l) => l.startsWith(`${series} `));
    return line === undefined ? 0 : Number(line.slice(series.length + 1));
  };
  // No DATA_DIR, no store URL: the CLI is given the service's address and the operator credential only.
  const asOperator = (token: string) => ({ DATA_DIR: '/nonexistent/no-stores-here', DIRECTORY_SYNC_TOKEN: token });

  beforeAll(async () => {
    server = await startTestServer({ METRICS_TOKEN: metricsToken, OPERATOR_TOKENS: `ana=${operatorToken}` });
    await server.directory(demoDirectory.events);
  });
  afterAll(() => server.close());

  it('given the operator credential, when the CLI asks for a rebuild of one read model, then it prints the ended job, exits 0, and the service counts the rebuild', async () => {
    // given
    const before = await metric(succeeded);
    const generation = (
      await server.get<{ generation: number }>('/internal/read-models/digest', {
        headers: { 'x-directory-token': server.services.secrets.directoryToken },
      })
    ).body.generation;
    // when
    const printed = await cli(
      asOperator(server.services.secrets.directoryToken),
      'rebuild',
      '--api',
      server.url,
      '--read-model',
      'resources',
    );
    // then
    const job = JSON.parse(printed.trim().split('\n').at(-1) ?? '') as Record<string, unknown>;
    expect(job).toMatchObject({ phase: 'done', outcome: 'succeeded', error: null, readModels: ['resources'] });
    expect(await metric(succeeded)).toBe(before + 1);
    const after = await server.get<{ generation: number }>('/internal/read-models/digest', {
      headers: { 'x-directory-token': server.services.secrets.directoryToken },
    });
    expect(after.body.generation).toBeGreaterThan(generation);
  });

  it("given an operator's own token (OPERATOR_TOKENS) and no directory token, then the CLI asks with it and the rebuild runs", async () => {
    const before = await metric(succeeded);

    const printed = await cli(
      { DATA_DIR: '/nonexistent/no-stores-here', DIRECTORY_SYNC_TOKEN: '', RESOURCES_OPERATOR_TOKEN: operatorToken },
      'rebuild',
      '--api',
      server.url,
    );

    expect(JSON.parse(printed.trim().split('\n').at(-1) ?? '')).toMatchObject({ outcome: 'succeeded' });
    expect(await metric(succeeded)).toBe(before + 1);
    // and a token no operator holds is refused
    const refused = cli(
      { DATA_DIR: '/nonexistent/no-stores-here', RESOURCES_OPERATOR_TOKEN: randomBytes(32).toString('base64url') },
      'rebuild',
      '--api',
      server.url,
    );
    await expect(refused).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('401') });
  });

  it('given a wrong credential, then the service refuses it and the CLI says so, exit code 1, nothing printed', async () => {
    const refused = cli(asOperator(randomBytes(32).toString('base64url')), 'rebuild', '--api', server.url);

    await expect(refused).rejects.toMatchObject({ code: 1, stdout: '', stderr: expect.stringContaining('401') });
  });

  it('given an address that redirects elsewhere, then the CLI does not follow it: its credential reaches no other host, and it says where the redirect led, exit code 1', async () => {
    const redirecting = await redirectingServer();
    try {
      const followed = cli(asOperator(server.services.secrets.directoryToken), 'rebuild', '--api', redirecting.url);

      await expect(followed).rejects.toMatchObject({
        code: 1,
        stdout: '',
        stderr: expect.stringContaining(
          `307 a redirect to ${redirecting.elsewhereUrl}/internal/read-models/rebuild, not followed`,
        ),
      });
      expect(redirecting.reached).toEqual([]);
    } finally {
      await redirecting.close();
    }
  });

  it('given no credential, or an address that is not a URL, then it is a usage error naming what to set, exit code 2', async () => {
    await expect(cli(asOperator(''), 'rebuild', '--api', server.url)).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('DIRECTORY_SYNC_TOKEN'),
    });
    await expect(
      cli(asOperator(server.services.secrets.directoryToken), 'rebuild', '--api', 'localhost:3000'),
    ).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('--api') });
  });

  it('given an address with a user and password, then it is a usage error that never repeats the password', async () => {
    const withPassword = server.url.replace('://', '://admin:hunter2-secret@');

    const refused = cli(asOperator(server.services.secrets.directoryToken), 'rebuild', '--api', withPassword);

    await expect(refused).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('no user or password') });
    const { stdout, stderr } = (await refused.catch((error: unknown) => error)) as { stdout: string; stderr: string };
    expect(`${stdout}${stderr}`).not.toContain('hunter2-secret');
  });

  it('given a service that does not answer, then the refusal says why the connection failed', async () => {
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as net.AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const closed = `http://127.0.0.1:${port}`;

    await expect(
      cli(asOperator(server.services.secrets.directoryToken), 'rebuild', '--api', closed),
    ).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('ECONNREFUSED') });
  });
});

/**
 * `resources-cli audit events|history|access|access-of` as an operator runs it: a separate process on the
 * DATA_DIR of a running service, printing the same records the audit API answers.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { demo, demoDirectory } from '../support/demo-directory';
import type { TestServer } from '../support/test-server';
import { startTestServer } from '../support/test-server';

const run = promisify(execFile);
const root = path.join(__dirname, '..', '..');
const tsx = path.join(root, 'node_modules', '.bin', 'tsx');

describe('CLI audit', () => {
  jest.setTimeout(120_000);
  let server: TestServer;
  let resourceId: number;
  let auditor: { token: string };

  const cli = async (...args: string[]) => {
    try {
      const { stdout, stderr } = await run(tsx, ['src/cli/main.ts', ...args], {
        cwd: root,
        env: { ...process.env, DATA_DIR: server.dataDir },
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const e = error as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };
  const lines = (stdout: string) =>
    stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, any>);

  beforeAll(async () => {
    server = await startTestServer();
    await server.directory(demoDirectory.events);
    const team = { token: await server.sessionToken(demo.users.team) };
    const saved = await server.post(
      '/api/Resource/SaveProjectResource',
      {
        id: 0,
        name: 'Minutes',
        resourceUrl: 'https://example.org/minutes.pdf',
        privacyLevel: 2,
        communityProjectId: demo.communityProjects.solarIn1,
      },
      team,
    );
    resourceId = saved.body.id;
    const shared = await server.post(
      '/api/Privacy/SaveResourcePrivacy',
      { resourceId, sharesToUpsert: [{ communityId: demo.communities.private2, privacyLevel: 1 }] },
      { token: await server.sessionToken(demo.users.admin1) },
    );
    expect(shared.status).toBe(200);
    auditor = { token: await server.sessionToken(demo.users.auditor) };
  });
  afterAll(() => server.close());

  it('given a resource stream, then `audit events --stream` prints the items the API answers, and the old `audit --stream` form still works', async () => {
    const api = await server.get(`/api/audit/events?stream=resource-${resourceId}`, auditor);

    const events = await cli('audit', 'events', '--stream', `resource-${resourceId}`);
    const legacy = await cli('audit', '--stream', `resource-${resourceId}`);

    expect(events.code).toBe(0);
    expect(lines(events.stdout)).toEqual(api.body.items);
    expect(lines(legacy.stdout)).toEqual(api.body.items);
  });

  it('given the same moment, then `audit access --at` prints what the API answers; the table names the views and reasons', async () => {
    const at = new Date().toISOString();
    const api = await server.get(`/api/audit/resources/${resourceId}/access?at=${encodeURIComponent(at)}`, auditor);

    const json = await cli('audit', 'access', String(resourceId), '--at', at);
    const table = await cli('audit', 'access', String(resourceId), '--at', at, '--format', 'table');

    expect(lines(json.stdout)).toEqual([api.body]);
    expect(table.stdout).toContain('Harbour Founders (c:2)');
    expect(table.stdout).toContain('administrator of community 2');
  });

  it('given the same moment, then `audit access-of` prints what the API answers for that person; the table names views and reasons', async () => {
    const at = new Date().toISOString();
    const api = await server.get(`/api/audit/users/${demo.users.admin2}/access?at=${encodeURIComponent(at)}`, auditor);

    const json = await cli('audit', 'access-of', String(demo.users.admin2), '--at', at);
    const table = await cli('audit', 'access-of', String(demo.users.admin2), '--at', at, '--format', 'table');
    const unknown = await cli('audit', 'access-of', '999999');

    expect(json.code).toBe(0);
    expect(lines(json.stdout)).toEqual([api.body]);
    expect(table.stdout).toContain(`${resourceId} Minutes`);
    expect(table.stdout).toContain('administrator of community 2');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('user 999999 is not in the directory');
  });

  it('given a history, then `audit history` prints one step per command, as JSON lines or a table', async () => {
    const json = await cli('audit', 'history', String(resourceId));
    const table = await cli('audit', 'history', String(resourceId), '--format', 'table');

    expect(lines(json.stdout).map((s) => s.changes.map((c: { kind: string }) => c.kind))).toEqual([
      ['created'],
      ['shareAdded'],
    ]);
    expect(table.stdout).toContain(`shared into community ${demo.communities.private2} at level 1`);
  });

  it('given a bad option, then exit 2 naming it; given --help, then every command prints its usage', async () => {
    const bad = await cli('audit', 'events', '--user', 'abc');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--user');

    for (const command of [
      ['dev-token'],
      ['import-directory'],
      ['seed'],
      ['audit'],
      ['audit', 'history'],
      ['digest'],
      ['rebuild'],
    ]) {
      const help = await cli(...command, '--help');
      expect({ command, code: help.code }).toEqual({ command, code: 0 });
      expect(help.stdout).toMatch(/^usage: /);
    }
  });
});

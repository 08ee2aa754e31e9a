/**
 * `resources-cli audit verify` as an operator runs it, on the DATA_DIR of a service:
 * the chain holds and ends where GET /api/audit/integrity says; then one stored event's bytes are
 * changed in the SQLite file itself, and verify names exactly that event.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { demo, demoDirectory } from '../support/demo-directory';
import type { TestServer } from '../support/test-server';
import { startTestServer } from '../support/test-server';

const run = promisify(execFile);
const root = path.join(__dirname, '..', '..');
const tsx = path.join(root, 'node_modules', '.bin', 'tsx');

describe('CLI audit verify', () => {
  jest.setTimeout(120_000);
  let server: TestServer;
  let dataDir: string;

  const cli = async (...args: string[]) => {
    try {
      const { stdout, stderr } = await run(tsx, ['src/cli/main.ts', ...args], {
        cwd: root,
        env: { ...process.env, DATA_DIR: dataDir },
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const e = error as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };

  beforeAll(async () => {
    server = await startTestServer();
    dataDir = server.dataDir;
    await server.directory(demoDirectory.events);
  });
  afterAll(async () => {
    await server.close().catch(() => undefined);
  });

  it('given a log, when verified, then it holds up to the head the API gives; when one event’s bytes are changed in the file, then verify names that event', async () => {
    // given a log with a resource whose name occurs once in the file
    const team = { token: await server.sessionToken(demo.users.team) };
    const auditor = { token: await server.sessionToken(demo.users.auditor) };
    const marker = `Tamper-${randomBytes(6).toString('hex')}`;
    const saved = await server.post(
      '/api/Resource/SaveProjectResource',
      {
        id: 0,
        name: marker,
        resourceUrl: 'https://example.org/t.pdf',
        privacyLevel: 2,
        communityProjectId: demo.communityProjects.solarIn1,
      },
      team,
    );
    expect(saved.status).toBe(200);
    for (const name of ['After 1', 'After 2']) {
      const later = await server.post(
        '/api/Resource/SaveProjectResource',
        {
          id: 0,
          name,
          resourceUrl: 'https://example.org/a.pdf',
          privacyLevel: 2,
          communityProjectId: demo.communityProjects.solarIn1,
        },
        team,
      );
      expect(later.status).toBe(200);
    }
    const created = (
      await server.get(`/api/audit/events?stream=resource-${saved.body.id}&type=ResourceCreated`, auditor)
    ).body.items[0];
    const head = (await server.get('/api/audit/integrity', auditor)).body;

    // when verified as it is
    const intact = await cli('audit', 'verify');
    // then
    expect(intact.code).toBe(0);
    expect(JSON.parse(intact.stdout)).toMatchObject({
      ok: true,
      unchained: 0,
      head: { position: head.position, hash: head.hash },
      firstMismatch: null,
    });

    // and the head recorded holds as an anchor; the same position with another hash does not (exit 1)
    const anchored = await cli('audit', 'verify', '--anchor', `${head.position}:${head.hash}`);
    expect(anchored.code).toBe(0);
    expect(JSON.parse(anchored.stdout).anchor).toEqual({ position: head.position, hash: head.hash, holds: true });
    const wrong = `${head.hash.slice(0, -1)}${head.hash.endsWith('0') ? '1' : '0'}`;
    const refused = await cli('audit', 'verify', '--anchor', `${head.position}:${wrong}`);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout)).toMatchObject({ ok: true, anchor: { holds: false } });
    expect((await cli('audit', 'verify', '--anchor', 'not-an-anchor')).code).toBe(2);

    // given the service stopped (its log checkpointed into the file) and one byte of the event changed there
    await server.close();
    const file = path.join(dataDir, 'events.sqlite');
    expect(fs.existsSync(`${file}-wal`) && fs.statSync(`${file}-wal`).size > 0).toBe(false);
    const bytes = fs.readFileSync(file);
    const at = bytes.indexOf(marker);
    expect(at).toBeGreaterThan(0);
    expect(bytes.indexOf(marker, at + 1)).toBe(-1);
    bytes.write('X', at); // "Tamper-…" becomes "Xamper-…": same length, the page stays valid
    fs.writeFileSync(file, bytes);
    const db = new Database(file, { readonly: true });
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok'); // SQLite itself sees nothing wrong
    db.close();

    // when verified again
    const tampered = await cli('audit', 'verify');
    // then
    expect(tampered.code).toBe(1);
    expect(JSON.parse(tampered.stdout)).toMatchObject({
      ok: false,
      firstMismatch: {
        position: created.position,
        streamId: `resource-${saved.body.id}`,
        type: 'ResourceCreated',
        problem: 'hash',
      },
    });
  });
});

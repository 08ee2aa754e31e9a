/**
 * `resources-cli backup|verify|restore` (issue 27) as an operator runs them, each a separate
 * process: a backup taken while clients keep saving resources, verified, restored into an empty
 * DATA_DIR (refused into a live or non-empty one), and served: every write acknowledged before the
 * backup began is there, the restored log is the source's log up to the backup's last position,
 * and the read-model digest after catch-up is the backup's.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { SqliteEventStore } from '../../src/infra/sqlite/sqlite-event-store';
import { demo, demoDirectory } from '../support/demo-directory';
import type { TestServer } from '../support/test-server';
import { startTestServer } from '../support/test-server';

const run = promisify(execFile);
const root = path.join(__dirname, '..', '..');
const tsx = path.join(root, 'node_modules', '.bin', 'tsx');

async function cli(dataDir: string, ...args: string[]) {
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
}

const tempDir = (prefix: string) => fs.mkdtempSync(path.join(os.tmpdir(), prefix));

/** Every event of a log through the port, as comparable values. */
async function eventsOf(file: string) {
  const store = SqliteEventStore.open(file);
  try {
    const events = await store.readAll(undefined, 1_000_000);
    return events.map((e) =>
      JSON.stringify([e.position.toString(), e.streamId, e.revision.toString(), e.type, e.data, e.metadata]),
    );
  } finally {
    await store.close();
  }
}

describe('CLI backup, verify, restore', () => {
  jest.setTimeout(180_000);
  let source: TestServer;
  let restored: TestServer | undefined;

  beforeAll(async () => {
    source = await startTestServer();
    expect((await source.directory(demoDirectory.events)).status).toBe(200);
  });
  afterAll(async () => {
    await restored?.close();
    await source.close();
  });

  it('given clients saving resources, when a backup is taken meanwhile and restored, then every write acknowledged before it is there and the digests agree', async () => {
    // given a write load: 4 clients saving resources until told to stop, each acknowledged save noted with its time
    const team = { token: await source.sessionToken(demo.users.team) };
    const acknowledged: { id: number; at: number }[] = [];
    let stop = false;
    let saved = 0;
    const client = async (c: number) => {
      while (!stop) {
        const res = await source.post(
          '/api/Resource/SaveProjectResource',
          {
            id: 0,
            name: `Load ${c}-${saved++}`,
            resourceUrl: 'https://example.org/l.pdf',
            privacyLevel: 2,
            communityProjectId: demo.communityProjects.solarIn1,
          },
          team,
        );
        if (res.status !== 200) throw new Error(`save: ${res.status} ${res.text}`);
        acknowledged.push({ id: res.body.id, at: Date.now() });
      }
    };
    const load = Promise.all([0, 1, 2, 3].map(client));
    while (acknowledged.length < 20) await new Promise((r) => setTimeout(r, 20));

    // when a backup is taken while the load runs
    const dest = path.join(tempDir('prs-backup-'), 'backup-1');
    const began = Date.now();
    const backup = await cli(source.dataDir, 'backup', dest);
    const savedDuringBackup = acknowledged.filter((a) => a.at > began).length;
    stop = true;
    await load;

    // then the backup is complete in itself and checks out
    expect(backup.code).toBe(0);
    expect(savedDuringBackup).toBeGreaterThan(0); // the service kept writing while it was taken
    const manifest = JSON.parse(fs.readFileSync(path.join(dest, 'backup.json'), 'utf8'));
    // the log's copy is one file, complete in itself (no -wal beside it), next to its manifest and the uploads
    expect(fs.readdirSync(dest).sort()).toEqual(['backup.json', 'events.sqlite', 'files']);
    const verified = await cli(source.dataDir, 'verify', dest);
    expect(verified.code).toBe(0);
    expect(JSON.parse(verified.stdout)).toMatchObject({ ok: true, events: manifest.events, digest: manifest.digest });

    // when it is restored into an empty DATA_DIR and served
    const target = tempDir('prs-restored-');
    const restore = await cli(target, 'restore', dest);
    expect(restore.code).toBe(0);
    restored = await startTestServer({ DATA_DIR: target });

    // then every write acknowledged before the backup began is there
    const auditor = { token: await restored.sessionToken(demo.users.auditor) };
    const created = await restored.get('/api/audit/events?type=ResourceCreated&limit=1000', auditor);
    const restoredIds = new Set(created.body.items.map((e: { data: { resourceId: number } }) => e.data.resourceId));
    const before = acknowledged.filter((a) => a.at <= began).map((a) => a.id);
    expect(before.filter((id) => !restoredIds.has(id))).toEqual([]);
    // and the restored log is the source's, event for event, up to the backup's last position
    const [sourceEvents, restoredEvents] = [
      await eventsOf(path.join(source.dataDir, 'events.sqlite')),
      await eventsOf(path.join(target, 'events.sqlite')),
    ];
    expect(restoredEvents.slice(0, manifest.events)).toEqual(sourceEvents.slice(0, manifest.events));
    // and the read models rebuilt from it have the backup's digest
    const digest = await restored.get('/internal/read-models/digest', {
      headers: { 'x-directory-token': restored.services.secrets.directoryToken },
    });
    expect(digest.body.digest).toBe(manifest.digest);
  });

  it('given a DATA_DIR that holds a log (the live service’s), when a backup is restored into it, then it is refused and nothing is changed', async () => {
    // given
    const dest = path.join(tempDir('prs-backup-'), 'backup-2');
    expect((await cli(source.dataDir, 'backup', dest)).code).toBe(0);
    const log = path.join(source.dataDir, 'events.sqlite');
    const sizeBefore = fs.statSync(log).size;
    // when
    const refused = await cli(source.dataDir, 'restore', dest);
    // then
    expect(refused.code).toBe(2);
    expect(fs.statSync(log).size).toBe(sizeBefore);
    expect(fs.existsSync(`${log}.restoring`)).toBe(false);
  });

  it('given a non-empty destination, when a backup is asked into it, then it is refused', async () => {
    const dest = tempDir('prs-backup-full-');
    fs.writeFileSync(path.join(dest, 'keep.txt'), 'mine');
    const refused = await cli(source.dataDir, 'backup', dest);
    expect(refused.code).toBe(2);
    expect(fs.readdirSync(dest)).toEqual(['keep.txt']);
  });

  it('given a backup whose log was changed after it was taken, when verified, then it fails and restore refuses it', async () => {
    // given
    const dest = path.join(tempDir('prs-backup-'), 'backup-3');
    expect((await cli(source.dataDir, 'backup', dest)).code).toBe(0);
    const manifestFile = path.join(dest, 'backup.json');
    const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
    fs.writeFileSync(manifestFile, JSON.stringify({ ...manifest, events: manifest.events + 1 }));
    // when
    const verified = await cli(source.dataDir, 'verify', dest);
    const target = tempDir('prs-restored-');
    const restore = await cli(target, 'restore', dest);
    // then
    expect(verified.code).toBe(1);
    expect(
      JSON.parse(verified.stdout)
        .checks.filter((c: { ok: boolean }) => !c.ok)
        .map((c: { name: string }) => c.name),
    ).toEqual(['events']);
    expect(restore.code).toBe(1);
    expect(fs.readdirSync(target)).toEqual([]);
  });

  it('given no destination, when backup is run, then it is a usage error', async () => {
    expect((await cli(source.dataDir, 'backup')).code).toBe(2);
  });
});

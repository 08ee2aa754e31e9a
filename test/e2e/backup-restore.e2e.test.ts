/**
 * `resources-cli backup|verify|restore` as an operator runs them, each a separate
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
import Database from 'better-sqlite3';
import { SqliteEventStore } from '../../src/infra/sqlite/sqlite-event-store';
import { demo, demoDirectory } from '../support/demo-directory';
import type { TestServer } from '../support/test-server';
import { startTestServer } from '../support/test-server';
import { notPrivateUnder } from '../support/file-modes';
import { waitFor } from '../support/service-process';
import { fileApi } from '../support/upload-client';

const run = promisify(execFile);
const root = path.join(__dirname, '..', '..');
const tsx = path.join(root, 'node_modules', '.bin', 'tsx');

async function cli(dataDir: string, ...args: string[]) {
  return cliWith({}, dataDir, ...args);
}

async function cliWith(env: Record<string, string>, dataDir: string, ...args: string[]) {
  try {
    const { stdout, stderr } = await run(tsx, ['src/cli/main.ts', ...args], {
      cwd: root,
      env: { ...process.env, ...env, DATA_DIR: dataDir },
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
    // the log's copy is one file, complete in itself (no -wal beside it), next to its manifest, the
    // read models kept across generations and the uploads
    expect(fs.readdirSync(dest).sort()).toEqual(['backup.json', 'events.sqlite', 'files', 'read-models.kept.sqlite']);
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

  it('given what an interrupted backup left (its log copied, no manifest), when backed up into again or verified, then each is refused naming the interrupted backup', async () => {
    // given (the log's bytes do not matter here; read from the source, they would be read in the
    // process that holds it open, which drops that process's locks on it)
    const dest = tempDir('prs-backup-interrupted-');
    fs.writeFileSync(path.join(dest, 'events.sqlite'), 'the first pages of a log');
    fs.mkdirSync(path.join(dest, 'files'));
    // when
    const again = await cli(source.dataDir, 'backup', dest);
    const verified = await cli(source.dataDir, 'verify', dest);
    // then
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('interrupted (no backup.json): remove it and run the backup again');
    expect(verified.code).toBe(2);
    expect(verified.stderr).toContain('is a backup that was interrupted (no backup.json)');
    expect(fs.readdirSync(dest).sort()).toEqual(['events.sqlite', 'files']);
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

  it('given a key used and an upload, under a umask of 0, when a backup is taken and restored into a new DATA_DIR, then the key still says when it was last used and everything written is 0700/0600', async () => {
    // given: a key used once, its use recorded (outside the read-model generations), and an upload
    const token = await source.sessionToken(demo.users.admin2);
    const key = await source.post<{ id: number; key: string }>('/api/apikey', { name: 'backed up' }, { token });
    expect(key.status).toBe(200);
    expect((await source.get('/api/user/getcurrent', { apiKey: key.body.key })).status).toBe(200);
    const lastUsedAt = async (server: TestServer) => {
      const keys = await server.get<{ id: number; lastUsedAt: string | null }[]>('/api/apikey', {
        token: await server.sessionToken(demo.users.admin2),
      });
      return keys.body.find((k) => k.id === key.body.id)?.lastUsedAt ?? undefined;
    };
    const usedAt = await waitFor(() => lastUsedAt(source), 'the use to be recorded');
    await fileApi(source).uploaded(demo.users.team, 'minutes.txt', 'text/plain', Buffer.from('minutes'));
    const dest = path.join(tempDir('prs-backup-'), 'backup-modes');
    const target = path.join(tempDir('prs-restored-'), 'data');
    // when (the CLI inherits the umask)
    const previousUmask = process.umask(0);
    let backup, restore;
    try {
      backup = await cli(source.dataDir, 'backup', dest);
      restore = await cli(target, 'restore', dest);
    } finally {
      process.umask(previousUmask);
    }
    // then
    expect(backup.code).toBe(0);
    expect(restore.code).toBe(0);
    expect(notPrivateUnder(dest)).toEqual([]);
    expect(notPrivateUnder(target)).toEqual([]);
    const served = await startTestServer({ DATA_DIR: target });
    try {
      expect(await lastUsedAt(served)).toBe(usedAt);
    } finally {
      await served.close();
    }
  });

  it.each([
    ['an upload replaced by a link to a file outside', 'files/resource_files/planted/notes.txt', '/etc/passwd'],
    ['the log replaced by a link to a copy elsewhere', 'events.sqlite', 'moved-events.sqlite'],
    ['the kept read models replaced by a link', 'read-models.kept.sqlite', '/etc/passwd'],
  ])(
    'given a backup holding %s, when verified or restored, then it is refused naming the entry and nothing is written',
    async (_case, entry, pointsAt) => {
      // given
      const dest = path.join(tempDir('prs-backup-'), 'backup-link');
      expect((await cli(source.dataDir, 'backup', dest)).code).toBe(0);
      const planted = path.join(dest, entry);
      fs.mkdirSync(path.dirname(planted), { recursive: true });
      const outside = path.isAbsolute(pointsAt) ? pointsAt : path.join(path.dirname(dest), pointsAt);
      if (fs.existsSync(planted)) fs.renameSync(planted, outside);
      fs.symlinkSync(outside, planted);
      const target = tempDir('prs-restored-');
      // when
      const verified = await cli(source.dataDir, 'verify', dest);
      const restore = await cli(target, 'restore', dest);
      // then
      expect(verified.code).toBe(2);
      expect(restore.code).toBe(2);
      expect(restore.stderr).toContain(`${entry} in the backup is a symbolic link`);
      expect(fs.readdirSync(target)).toEqual([]);
    },
  );

  it('given a destination inside DATA_DIR (its uploads folder), when a backup is asked, then it is refused and nothing is written there', async () => {
    const files = path.join(source.dataDir, 'files');
    fs.mkdirSync(files, { recursive: true });
    const before = fs.readdirSync(files, { recursive: true });

    const refused = await cli(source.dataDir, 'backup', path.join(files, 'bk'));

    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('inside DATA_DIR');
    expect(fs.readdirSync(files, { recursive: true })).toEqual(before);
  });

  it('given a DATA_DIR inside the backup, when it is restored, then it is refused and nothing is written', async () => {
    const dest = path.join(tempDir('prs-backup-'), 'backup-nest');
    expect((await cli(source.dataDir, 'backup', dest)).code).toBe(0);
    const inside = path.join(dest, 'files', 'restored-here');

    const refused = await cli(inside, 'restore', dest);

    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('inside the backup');
    expect(fs.existsSync(inside)).toBe(false);
  });

  it('given a log that appears in DATA_DIR while a restore checks the backup, then the restore is refused and that log is left as it was', async () => {
    // given a backup, and the CLI's scratch copies in a folder of their own, watched
    const dest = path.join(tempDir('prs-backup-'), 'backup-race');
    expect((await cli(source.dataDir, 'backup', dest)).code).toBe(0);
    const target = tempDir('prs-restored-');
    const scratch = tempDir('prs-scratch-');
    // when a service's log appears once the restore has begun checking (its digest's scratch copy exists)
    const restoring = cliWith({ TMPDIR: scratch }, target, 'restore', dest);
    const deadline = Date.now() + 60_000;
    const checking = () => fs.readdirSync(scratch).some((name) => name.startsWith('prs-backup-digest-'));
    while (!checking() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 1));
    const log = path.join(target, 'events.sqlite');
    const other = new Database(log);
    other.exec("create table marker (note text); insert into marker values ('the live log')");
    other.close();
    const refused = await restoring;
    // then
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('appeared in DATA_DIR');
    const kept = new Database(log, { readonly: true });
    expect(kept.prepare('select note from marker').pluck().get()).toBe('the live log');
    kept.close();
    expect(fs.existsSync(`${log}.restoring`)).toBe(false);
  });

  it('given no destination, when backup is run, then it is a usage error', async () => {
    expect((await cli(source.dataDir, 'backup')).code).toBe(2);
  });
});

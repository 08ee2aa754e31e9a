/**
 * What DATA_DIR holds (the event log with idempotency answers and client addresses, key hashes,
 * uploads, the development secrets) is for the service's own user only: directories 0700, files
 * 0600, whatever the umask. Checked under the most permissive umask, on a DATA_DIR the service
 * creates itself, after writes that touch every store.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { demo, demoDirectory } from '../support/demo-directory';
import type { TestServer } from '../support/test-server';
import { startTestServer } from '../support/test-server';
import { fileApi } from '../support/upload-client';

/** Every entry under `dir` with its permission bits, as `relative path: mode` in octal. */
function modesUnder(dir: string): Record<string, string> {
  const modes: Record<string, string> = {};
  const walk = (at: string) => {
    for (const name of fs.readdirSync(at)) {
      const full = path.join(at, name);
      const stats = fs.lstatSync(full);
      modes[path.relative(dir, full)] = (stats.mode & 0o777).toString(8);
      if (stats.isDirectory()) walk(full);
    }
  };
  modes['.'] = (fs.statSync(dir).mode & 0o777).toString(8);
  walk(dir);
  return modes;
}

describe('DATA_DIR modes', () => {
  let parent: string;
  let server: TestServer | undefined;
  let previousUmask: number;
  beforeEach(() => {
    previousUmask = process.umask(0);
    parent = fs.mkdtempSync(path.join(os.tmpdir(), 'prs-modes-'));
  });
  afterEach(async () => {
    await server?.close();
    process.umask(previousUmask);
    fs.rmSync(parent, { recursive: true, force: true });
  });

  it('given a umask of 0, when the service creates its DATA_DIR and writes to every store, then every directory is 0700 and every file 0600', async () => {
    const dataDir = path.join(parent, 'nested', 'data');
    server = await startTestServer({ DATA_DIR: dataDir });
    expect((await server.directory(demoDirectory.events)).status).toBe(200);
    const admin = { token: await server.sessionToken(demo.users.admin1) };
    const key = await server.post<{ key: string }>('/api/apikey', { name: 'robot' }, admin);
    expect(key.status).toBe(200);
    await fileApi(server).uploaded(demo.users.admin1, 'notes.txt', 'text/plain', Buffer.from('minutes of the meeting'));

    const modes = modesUnder(path.join(parent, 'nested'));
    const entries = Object.entries(modes);
    // The log, its WAL, the kept read models, the development secrets and an upload are among them.
    expect(Object.keys(modes)).toEqual(
      expect.arrayContaining(['data/events.sqlite', 'data/read-models.kept.sqlite', 'data/dev-secrets.json']),
    );
    expect(Object.keys(modes).some((p) => p.startsWith('data/files/resource_files/'))).toBe(true);
    const wrong = entries.filter(([p, mode]) => {
      const isDir = fs.lstatSync(path.join(parent, 'nested', p)).isDirectory();
      return mode !== (isDir ? '700' : '600');
    });
    expect(wrong).toEqual([]);
  });
});

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
import { notPrivateUnder, pathsUnder } from '../support/file-modes';
import type { TestServer } from '../support/test-server';
import { startTestServer } from '../support/test-server';
import { fileApi } from '../support/upload-client';

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
    expect((await server.post('/api/apikey', { name: 'robot' }, admin)).status).toBe(200);
    await fileApi(server).uploaded(demo.users.admin1, 'notes.txt', 'text/plain', Buffer.from('minutes'));

    // The log and its WAL, the read models, the kept read models, the development secrets and an upload are there.
    const paths = pathsUnder(path.join(parent, 'nested'));
    expect(paths).toEqual(
      expect.arrayContaining([
        'data/events.sqlite',
        'data/events.sqlite-wal',
        'data/read-models.kept.sqlite',
        'data/dev-secrets.json',
      ]),
    );
    expect(paths.filter((p) => /^data\/files\/resource_files\/.+\/notes\.txt$/.test(p))).toHaveLength(1);
    expect(notPrivateUnder(path.join(parent, 'nested'))).toEqual([]);
  });
});

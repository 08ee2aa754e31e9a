/**
 * Malformed multipart bodies sent to the service as a process: each is answered with a 400 naming
 * `file`, nothing is stored, and the process goes on answering (an error inside the parser that
 * nothing handled would end it).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { mintSessionToken } from '../../src/infra/auth/session-verifier';
import { demo, demoDirectory } from '../support/demo-directory';
import { startServiceProcess, type ServiceProcess } from '../support/service-process';
import { multipart } from '../support/upload-client';

describe('POST /api/File/Upload with a malformed multipart body, on the service as a process', () => {
  jest.setTimeout(60_000);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'prs-upload-malformed-'));
  const secrets = {
    AUTH_JWT_SECRET: 'upload-malformed-test-secret-'.padEnd(48, 'x'),
    DIRECTORY_SYNC_TOKEN: 'upload-malformed-directory-'.padEnd(48, 'y'),
  };
  let service: ServiceProcess;
  let token: string;

  beforeAll(async () => {
    service = await startServiceProcess({ DATA_DIR: dataDir, ...secrets });
    const seeded = await fetch(`${service.url}/internal/directory/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-directory-token': secrets.DIRECTORY_SYNC_TOKEN },
      body: JSON.stringify({ events: demoDirectory.events }),
    });
    expect(seeded.status).toBe(200);
    token = await mintSessionToken(secrets.AUTH_JWT_SECRET, { userId: demo.users.team });
  });
  afterAll(async () => {
    await service?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const upload = (body: Buffer, contentType: string) =>
    fetch(`${service.url}/api/File/Upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
      body,
    });
  const hello = () =>
    multipart([{ name: 'file', filename: 'a.txt', contentType: 'text/plain', data: Buffer.from('hello') }]);
  /** The stored uploads: files under DATA_DIR/files, outside the staging area. */
  const stored = () => {
    const root = path.join(dataDir, 'files');
    if (!fs.existsSync(root)) return [];
    return fs
      .readdirSync(root, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)))
      .filter((file) => !file.startsWith('.staging'))
      .sort();
  };

  it.each([
    ['a file part cut off before its closing boundary', (body: Buffer) => body.subarray(0, body.lastIndexOf('\r\n--'))],
    ['a file part cut off in its headers', (body: Buffer) => body.subarray(0, body.indexOf('\r\n\r\n') - 4)],
  ])('given %s, then 400 on file, nothing stored, and the service answers on', async (_what, cut) => {
    const before = stored();
    const { body, contentType } = hello();
    const res = await upload(cut(body), contentType);
    expect(res.status).toBe(400);
    const problem = (await res.json()) as { errors?: { field: string }[] };
    expect(problem.errors?.map((error) => error.field)).toEqual(['file']);
    expect((await fetch(`${service.url}/health/live`)).status).toBe(200);
    const again = hello();
    expect((await upload(again.body, again.contentType)).status).toBe(200);
    // only the upload that worked
    expect(stored().filter((file) => !before.includes(file))).toEqual([expect.stringMatching(/\/a\.txt$/)]);
  });
});

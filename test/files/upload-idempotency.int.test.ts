/**
 * Idempotency-Key on POST /api/File/Upload (docs/api.md "Retries"), over HTTP: the multipart body is
 * one request when its folder, declared part headers and bytes are the same. A retry answers the path
 * of the first stored upload, never stores the file twice; another file under the same key is a 422;
 * an attempt that died after it stored its upload is answered from what it stored.
 */
import { createHash, randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import { Readable } from 'node:stream';
import { runUnderClaim } from '../../src/commands/idempotent-attempt';
import { storeUpload } from '../../src/files/file-lifecycle';
import { uploadFingerprint } from '../../src/files/upload-fingerprint';
import { demo } from '../support/demo-directory';
import { seeded } from '../support/seeded-server';
import type { TestServer } from '../support/test-server';
import { fileApi } from '../support/upload-client';
import type { Part } from '../support/upload-client';

const { users } = demo;
const UPLOAD = '/api/File/Upload';
const HOUR_MS = 3_600_000;

let keyCounter = 0;
const newKey = () => `upload-key-${process.pid}-${Date.now()}-${++keyCounter}`;
type FilePart = Extract<Part, { readonly filename: string }>;
const textFile = (text: string): FilePart => ({
  name: 'file',
  filename: 'notes.txt',
  contentType: 'text/plain',
  data: Buffer.from(text, 'utf8'),
});

describe('Idempotency-Key on POST /api/File/Upload', () => {
  let server: TestServer;
  let files: ReturnType<typeof fileApi>;
  beforeAll(async () => {
    server = await seeded();
    files = fileApi(server);
  });
  afterAll(() => server.close());

  const upload = (part: FilePart, key: string, userId: number = users.team) =>
    files.send(userId, [part], '', { 'idempotency-key': key });
  /** The FileUploaded events of the log that stored `path`, as the auditor reads them. */
  const uploadsOf = async (path: string): Promise<number> => {
    const res = await server.get(`/api/audit/events?type=FileUploaded&limit=1000`, {
      token: await server.token(users.auditor),
    });
    expect(res.status).toBe(200);
    return (res.body.items as { data: { path: string } }[]).filter((e) => e.data.path === path).length;
  };
  const allUploads = async (): Promise<number> => {
    const res = await server.get(`/api/audit/events?type=FileUploaded&limit=1000`, {
      token: await server.token(users.auditor),
    });
    return (res.body.items as unknown[]).length;
  };

  it('given an upload answered under a key, when the same file is sent again with that key, then the same path is replayed and the file is stored once', async () => {
    const key = newKey();
    const part = textFile(`first ${key}`);
    const first = await upload(part, key);
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();

    const retry = await upload(part, key);

    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toBe(first.body);
    expect(await uploadsOf(first.body as string)).toBe(1);
    const downloaded = await files.download(users.team, first.body as string);
    expect(downloaded.bytes.equals(part.data)).toBe(true);
  });

  it('given a key used for one upload, when another file comes with it, then 422 idempotency-key-reused and nothing is stored', async () => {
    const key = newKey();
    expect((await upload(textFile(`one ${key}`), key)).status).toBe(200);
    const before = await allUploads();

    const res = await upload(textFile(`another ${key}`), key);

    expect(res.status).toBe(422);
    expect(res.body.type).toBe('/problems/idempotency-key-reused');
    expect(await allUploads()).toBe(before);
  });

  it('given a key used for one upload, when the same bytes come under another folder, then 422 idempotency-key-reused', async () => {
    const key = newKey();
    const part = textFile(`foldered ${key}`);
    expect((await upload(part, key)).status).toBe(200);

    const res = await files.send(users.team, [{ name: 'folder', value: 'elsewhere' }, part], '', {
      'idempotency-key': key,
    });

    expect(res.status).toBe(422);
    expect(res.body.type).toBe('/problems/idempotency-key-reused');
  });

  it('given a key of one user, when another user uploads the same file with it, then each stores their own', async () => {
    const key = newKey();
    const part = textFile(`shared key ${key}`);
    const ada = await upload(part, key, users.team);
    const ben = await upload(part, key, users.mentor);

    expect(ada.status).toBe(200);
    expect(ben.status).toBe(200);
    expect(ben.headers.get('idempotent-replayed')).toBeNull();
    expect(ben.body).not.toBe(ada.body);
  });

  it('given an upload whose attempt stored it and died before answering, when it is retried, then the answer is the stored path and nothing is stored again', async () => {
    const key = newKey();
    const part = textFile(`died ${key}`);
    const data = part.data;
    // given: a process that is gone held the key and stored the upload
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    const claim = { scope: `user:${users.team}`, key, owner: `${os.hostname()}/${gone}/dead-attempt` };
    const now = server.services.clock().getTime();
    const fingerprint = uploadFingerprint({
      url: UPLOAD,
      folder: 'resource_files',
      file: {
        name: 'notes.txt',
        contentType: 'text/plain',
        size: data.length,
        sha256: createHash('sha256').update(data).digest('base64url'),
      },
    });
    const claimed = await server.services.idempotencyKeys.claimIdempotencyKey(claim, {
      fingerprint,
      now,
      expiresAt: now + 24 * HOUR_MS,
    });
    expect(claimed).toBe(true);
    const storedPath = `resource_files/${randomBytes(16).toString('base64url')}/notes.txt`;
    const staged = await server.services.fileStore.stage(Readable.from([data]));
    await runUnderClaim(claim, () =>
      storeUpload(
        server.services,
        staged,
        {
          path: storedPath,
          name: 'notes.txt',
          contentType: 'text/plain',
          uploadedBy: users.team,
          at: new Date(now).toISOString(),
        },
        {
          actor: { userId: users.team, credential: 'session' },
          correlationId: 'dead-attempt',
          at: new Date(now).toISOString(),
        },
      ),
    );

    const before = await allUploads();

    const retry = await upload(part, key);

    expect(retry.status).toBe(200);
    expect(retry.body).toBe(storedPath);
    expect(await uploadsOf(storedPath)).toBe(1);
    const again = await upload(part, key);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toBe(storedPath);
    expect(await allUploads()).toBe(before);
  });

  it('given an unusable key, when a file is uploaded with it, then 400 naming Idempotency-Key', async () => {
    const res = await upload(textFile('bad key'), 'two words');

    expect(res.status).toBe(400);
    expect(res.body.type).toBe('/problems/validation');
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['Idempotency-Key']);
  });
});

import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { ACCEPTED_EXTENSIONS } from '../../src/files/upload-policy';
import { demo, demoDirectory } from '../support/demo-directory';
import { SAMPLES, samples } from '../support/file-samples';
import type { TestServer } from '../support/test-server';
import { startTestServer } from '../support/test-server';
import { fieldsOf } from '../support/resource-api';
import { fileApi, multipart } from '../support/upload-client';

/**
 * POST /api/File/Upload (docs/api.md; docs/api.md "Upload"), over HTTP on the embedded default: what
 * is accepted, what is refused with the contract's 500, the ceilings, the form's parts, a client that
 * goes away mid-upload. Files land under DATA_DIR/files; the suite looks there only to check that
 * a refused or aborted upload left nothing behind.
 */
const { users } = demo;
const MIB = 1024 * 1024;
const UPLOAD_PATH = /^resource_files\/[A-Za-z0-9_-]{22}\/[^/]+$/;

/** Every file under DATA_DIR/files, staging area included. */
function storedFiles(server: TestServer): string[] {
  const root = path.join(server.dataDir, 'files');
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else out.push(path.relative(root, full));
    }
  };
  walk(root);
  return out.sort();
}

/**
 * The stored files once no upload of an earlier test is still being staged (an aborted upload's
 * staging file is removed as its stream closes, after the answer): what a test compares against.
 */
async function settledFiles(server: TestServer): Promise<string[]> {
  const staging = (files: string[]) => files.some((file) => file.startsWith('.staging'));
  if (!(await eventually(() => !staging(storedFiles(server))))) throw new Error('a staging file stayed behind');
  return storedFiles(server);
}

/** Waits (bounded) for the server to finish reacting to something the client did: a condition, not a clock. */
async function eventually(check: () => boolean, attempts = 250): Promise<boolean> {
  for (let i = 0; i < attempts; i++) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return check();
}

describe('POST /api/File/Upload', () => {
  let server: TestServer;
  let files: ReturnType<typeof fileApi>;

  beforeAll(async () => {
    server = await startTestServer();
    expect((await server.directory(demoDirectory.events)).status).toBe(200);
    files = fileApi(server);
  });
  afterAll(() => server.close());

  it('the sample list covers every accepted extension of docs/api.md', () => {
    expect(Object.keys(SAMPLES).sort()).toEqual([...ACCEPTED_EXTENSIONS]);
  });

  describe.each(Object.entries(SAMPLES))('given a real .%s file', (extension, [contentType, make]) => {
    it('when uploaded with its content type, then the answer is the stored path, and the uploader downloads the same bytes', async () => {
      const data = make();
      const res = await files.upload(users.team, `Kiosk sample.${extension}`, contentType, data);
      expect(res.status).toBe(200);
      expect(res.body).toMatch(UPLOAD_PATH);
      expect(res.body.endsWith(`/Kiosk sample.${extension}`)).toBe(true);
      const download = await files.download(users.team, res.body);
      expect(download.status).toBe(200);
      expect(download.bytes.equals(data)).toBe(true);
    });

    it('when uploaded as application/octet-stream, then it is accepted too (the bytes decide)', async () => {
      const res = await files.upload(users.team, `sample.${extension}`, 'application/octet-stream', make());
      expect(res.status).toBe(200);
    });
  });

  describe('disguised or unlisted files: 500 /problems/upload-refused, and nothing stored', () => {
    it.each<[string, string, string, () => Buffer]>([
      ['a renamed Windows executable', 'photo.png', 'image/png', samples.exe],
      ['a renamed ELF executable', 'data.csv', 'text/csv', samples.elf],
      ['an HTML page named .png', 'logo.png', 'image/png', samples.html],
      ['an HTML page named .txt', 'notes.txt', 'text/plain', samples.html],
      ['a shell script named .yaml', 'config.yaml', 'application/yaml', () => Buffer.from('#!/bin/sh\nrm -rf /\n')],
      ['a PNG declared as application/pdf', 'scan.png', 'application/pdf', samples.png],
      ['a PDF named .png', 'scan.png', 'image/png', samples.pdf],
      ['a PNG named .csv', 'table.csv', 'text/csv', samples.png],
      ['an .exe', 'setup.exe', 'application/octet-stream', samples.exe],
      ['an .html', 'index.html', 'text/html', samples.html],
      [
        'a .svg (not listed)',
        'logo.svg',
        'image/svg+xml',
        () => Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'),
      ],
      ['a file without an extension', 'README', 'text/plain', () => Buffer.from('hello')],
    ])('given %s, then 500 with a problem saying why', async (_what, filename, contentType, make) => {
      const before = await settledFiles(server);
      const res = await files.upload(users.team, filename, contentType, make());
      expect(res.status).toBe(500);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(res.body.type).toBe('/problems/upload-refused');
      expect(typeof res.body.detail).toBe('string');
      expect(res.text).not.toMatch(/at .*\.ts:\d+/);
      expect(storedFiles(server)).toEqual(before);
    });
  });

  describe('stored names', () => {
    it.each<[string, string, RegExp]>([
      ['path separators', '..\\..\\etc/passwd.txt', /^[^/\\]+\.txt$/],
      ['a bidi override', 'invoice\u202Egnp.txt', /^invoicegnp\.txt$/],
      ['leading dots', '...hidden.txt', /^hidden\.txt$/],
      ['markup characters', '<img src=x onerror=alert(1)>.txt', /^_img src=x onerror=alert\(1\)_\.txt$/],
      ['a 300-character name', `${'a'.repeat(300)}.txt`, /^a{116}\.txt$/],
    ])(
      'given a file name with %s, then the stored name is sanitised and keeps the extension',
      async (_what, filename, expected) => {
        const res = await files.upload(users.team, filename, 'text/plain', Buffer.from('x'));
        expect(res.status).toBe(200);
        const name = (res.body as string).split('/')[2] ?? '';
        expect(name).toMatch(expected);
      },
    );

    it('given a UTF-8 name, then it is kept', async () => {
      const res = await files.upload(users.team, 'Résumé – Ada ✓.pdf', 'application/pdf', samples.pdf());
      expect(res.status).toBe(200);
      expect(res.body).toMatch(/\/Résumé – Ada ✓\.pdf$/);
    });
  });

  describe('the form', () => {
    it('given a folder field, then the path is under that folder', async () => {
      const res = await files.upload(users.team, 'a.txt', 'text/plain', Buffer.from('x'), { folder: 'pitch-decks_2' });
      expect(res.status).toBe(200);
      expect(res.body).toMatch(/^pitch-decks_2\/[A-Za-z0-9_-]{22}\/a\.txt$/);
    });

    it('given the folder after the file, then it is honoured too', async () => {
      const res = await files.send(users.team, [
        { name: 'file', filename: 'a.txt', contentType: 'text/plain', data: Buffer.from('x') },
        { name: 'folder', value: 'later' },
      ]);
      expect(res.status).toBe(200);
      expect(res.body).toMatch(/^later\//);
    });

    it.each(['../etc', 'a/b', '', 'x'.repeat(65), 'dot.dot'])(
      'given folder %j, then 400 on folder and nothing stored',
      async (folder) => {
        const before = await settledFiles(server);
        const res = await files.upload(users.team, 'a.txt', 'text/plain', Buffer.from('x'), { folder });
        expect(res.status).toBe(400);
        expect(res.body.type).toBe('/problems/validation');
        expect(fieldsOf(res.body)).toEqual(['folder']);
        expect(storedFiles(server)).toEqual(before);
      },
    );

    it('given no file part, then 400 on file', async () => {
      const res = await files.send(users.team, [{ name: 'folder', value: 'resource_files' }]);
      expect(res.status).toBe(400);
      expect(fieldsOf(res.body)).toEqual(['file']);
    });

    it('given the file under another name, then 400 naming that part', async () => {
      const res = await files.send(users.team, [
        { name: 'upload', filename: 'a.txt', contentType: 'text/plain', data: Buffer.from('x') },
      ]);
      expect(res.status).toBe(400);
      expect(fieldsOf(res.body)).toEqual(['upload']);
    });

    it('given an extra field, then 400 naming it and nothing stored', async () => {
      const before = await settledFiles(server);
      const res = await files.send(users.team, [
        { name: 'file', filename: 'a.txt', contentType: 'text/plain', data: Buffer.from('x') },
        { name: 'comment', value: 'hi' },
      ]);
      expect(res.status).toBe(400);
      expect(fieldsOf(res.body)).toEqual(['comment']);
      expect(storedFiles(server)).toEqual(before);
    });

    it('given two file parts, then 400 on file and nothing stored', async () => {
      const before = await settledFiles(server);
      const part = { name: 'file', filename: 'a.txt', contentType: 'text/plain', data: Buffer.from('x') };
      const res = await files.send(users.team, [part, part]);
      expect(res.status).toBe(400);
      expect(fieldsOf(res.body)).toEqual(['file']);
      expect(storedFiles(server)).toEqual(before);
    });

    it('given a JSON body, then 415', async () => {
      const res = await server.post(
        '/api/File/Upload',
        { file: 'x' },
        { token: await server.sessionToken(users.team) },
      );
      expect(res.status).toBe(415);
      expect(res.body.type).toBe('/problems/unsupported-media-type');
    });

    it('given isBigFile that is not a boolean, then 400 on isBigFile', async () => {
      const res = await files.upload(users.team, 'a.txt', 'text/plain', Buffer.from('x'), {
        query: '?isBigFile=maybe',
      });
      expect(res.status).toBe(400);
      expect(fieldsOf(res.body)).toEqual(['isBigFile']);
    });

    it('given no credential, then 401', async () => {
      const { body, contentType } = multipart([
        { name: 'file', filename: 'a.txt', contentType: 'text/plain', data: Buffer.from('x') },
      ]);
      const res = await fetch(`${server.url}/api/File/Upload`, {
        method: 'POST',
        headers: { 'content-type': contentType },
        body,
      });
      expect(res.status).toBe(401);
    });
  });

  /** An upload sent chunked (no Content-Length), 64 KiB at a time. */
  const uploadChunked = async (body: Buffer, contentType: string): Promise<Response> => {
    const stream = new ReadableStream({
      start(controller) {
        for (let i = 0; i < body.length; i += 65_536) controller.enqueue(body.subarray(i, i + 65_536));
        controller.close();
      },
    });
    return fetch(`${server.url}/api/File/Upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await server.sessionToken(users.team)}`, 'content-type': contentType },
      body: stream,
      duplex: 'half',
    } as RequestInit);
  };

  describe('the 3 MB ceiling (UPLOAD_MAX_MB=3, MB = 1024 × 1024 bytes)', () => {
    it('given exactly 3 MiB, then it is accepted whole', async () => {
      const data = Buffer.alloc(3 * MIB, 0x61);
      const res = await files.upload(users.team, 'big.txt', 'text/plain', data);
      expect(res.status).toBe(200);
      const download = await files.download(users.team, res.body);
      expect(download.bytes.length).toBe(3 * MIB);
    });

    it('given 3 MiB + 1 byte, then 413 and nothing left behind', async () => {
      const before = await settledFiles(server);
      const res = await files.upload(users.team, 'big.txt', 'text/plain', Buffer.alloc(3 * MIB + 1, 0x61));
      expect(res.status).toBe(413);
      expect(res.body.type).toBe('/problems/payload-too-large');
      expect(storedFiles(server)).toEqual(before);
    });

    it('given 3 MiB + 1 byte with isBigFile=true, then it is accepted (100 MB ceiling)', async () => {
      const res = await files.upload(users.team, 'big.txt', 'text/plain', Buffer.alloc(3 * MIB + 1, 0x61), {
        query: '?isBigFile=true',
      });
      expect(res.status).toBe(200);
    });

    it('given a chunked body (no Content-Length) over the ceiling, then 413 and nothing left behind', async () => {
      const before = await settledFiles(server);
      const { body, contentType } = multipart([
        { name: 'file', filename: 'big.txt', contentType: 'text/plain', data: Buffer.alloc(3 * MIB + 1, 0x61) },
      ]);
      const res = await uploadChunked(body, contentType);
      expect(res.status).toBe(413);
      expect(storedFiles(server)).toEqual(before);
    });
  });

  describe('what follows the closing boundary', () => {
    it('given a small file and then more bytes than the ceiling after the closing boundary, chunked, then 413 and nothing left behind', async () => {
      const before = await settledFiles(server);
      const { body, contentType } = multipart([
        { name: 'file', filename: 'small.txt', contentType: 'text/plain', data: Buffer.from('hello') },
      ]);
      const epilogue = Buffer.alloc(3 * MIB + 128 * 1024, 0x61);
      const res = await uploadChunked(Buffer.concat([body, epilogue]), contentType).catch((error: unknown) => error);
      // The answer is 413, or the connection is cut before the client reads it: never a stored file.
      if (res instanceof Response) expect(res.status).toBe(413);
      expect(storedFiles(server)).toEqual(before);
    });

    it('given a short epilogue within the framing allowance, then the file is stored', async () => {
      const { body, contentType } = multipart([
        { name: 'file', filename: 'small.txt', contentType: 'text/plain', data: Buffer.from('hello') },
      ]);
      const res = await fetch(`${server.url}/api/File/Upload`, {
        method: 'POST',
        headers: { authorization: `Bearer ${await server.sessionToken(users.team)}`, 'content-type': contentType },
        body: Buffer.concat([body, Buffer.from('\r\nan epilogue the parser ignores\r\n')]),
      });
      expect(res.status).toBe(200);
    });
  });

  describe('a client that disconnects mid-upload', () => {
    it('when the connection drops after part of the file, then nothing is left behind', async () => {
      const before = await settledFiles(server);
      const { body, contentType } = multipart([
        { name: 'file', filename: 'cut.txt', contentType: 'text/plain', data: Buffer.alloc(2 * MIB, 0x61) },
      ]);
      const token = await server.sessionToken(users.team);
      const { port } = new URL(server.url);
      await new Promise<void>((resolve) => {
        const req = http.request({
          host: '127.0.0.1',
          port: Number(port),
          method: 'POST',
          path: '/api/File/Upload',
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': contentType,
            'content-length': String(body.length),
          },
        });
        req.on('error', () => resolve());
        req.on('close', () => resolve());
        req.write(body.subarray(0, 512 * 1024), () => {
          // Half a megabyte in: the staging file exists; then the client goes away.
          req.destroy();
        });
      });
      expect(await eventually(() => storedFiles(server).join() === before.join())).toBe(true);
      // The server still answers afterwards.
      expect((await files.upload(users.team, 'after.txt', 'text/plain', Buffer.from('x'))).status).toBe(200);
    });
  });
});

describe('POST /api/File/Upload with isBigFile=true (a test configuration: UPLOAD_BIG_MAX_MB=4)', () => {
  let server: TestServer;
  let files: ReturnType<typeof fileApi>;

  beforeAll(async () => {
    server = await startTestServer({ UPLOAD_MAX_MB: '1', UPLOAD_BIG_MAX_MB: '4' });
    expect((await server.directory(demoDirectory.events)).status).toBe(200);
    files = fileApi(server);
  });
  afterAll(() => server.close());

  it('given exactly 4 MiB, then it is accepted', async () => {
    const res = await files.upload(
      users.team,
      'video.mp4',
      'video/mp4',
      Buffer.concat([SAMPLES.mp4![1](), Buffer.alloc(4 * MIB - 256)]),
      {
        query: '?isBigFile=true',
      },
    );
    expect(res.status).toBe(200);
  });

  it('given 4 MiB + 1 byte, then 413 and nothing left behind', async () => {
    const before = await settledFiles(server);
    const res = await files.upload(
      users.team,
      'video.mp4',
      'video/mp4',
      Buffer.concat([SAMPLES.mp4![1](), Buffer.alloc(4 * MIB - 255)]),
      {
        query: '?isBigFile=true',
      },
    );
    expect(res.status).toBe(413);
    expect(storedFiles(server)).toEqual(before);
  });

  it('given 1 MiB + 1 byte without isBigFile, then 413', async () => {
    const res = await files.upload(users.team, 'a.txt', 'text/plain', Buffer.alloc(MIB + 1, 0x61));
    expect(res.status).toBe(413);
  });
});

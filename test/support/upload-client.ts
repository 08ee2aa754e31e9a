import { randomBytes } from 'node:crypto';
import type { HttpResult, TestServer } from './test-server';

export type Part =
  | { readonly name: string; readonly value: string }
  | { readonly name: string; readonly filename: string; readonly contentType: string; readonly data: Buffer };

/** A multipart/form-data body, written out by hand as a browser would send it. */
export function multipart(parts: readonly Part[]): { body: Buffer; contentType: string } {
  const boundary = `----form${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const head =
      'filename' in part
        ? `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"; filename="${part.filename}"\r\nContent-Type: ${part.contentType}\r\n\r\n`
        : `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"\r\n\r\n`;
    chunks.push(
      Buffer.from(head, 'utf8'),
      'filename' in part ? part.data : Buffer.from(part.value, 'utf8'),
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** POST /api/File/Upload and GET /api/File/Download, over HTTP as a client does. */
export function fileApi(server: TestServer) {
  const send = async (
    userId: number,
    parts: readonly Part[],
    query = '',
    headers: Record<string, string> = {},
  ): Promise<HttpResult<any>> => {
    const { body, contentType } = multipart(parts);
    const response = await fetch(`${server.url}/api/File/Upload${query}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await server.sessionToken(userId)}`,
        'content-type': contentType,
        ...headers,
      },
      body,
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // keep the text
    }
    return { status: response.status, headers: response.headers, body: parsed, text };
  };
  return {
    send,
    upload: (
      userId: number,
      filename: string,
      contentType: string,
      data: Buffer,
      options: { folder?: string; query?: string } = {},
    ) =>
      send(
        userId,
        [
          ...(options.folder !== undefined ? [{ name: 'folder', value: options.folder }] : []),
          { name: 'file', filename, contentType, data },
        ],
        options.query ?? '',
      ),
    /** Uploads and insists it worked: for the givens of a test. */
    async uploaded(userId: number, filename: string, contentType: string, data: Buffer): Promise<string> {
      const res = await send(userId, [{ name: 'file', filename, contentType, data }]);
      if (res.status !== 200 || typeof res.body !== 'string')
        throw new Error(`given: upload failed with ${res.status} ${res.text}`);
      return res.body;
    },
    async download(userId: number, path: string, headers: Record<string, string> = {}) {
      const response = await fetch(`${server.url}/api/File/Download?path=${encodeURIComponent(path)}`, {
        headers: { authorization: `Bearer ${await server.sessionToken(userId)}`, ...headers },
      });
      const bytes = Buffer.from(await response.arrayBuffer());
      return {
        status: response.status,
        headers: response.headers,
        bytes,
        json: () => JSON.parse(bytes.toString('utf8')) as any,
      };
    },
  };
}

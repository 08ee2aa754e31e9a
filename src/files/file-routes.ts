import { createHash, randomBytes } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import type { Request, Response } from 'express';
import type { FileAccessDeps } from './file-access';
import { downloadableFile } from './file-access';
import { storeUpload } from './file-lifecycle';
import { stampOf } from '../commands/request-info';
import { DomainError, notFound } from '../domain/errors';
import { ACCEPTED_EXTENSIONS, contentDisposition, servedContentType } from './upload-policy';
import { ifRangeHolds, parseRange } from './http-range';
import type { FileStore } from '../ports/file-store';
import { sendProblem } from '../api/problem';
import type { Settle } from '../api/route-declaration';
import { routeGroup, written } from '../api/route-declaration';
import { downloadQuery, uploadAnswerSchema, uploadQuery } from './file-schemas';
import type { ReceivedUpload } from './receive-upload';
import { MULTIPART_OVERHEAD, UploadAbortedError, UploadRefusedError, receiveUpload } from './receive-upload';
import type { FileUploaded } from './file-events';
import { uploadFingerprint } from './upload-fingerprint';
import type { IdempotencyKeys } from '../ports/idempotency-keys';

/** UPLOAD_MAX_MB and UPLOAD_BIG_MAX_MB count MiB: 1 MB = 1024 × 1024 bytes. */
export const MIB = 1024 * 1024;

const missing = () => notFound('no such file');

/** RFC 9110 If-None-Match: `*` or a list of entity tags, compared weakly. */
function ifNoneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

const binary = { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } as const;

/** What the file routes read and write through. */
export type FileRouteDeps = FileAccessDeps & {
  readonly config: { readonly UPLOAD_MAX_MB: number; readonly UPLOAD_BIG_MAX_MB: number };
  readonly fileStore: FileStore;
  readonly clock: () => Date;
  readonly settle: Settle;
  readonly idempotencyKeys: IdempotencyKeys;
};

/**
 * The uploads read before their handler runs (to fingerprint an Idempotency-Key): the handler takes
 * its own; one left when the answer is sent (a replay, a 409, a 422, a failure) is discarded.
 */
const receivedUploads = new WeakMap<Request, ReceivedUpload>();

type UploadInput = { readonly query: { readonly isBigFile: boolean }; readonly req: Request; readonly res: Response };

/**
 * Streams the upload into staging; undefined when it answered by itself (not multipart, a refused file, the
 * client gone). Kept for the handler, and discarded once the answer is sent if the handler did not take it.
 */
async function receiveOnce(ctx: FileRouteDeps, { query: { isBigFile }, req, res }: UploadInput) {
  const limit = (isBigFile ? ctx.config.UPLOAD_BIG_MAX_MB : ctx.config.UPLOAD_MAX_MB) * MIB;
  // Whatever happens below, the connection is not reused: an early answer may leave body bytes unread.
  const early = (): void => void res.setHeader('Connection', 'close');
  if (!req.is('multipart/form-data')) {
    early();
    return void sendProblem(res, 'unsupportedMediaType', 'the body must be multipart/form-data with a `file` part');
  }
  const declaredLength = Number(req.header('content-length'));
  if (Number.isFinite(declaredLength) && declaredLength > limit + MULTIPART_OVERHEAD) {
    early();
    throw new DomainError('payload_too_large', `the body is over the ${limit} byte ceiling of this request`, [
      { field: 'file', message: `at most ${limit} bytes` },
    ]);
  }
  let received: ReceivedUpload;
  try {
    received = await receiveUpload(req, ctx.fileStore, limit);
  } catch (error) {
    early();
    if (error instanceof UploadRefusedError) return void sendProblem(res, 'uploadRefused', error.reason);
    if (error instanceof UploadAbortedError) return undefined;
    throw error;
  }
  receivedUploads.set(req, received);
  res.once('close', () => {
    if (receivedUploads.get(req) !== received) return;
    receivedUploads.delete(req);
    void ctx.fileStore.discard(received.staged).catch(() => undefined);
  });
  return received;
}

/** POST /api/File/Upload and GET /api/File/Download (docs/api.md "Files"). */
export const FILE_ROUTES = routeGroup<FileRouteDeps>(
  { tag: 'files', access: 'api', settle: (ctx) => ctx.settle },
  (files) => [
    files.post('/api/File/Upload', 'uploadFile', {
      writes: true,
      summary: 'Store a file (multipart, one `file` part, optional `folder`) and answer its path; creates no resource',
      description: `Accepted extensions: ${ACCEPTED_EXTENSIONS.map((e) => `.${e}`).join(', ')}. The declared content type must fit the extension (\`application/octet-stream\` always fits) and the leading bytes must not contradict it. Ceiling: UPLOAD_MAX_MB (3) MiB, UPLOAD_BIG_MAX_MB (100) MiB with \`isBigFile=true\`; 1 MB = 1024 × 1024 bytes.`,
      request: {
        query: uploadQuery,
        documentedBody: {
          required: true,
          content: {
            'multipart/form-data': {
              schema: {
                type: 'object',
                required: ['file'],
                properties: {
                  file: {
                    type: 'string',
                    format: 'binary',
                    description: 'The file, with its name (`filename`) and content type in the part headers',
                    example: 'hello',
                  },
                  folder: {
                    type: 'string',
                    pattern: '^[A-Za-z0-9_-]{1,64}$',
                    default: 'resource_files',
                    description: 'The first segment of the stored path',
                    example: 'resource_files',
                  },
                },
                example: { file: 'hello', folder: 'resource_files' },
              },
            },
          },
        },
      },
      answers: {
        200: { description: 'The stored path, `folder/<random id>/<sanitised file name>`', json: uploadAnswerSchema },
        500: {
          description:
            'The extension, the content type or the content is not accepted ' +
            '(`/problems/upload-refused`, `detail` says why); or an unexpected error ' +
            '(`/problems/internal`)',
          problem: true,
        },
      },
      errors: [400, 401, 403, 413, 415],
      idempotent: {
        store: (ctx) => ctx,
        // The attempt that died after its FileUploaded was stored: the path it stored, nothing stored again.
        resume: (ctx) => async (write) => {
          const uploaded = (await ctx.eventStore.readStream(write.streamId)).find((e) => e.type === 'FileUploaded');
          if (!uploaded) throw new Error(`${write.streamId}: the recorded write holds no FileUploaded`);
          const { path } = uploaded.data as FileUploaded['data'];
          return written(write.position, () => path);
        },
        fingerprint: (ctx) => async (input) => {
          const received = await receiveOnce(ctx, input);
          if (!received) return undefined;
          const { folder, staged, declared } = received;
          return uploadFingerprint({
            url: input.req.originalUrl,
            folder,
            file: {
              name: declared.fileName,
              contentType: declared.contentType,
              size: staged.size,
              sha256: declared.sha256,
            },
          });
        },
      },
      handle: (ctx) => async (input) => {
        const received = receivedUploads.get(input.req) ?? (await receiveOnce(ctx, input));
        if (!received) return;
        receivedUploads.delete(input.req);
        const { request } = input;
        const at = ctx.clock().toISOString();
        const path = `${received.folder}/${randomBytes(16).toString('base64url')}/${received.fileName}`;
        const position = await storeUpload(
          ctx,
          received.staged,
          {
            path,
            name: received.fileName,
            contentType: servedContentType(received.fileName),
            uploadedBy: request.caller.userId,
            at,
          },
          stampOf(request, at),
        );
        return written(position, () => path);
      },
    }),
    files.get('/api/File/Download', 'downloadFile', {
      summary:
        'The bytes of an upload, for a caller who can see a resource referencing it (or its uploader while none does)',
      request: { query: downloadQuery },
      answers: {
        200: {
          description:
            'The file, as an attachment (`Content-Disposition` with RFC 6266 `filename*`), ' +
            '`X-Content-Type-Options: nosniff`, `Cache-Control: private`, `Accept-Ranges: ' +
            'bytes`, a strong `ETag`',
          content: binary,
        },
        304: { description: "Not modified: `If-None-Match` names the file's strong `ETag`; no body" },
        206: {
          description:
            'One byte range (`Range: bytes=a-b`, `a-`, `-n`), with `Content-Range`; with `If-Range`, only while it ' +
            "names the file's `ETag` (else 200, the whole file)",
          content: binary,
        },
        416: {
          description:
            'The range starts past the end (`/problems/range-not-satisfiable`); `Content-Range: bytes */<size>`',
          problem: true,
        },
      },
      errors: [400, 401, 403, 404],
      handle:
        (ctx) =>
        async ({ query: { path }, req, res, caller }) => {
          const file = await downloadableFile(ctx, caller, path);
          if (!file) throw missing();
          const stat = await ctx.fileStore.stat(path);
          if (!stat) throw missing();
          res.setHeader('Content-Type', servedContentType(file.name));
          res.setHeader('Content-Disposition', contentDisposition(file.name));
          res.setHeader('X-Content-Type-Options', 'nosniff');
          res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
          res.setHeader('Cache-Control', 'private');
          res.setHeader('Accept-Ranges', 'bytes');
          // Strong: the bytes under an upload path are written once and never change (the path holds a random id).
          const etag = `"${createHash('sha256').update(`${path}\u0000${stat.size}\u0000${file.uploadedAt}`).digest('base64url').slice(0, 32)}"`;
          res.setHeader('ETag', etag);
          if (ifNoneMatch(req.header('if-none-match'), etag)) {
            res.removeHeader('Content-Disposition');
            return void res.status(304).end();
          }
          const range = ifRangeHolds(req.header('if-range'), etag)
            ? parseRange(req.header('range'), stat.size)
            : ({ kind: 'whole' } as const);
          if (range.kind === 'unsatisfiable') {
            res.setHeader('Content-Range', `bytes */${stat.size}`);
            res.removeHeader('Content-Disposition');
            return sendProblem(res, 'rangeNotSatisfiable', `the file has ${stat.size} bytes`);
          }
          const partial = range.kind === 'partial' ? range : undefined;
          const stream = await ctx.fileStore.open(path, partial);
          if (!stream) throw missing();
          if (partial) {
            res.status(206);
            res.setHeader('Content-Range', `bytes ${partial.start}-${partial.end}/${stat.size}`);
            res.setHeader('Content-Length', String(partial.end - partial.start + 1));
          } else {
            res.setHeader('Content-Length', String(stat.size));
          }
          if (req.method === 'HEAD') {
            stream.destroy();
            return void res.end();
          }
          await pipeline(stream, res).catch((error: unknown) => {
            // The client went away mid-download: nothing to answer.
            if (!res.writableFinished) res.destroy(error instanceof Error ? error : undefined);
          });
        },
    }),
  ],
);

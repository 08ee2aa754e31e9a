import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Transform } from 'node:stream';
import type { TransformCallback } from 'node:stream';
import busboy from 'busboy';
import { DomainError, validationError } from '../domain/errors';
import {
  DEFAULT_FOLDER,
  FOLDER_PATTERN,
  SNIFF_BYTES,
  checkDeclared,
  checkLeadingBytes,
  sanitiseFileName,
} from './upload-policy';
import type { FileStore, StagedFile } from '../ports/file-store';

/** The contract's one 500: the extension, the declared content type or the leading bytes are not accepted. */
export class UploadRefusedError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'UploadRefusedError';
  }
}

/** The client went away mid-upload: nothing to answer, nothing kept. */
export class UploadAbortedError extends Error {
  constructor() {
    super('the client disconnected during the upload');
    this.name = 'UploadAbortedError';
  }
}

export type ReceivedUpload = {
  readonly staged: StagedFile;
  readonly fileName: string;
  readonly folder: string;
  /** The file part as the client declared it, and a SHA-256 of its bytes (base64url): what the upload was. */
  readonly declared: { readonly fileName: string; readonly contentType: string; readonly sha256: string };
};

/**
 * What a multipart body may hold beyond its file's bytes: the boundaries, the part headers and the
 * folder field, with room to spare. The body as a whole is bounded by it whatever its framing (a
 * chunked body declares no length), and whatever follows the closing boundary.
 */
export const MULTIPART_OVERHEAD = 64 * 1024;

const tooLarge = (limit: number) =>
  new DomainError('payload_too_large', `the file is over the ${limit} byte ceiling of this request`, [
    { field: 'file', message: `at most ${limit} bytes` },
  ]);

/**
 * Counts the bytes (an error past `limit`), hashes them as they pass, and holds back the first
 * SNIFF_BYTES until their signature is checked, so no byte of a refused file reaches the store.
 */
class UploadGuard extends Transform {
  readonly hash = createHash('sha256');
  private seen = 0;
  private head: Buffer[] = [];
  private headLength = 0;
  private checked = false;

  constructor(
    private readonly fileName: string,
    private readonly limit: number,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.seen += chunk.length;
    if (this.seen > this.limit) return done(tooLarge(this.limit));
    this.hash.update(chunk);
    if (this.checked) return done(null, chunk);
    this.head.push(chunk);
    this.headLength += chunk.length;
    if (this.headLength < SNIFF_BYTES) return done();
    this.release(done);
  }

  override _flush(done: TransformCallback): void {
    if (this.checked) return done();
    this.release(done);
  }

  private release(done: TransformCallback): void {
    const head = Buffer.concat(this.head, this.headLength);
    this.head = [];
    const verdict = checkLeadingBytes(this.fileName, head.subarray(0, SNIFF_BYTES));
    if (verdict.refused) return done(new UploadRefusedError(verdict.reason));
    this.checked = true;
    done(null, head);
  }
}

/**
 * Streams one multipart upload into the file store's staging area (busboy; never the whole body
 * in memory): exactly one `file` part and an optional `folder` field, bounded header count and
 * sizes. Any failure — a bad part, the ceiling, a refused file, the client going away — removes
 * whatever was staged before the promise rejects.
 */
export function receiveUpload(req: IncomingMessage, fileStore: FileStore, limit: number): Promise<ReceivedUpload> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        defParamCharset: 'utf8',
        limits: {
          files: 1,
          fields: 1,
          parts: 3,
          fileSize: limit + 1,
          fieldSize: 256,
          fieldNameSize: 64,
          headerPairs: 16,
        },
      });
    } catch {
      reject(validationError('file', 'the body must be multipart/form-data with a boundary'));
      return;
    }
    let failure: Error | undefined;
    let staging: Promise<StagedFile> | undefined;
    let guard: UploadGuard | undefined;
    let fileName = '';
    let declaredName = '';
    let declaredType = '';
    let folder: string | undefined;
    let settled = false;

    const settle = async () => {
      if (settled) return;
      settled = true;
      const staged = await staging?.catch(() => undefined);
      if (failure) {
        if (staged) await fileStore.discard(staged).catch(() => undefined);
        reject(failure);
      } else if (!staged) {
        reject(validationError('file', 'the file part is missing'));
      } else {
        const sha256 = guard?.hash.digest('base64url') ?? '';
        const declared = { fileName: declaredName, contentType: declaredType, sha256 };
        resolve({ staged, fileName, folder: folder ?? DEFAULT_FOLDER, declared });
      }
    };

    const fail = (error: Error) => {
      if (failure) return;
      failure = error;
      req.unpipe(parser);
      guard?.destroy(error);
      // Read (and drop) what the client still sends, so it can read our answer; a client that
      // keeps sending far past the ceiling is cut off.
      let drained = 0;
      req.on('data', (chunk: Buffer) => {
        drained += chunk.length;
        if (drained > limit + 65_536) req.destroy();
      });
      req.resume();
      void settle();
    };

    parser.on('file', (name, stream, info) => {
      // A body that ends inside the part (no closing boundary) fails the part's stream; piped, the
      // error reaches nothing else, and unhandled it would end the process.
      stream.on('error', () => fail(validationError('file', 'the multipart body ends inside the file part')));
      if (failure) {
        stream.resume();
        return;
      }
      if (name !== 'file') {
        stream.resume();
        return fail(validationError(name, 'unexpected part: send the file as `file`'));
      }
      fileName = sanitiseFileName(info.filename ?? '');
      declaredName = info.filename ?? '';
      declaredType = info.mimeType;
      if (!info.filename) {
        stream.resume();
        return fail(validationError('file', 'the file part has no file name'));
      }
      const declared = checkDeclared(fileName, info.mimeType);
      if (declared.refused) {
        stream.resume();
        return fail(new UploadRefusedError(declared.reason));
      }
      const checking = new UploadGuard(fileName, limit);
      guard = checking;
      checking.on('error', (error) => {
        stream.unpipe(checking);
        stream.resume();
        fail(error);
      });
      staging = fileStore.stage(stream.pipe(checking));
      staging.catch((error: unknown) => fail(error instanceof Error ? error : new Error(String(error))));
    });
    parser.on('field', (name, value, info) => {
      if (name !== 'folder')
        return fail(validationError(name, 'unexpected field: only `file` and `folder` are accepted'));
      if (info.valueTruncated || !FOLDER_PATTERN.test(value)) {
        return fail(validationError('folder', 'must match [A-Za-z0-9_-]{1,64}'));
      }
      folder = value;
    });
    parser.on('filesLimit', () => fail(validationError('file', 'exactly one file part is accepted')));
    parser.on('fieldsLimit', () => fail(validationError('folder', 'only one folder field is accepted')));
    parser.on('partsLimit', () => fail(validationError('file', 'only a file part and a folder field are accepted')));
    parser.on('error', () => fail(validationError('file', 'the multipart body is malformed')));
    parser.on('close', () => void settle());
    req.on('close', () => {
      if (!req.complete) fail(new UploadAbortedError());
    });
    // The file part is counted by its guard; the body is counted here, as it arrives: busboy reads
    // on past the closing boundary (an epilogue), and nothing else would bound what it reads there.
    let received = 0;
    const countBody = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit + MULTIPART_OVERHEAD) {
        req.off('data', countBody);
        fail(tooLarge(limit));
      }
    };
    req.on('data', countBody);
    req.pipe(parser);
  });
}

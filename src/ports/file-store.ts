import type { Readable } from 'node:stream';

/** A file being written: its bytes are in a staging area, invisible under any path, until committed. */
export type StagedFile = { readonly key: string; readonly size: number };

/** An inclusive byte range, already checked against the file's size. */
export type ByteRange = { readonly start: number; readonly end: number };

/**
 * The file store port (docs/api.md "Shape"): files under DATA_DIR on the embedded default, MongoDB
 * GridFS in production. Writing is two-phase so that nothing is stored under a path before the
 * upload has been checked whole: `stage` streams the bytes into a staging area (and removes them
 * itself when the stream fails or is aborted), `commit` publishes them under a path, `discard`
 * drops them. Paths are the upload endpoint's `folder/<random id>/<name>`; an adapter refuses any
 * other (no path traversal).
 */
export interface FileStore {
  stage(content: Readable): Promise<StagedFile>;
  commit(staged: StagedFile, path: string): Promise<void>;
  discard(staged: StagedFile): Promise<void>;
  /** The file's size; null when nothing is stored under the path. */
  stat(path: string): Promise<{ readonly size: number } | null>;
  /** A stream of the file's bytes, or of one range of them; null when nothing is stored under the path. */
  open(path: string, range?: ByteRange): Promise<Readable | null>;
  /** Removes the file; false when there was none. */
  delete(path: string): Promise<boolean>;
  /** Drops staged files older than `before` (a process that died mid-upload leaves them). */
  purgeStaging(before: Date): Promise<number>;
  close(): Promise<void>;
}

/** A path that is not the shape the upload endpoint produces: refused before touching storage. */
export class InvalidFilePathError extends Error {
  constructor(readonly path: string) {
    super('not a stored file path');
    this.name = 'InvalidFilePathError';
  }
}

import fs from 'node:fs';
import Database from 'better-sqlite3';
import { sqliteBusyTimeoutMs } from '../infra/sqlite/wal-mode';
import { chainHead, verifyChain } from '../infra/sqlite/sqlite-hash-chain';
import { makePrivateFile, makeSqliteFilesPrivate } from '../config/private-files';

/**
 * Copies of the embedded event log for backup and restore: always through SQLite
 * (`VACUUM INTO`), never by copying the file. VACUUM INTO reads the log inside one read
 * transaction: in WAL mode that is a consistent snapshot taken while the service keeps appending
 * (readers never block the writer, nor the writer them); the copy is compact and complete in itself
 * (no -wal file to go with it).
 */
export function copyLog(sourceFile: string, targetFile: string): void {
  const source = new Database(sourceFile, { readonly: true, fileMustExist: true, timeout: sqliteBusyTimeoutMs });
  try {
    // Created 0600 first (VACUUM INTO accepts an empty file): the copy is never readable by others.
    makePrivateFile(targetFile);
    source.prepare('vacuum into ?').run(targetFile);
    makeSqliteFilesPrivate(targetFile);
  } finally {
    source.close();
  }
}

/** What a copy of the log holds, read without writing to it. */
export type LogFacts = {
  readonly integrity: string;
  readonly events: number;
  readonly lastPosition: string | null;
  readonly logIdentity: string | null;
  readonly chainHead: { readonly position: string; readonly hash: string } | null;
  /** The first event whose hash does not match, when one does not (see sqlite-hash-chain.ts). */
  readonly chainBreak: { readonly position: string; readonly streamId: string; readonly type: string } | null;
};

export function logFacts(file: string): LogFacts {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    db.defaultSafeIntegers(true);
    const integrity = String(db.pragma('integrity_check', { simple: true }));
    const counted = db
      .prepare<[], { events: bigint; last: bigint | null }>(
        'select count(*) as events, max(position) as last from events',
      )
      .get();
    const identity = db.prepare<[], { value: string }>(`select value from meta where key = 'log_id'`).get();
    // A log no process that hashes events has opened has no hash column: nothing to check.
    const hashed = db
      .prepare<[], { name: string }>('pragma table_info(events)')
      .all()
      .some((c) => c.name === 'hash');
    const broken = hashed ? verifyChain(db).firstMismatch : null;
    const head = hashed ? chainHead(db) : undefined;
    return {
      integrity,
      events: Number(counted?.events ?? 0n),
      lastPosition: counted?.last == null ? null : counted.last.toString(),
      logIdentity: identity ? `sqlite:${identity.value}` : null,
      chainHead: head ? { position: head.position.toString(), hash: head.hash } : null,
      chainBreak: broken && { position: broken.position.toString(), streamId: broken.streamId, type: broken.type },
    };
  } finally {
    db.close();
  }
}

/** A directory that does not exist or holds nothing (a fresh DATA_DIR may hold its generated dev secrets). */
export function isEmptyDir(dir: string, ignoring: readonly string[] = []): boolean {
  if (!fs.existsSync(dir)) return true;
  return fs.readdirSync(dir).every((entry) => ignoring.includes(entry));
}

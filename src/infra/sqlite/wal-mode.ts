import type Database from 'better-sqlite3';

/**
 * Several processes may share one DATA_DIR (API processes, a projector, the operator CLI): a
 * writer that finds the write lock taken waits this long for it instead of failing at once with
 * SQLITE_BUSY. Appends hold the lock for one short transaction, so the wait is short in practice.
 */
export const sqliteBusyTimeoutMs = 5000;

/** How long a switch that found the file busy waits before it is tried again. */
const RETRY_MS = 10;

/**
 * Switches a connection to WAL. Processes opening one file at the same moment each try, and one
 * that finds another mid-switch may be answered SQLITE_BUSY at once, without waiting out the busy
 * timeout (SQLite takes that lock without calling the busy handler): the switch is tried again
 * until `timeoutMs` has passed. Startup only, so the wait blocks the thread.
 */
export function switchToWal(db: Database.Database, timeoutMs: number): void {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      const busy = (error as { code?: unknown }).code === 'SQLITE_BUSY';
      if (!busy || Date.now() >= deadline) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, RETRY_MS);
    }
  }
}

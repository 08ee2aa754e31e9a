/**
 * The embedded log's commit thread (see SqliteCommitThread): its own connection to the log, with
 * synchronous=FULL, runs each batch it is sent as one group commit and answers once the commit,
 * and its fsync, are done. The event loop of the service never waits for the disk.
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { groupCommitOn } from './sqlite-group-commit';
import type { StoredAppend } from '../stored-append';
import { toWire, type CommitReply } from './sqlite-commit-wire';

const { file, hashChain, busyTimeoutMs } = workerData as { file: string; hashChain: boolean; busyTimeoutMs: number };
const db = new Database(file, { timeout: busyTimeoutMs });
db.pragma(`busy_timeout = ${busyTimeoutMs}`);
// FULL syncs the WAL on every commit: an acknowledged append survives kill -9 and power loss.
db.pragma('synchronous = FULL');
const commit = groupCommitOn(db, { hashChain });

parentPort?.on('message', (batch: readonly StoredAppend[] | 'close') => {
  if (batch === 'close') {
    db.close();
    parentPort?.close();
    return;
  }
  let reply: CommitReply;
  try {
    reply = {
      outcomes: commit(batch).map((o) => (o.ok ? o : { ok: false as const, error: toWire(o.error) })),
    };
  } catch (error) {
    reply = { failed: toWire(error) };
  }
  parentPort?.postMessage(reply);
});

import { EVENT_CATALOG } from '../app/event-catalog';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Config } from '../config/config';
import { makePrivateDir, PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../config/private-files';
import { keptReadModelsFile } from '../infra/read-db';
import { SqliteEventStore } from '../infra/sqlite/sqlite-event-store';
import { versionedEventStore } from '../app/versioned-event-store';
import type { LogDigest } from './log-digest';
import { projectedDigest } from './log-digest';
import type { LogFacts } from './sqlite-log-copy';
import { copyLog, isEmptyDir, logFacts } from './sqlite-log-copy';

/**
 * `backup DEST`, `restore SRC`, `verify SRC` (docs/operations.md "Backup and restore"): the embedded
 * event log copied online through SQLite, with a manifest of what the copy holds. The read models
 * are not copied: they are a function of the log, rebuilt from it by the first start after a
 * restore (and checked here by projecting the copy: its digest is in the manifest). What the
 * generations do not hold is copied: the read models kept across them (API keys' lastUsedAt).
 * Everything written is 0700/0600. A backup holds only files and directories: a link or a special
 * file in it (or among the uploads being backed up) is refused, naming it, before anything is written.
 */
export const BACKUP_HELP = {
  backup:
    'usage: npm run cli -- backup <DEST>\n' +
    '  copy the event log (a consistent snapshot, taken while the service writes), the read models kept\n' +
    '  across generations and the uploads into\n' +
    '  the empty or new directory DEST, with DEST/backup.json: events, last position, chain head, read-model digest\n',
  restore:
    'usage: npm run cli -- restore <SRC>\n' +
    '  verify the backup SRC, then restore it into DATA_DIR, which must be empty (refused otherwise);\n' +
    '  the read models are rebuilt from the log when the service starts\n',
  verify:
    'usage: npm run cli -- verify <SRC>\n' +
    '  check the backup SRC against its manifest: SQLite integrity, event count and last position,\n' +
    '  hash chain, and the read-model digest of the log projected afresh\n',
} as const;

const MANIFEST = 'backup.json';
const LOG = 'events.sqlite';
const FILES = 'files';
const KEPT = path.basename(keptReadModelsFile('.'));
/** What a DATA_DIR may hold and still be empty: its generated development secrets. */
const FRESH_DATA_DIR = ['dev-secrets.json'];

export type BackupManifest = LogFacts & {
  readonly format: 1;
  readonly createdAt: string;
  readonly digest: LogDigest['digest'];
  readonly counts: LogDigest['counts'];
  readonly uploads: boolean;
  /** Whether the read models kept across generations were copied (absent in older backups: no). */
  readonly keptReadModels?: boolean;
};

type Out = { write(text: string): void };

/** What a backup stopped before its manifest leaves: its files, and nothing else, without the manifest. */
function isInterruptedBackup(dir: string): boolean {
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) return false;
  const entries = fs.readdirSync(dir);
  // A copied log with what SQLite keeps beside it (-journal, -wal, -shm).
  const ours = (entry: string) =>
    [LOG, KEPT].some((file) => entry === file || entry.startsWith(`${file}-`)) ||
    entry === FILES ||
    entry === `${MANIFEST}.writing`;
  return entries.length > 0 && !entries.includes(MANIFEST) && entries.every(ours);
}

class RefusedError extends Error {}

/** Usage and refusals exit 2, a backup that does not check out 1. */
export async function backupCommands(
  command: keyof typeof BACKUP_HELP,
  args: readonly string[],
  config: Config,
  out: Out = process.stdout,
): Promise<number> {
  const [dir, ...extra] = args;
  if (dir === undefined || extra.length > 0) {
    process.stderr.write(BACKUP_HELP[command]);
    return 2;
  }
  const external = config.POSTGRES_URL
    ? 'POSTGRES_URL (pg_dump)'
    : config.EVENTSTORE_URL
      ? 'EVENTSTORE_URL'
      : undefined;
  if (external) {
    process.stderr.write(
      `${command} copies the embedded log; with ${external}, see docs/operations.md "Backup and restore"\n`,
    );
    return 2;
  }
  try {
    if (command === 'backup') return await backup(config, path.resolve(dir), out);
    if (command === 'restore') return await restore(config, path.resolve(dir), out);
    return await verify(path.resolve(dir), out);
  } catch (error) {
    if (!(error instanceof RefusedError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return 2;
  }
}

async function backup(config: Config, dest: string, out: Out): Promise<number> {
  const source = path.join(config.DATA_DIR, LOG);
  if (!fs.existsSync(source)) throw new RefusedError(`no event log at ${source}`);
  if (!isEmptyDir(dest))
    throw new RefusedError(
      isInterruptedBackup(dest)
        ? `${dest} holds a backup that was interrupted (no ${MANIFEST}): remove it and run the backup again`
        : `${dest} is not empty: a backup never overwrites`,
    );
  // A backup inside DATA_DIR would copy itself (its uploads folder holds it) until the path is too long.
  if (isWithin(dest, config.DATA_DIR))
    throw new RefusedError(`${dest} is inside DATA_DIR ${config.DATA_DIR}: a backup goes elsewhere`);
  const uploadsDir = path.join(config.DATA_DIR, FILES);
  const uploads = fs.existsSync(uploadsDir);
  if (uploads) assertPlainTree(uploadsDir, FILES, 'DATA_DIR');
  makePrivateDir(dest);
  fs.chmodSync(dest, PRIVATE_DIR_MODE);
  copyLog(source, path.join(dest, LOG));
  const kept = keptReadModelsFile(config.DATA_DIR);
  const keptReadModels = fs.existsSync(kept);
  if (keptReadModels) copyLog(kept, path.join(dest, KEPT));
  // After the log's snapshot: every upload it references was stored before it, and uploads never change.
  if (uploads) copyPlainTree(uploadsDir, path.join(dest, FILES));
  const facts = logFacts(path.join(dest, LOG));
  const { digest, counts } = await digestOfCopy(path.join(dest, LOG));
  const createdAt = new Date().toISOString();
  const manifest: BackupManifest = { format: 1, createdAt, ...facts, digest, counts, uploads, keptReadModels };
  // Written last, and whole or not at all: a backup without it is one that did not finish.
  const manifestFile = path.join(dest, MANIFEST);
  fs.writeFileSync(`${manifestFile}.writing`, `${JSON.stringify(manifest, null, 2)}\n`, { mode: PRIVATE_FILE_MODE });
  fs.renameSync(`${manifestFile}.writing`, manifestFile);
  out.write(`${JSON.stringify({ backup: dest, events: facts.events, lastPosition: facts.lastPosition, digest })}\n`);
  return facts.integrity === 'ok' && facts.chainBreak === null ? 0 : 1;
}

type Check = { readonly name: string; readonly ok: boolean; readonly expected?: unknown; readonly actual?: unknown };

async function checks(src: string): Promise<{ manifest: BackupManifest; checks: Check[] }> {
  const manifestFile = path.join(src, MANIFEST);
  if (!fs.existsSync(manifestFile) || !fs.existsSync(path.join(src, LOG))) {
    throw new RefusedError(
      isInterruptedBackup(src)
        ? `${src} is a backup that was interrupted (no ${MANIFEST}): take it again`
        : `${src} is not a backup (no ${MANIFEST} or ${LOG})`,
    );
  }
  // The backup's own directory may be reached through a link (the operator named it); nothing in it may.
  for (const entry of fs.readdirSync(src)) assertPlainTree(path.join(src, entry), entry, 'the backup');
  const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as BackupManifest;
  const facts = logFacts(path.join(src, LOG));
  const { digest } = await digestOfCopy(path.join(src, LOG));
  const same = (name: string, expected: unknown, actual: unknown): Check => {
    return { name, ok: JSON.stringify(expected) === JSON.stringify(actual), expected, actual };
  };
  return {
    manifest,
    checks: [
      same('integrity', 'ok', facts.integrity),
      same('events', manifest.events, facts.events),
      same('lastPosition', manifest.lastPosition, facts.lastPosition),
      same('chainHead', manifest.chainHead, facts.chainHead),
      same('chainBreak', null, facts.chainBreak),
      same('digest', manifest.digest, digest),
    ],
  };
}

async function verify(src: string, out: Out): Promise<number> {
  const { manifest, checks: results } = await checks(src);
  const ok = results.every((c) => c.ok);
  const { events, lastPosition, digest } = manifest;
  out.write(`${JSON.stringify({ ok, events, lastPosition, digest, checks: results })}\n`);
  return ok ? 0 : 1;
}

async function restore(config: Config, src: string, out: Out): Promise<number> {
  if (!isEmptyDir(config.DATA_DIR, FRESH_DATA_DIR)) {
    throw new RefusedError(`DATA_DIR ${config.DATA_DIR} is not empty: restore writes only into an empty one`);
  }
  if (isWithin(config.DATA_DIR, src))
    throw new RefusedError(`DATA_DIR ${config.DATA_DIR} is inside the backup ${src}: restore into a place of its own`);
  const { manifest, checks: results } = await checks(src);
  const failed = results.filter((c) => !c.ok);
  if (failed.length > 0) {
    out.write(`${JSON.stringify({ restored: false, checks: failed })}\n`);
    return 1;
  }
  makePrivateDir(config.DATA_DIR);
  fs.chmodSync(config.DATA_DIR, PRIVATE_DIR_MODE);
  const target = path.join(config.DATA_DIR, LOG);
  const written = [`${target}.restoring`, path.join(config.DATA_DIR, KEPT), path.join(config.DATA_DIR, FILES)];
  let keptCopied = false;
  try {
    // Copied beside, then renamed: a service started meanwhile finds no log or the whole one.
    copyLog(path.join(src, LOG), `${target}.restoring`);
    if (fs.existsSync(path.join(src, KEPT))) {
      copyLog(path.join(src, KEPT), path.join(config.DATA_DIR, KEPT));
      keptCopied = true;
    }
    if (manifest.uploads && fs.existsSync(path.join(src, FILES))) {
      copyPlainTree(path.join(src, FILES), path.join(config.DATA_DIR, FILES));
    }
  } catch (error) {
    // Nothing half-restored: the DATA_DIR is left as empty as it was found.
    for (const file of written) fs.rmSync(file, { recursive: true, force: true });
    throw error;
  }
  // Linked, never renamed over: a log that appeared meanwhile (a service started on this DATA_DIR)
  // is left as it is, and the restore refused, rather than replaced under the process writing it.
  try {
    fs.linkSync(`${target}.restoring`, target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    // The copy of the kept records goes with the restore; restored uploads no log names are swept.
    if (keptCopied) fs.rmSync(path.join(config.DATA_DIR, KEPT), { force: true });
    throw new RefusedError(
      `an event log appeared in DATA_DIR ${config.DATA_DIR} during the restore (a service started there?): ` +
        'it was left as it is; stop what wrote it and restore into an empty DATA_DIR',
    );
  } finally {
    fs.rmSync(`${target}.restoring`, { force: true });
  }
  const { events, lastPosition, digest } = manifest;
  out.write(`${JSON.stringify({ restored: true, dataDir: config.DATA_DIR, events, lastPosition, digest })}\n`);
  return 0;
}

/**
 * Whether `inner` is `outer` or lies inside it, by the paths links resolve to (`inner` need not
 * exist yet: its nearest existing parent is resolved).
 */
function isWithin(inner: string, outer: string): boolean {
  const real = (where: string): string => {
    const missing: string[] = [];
    let at = path.resolve(where);
    while (!fs.existsSync(at) && path.dirname(at) !== at) {
      missing.unshift(path.basename(at));
      at = path.dirname(at);
    }
    return path.join(fs.realpathSync(at), ...missing);
  };
  const relative = path.relative(real(outer), real(inner));
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/** Projects a copy of the log (itself copied first: the backup is never opened for writing). */
async function digestOfCopy(file: string): Promise<LogDigest> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'prs-backup-digest-'));
  try {
    copyLog(file, path.join(scratch, LOG));
    const store = versionedEventStore(SqliteEventStore.open(path.join(scratch, LOG)), EVENT_CATALOG);
    try {
      return await projectedDigest(store);
    } finally {
      await store.close();
    }
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * Refuses a tree that holds anything but files and directories (a symbolic link, a FIFO, a
 * socket, a device), naming the entry, before anything is copied from it: a link in a backup
 * would be restored as a link out of DATA_DIR, and the file store would serve what it points at.
 */
function assertPlainTree(dir: string, name: string, where: string): void {
  const stats = fs.lstatSync(dir);
  if (stats.isDirectory()) {
    for (const entry of fs.readdirSync(dir)) assertPlainTree(path.join(dir, entry), path.join(name, entry), where);
    return;
  }
  if (stats.isFile()) return;
  const kind = stats.isSymbolicLink() ? 'a symbolic link' : 'not a regular file';
  throw new RefusedError(`${path.normalize(name)} in ${where} is ${kind}: only files and directories are copied`);
}

/** Copies a tree checked by assertPlainTree: directories 0700, files 0600. */
function copyPlainTree(from: string, to: string): void {
  makePrivateDir(to);
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isDirectory()) copyPlainTree(source, target);
    else if (entry.isFile()) {
      fs.copyFileSync(source, target, fs.constants.COPYFILE_EXCL);
      fs.chmodSync(target, PRIVATE_FILE_MODE);
    } else throw new RefusedError(`${source} is not a regular file: only files and directories are copied`);
  }
}

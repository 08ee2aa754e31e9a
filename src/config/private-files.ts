import fs from 'node:fs';
import path from 'node:path';

/**
 * What DATA_DIR holds is for the service's own user only: idempotency answers, key hashes, client
 * addresses, uploads. Directories are made 0700 and files 0600 with explicit modes, then chmod-ed,
 * so that no umask (neither a permissive one nor one that takes the owner's bits) decides.
 */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Makes `dir` and every missing parent 0700; a directory that already exists is left as it is. */
export function makePrivateDir(dir: string): void {
  const first = fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  if (first === undefined) return;
  const stop = path.dirname(path.resolve(first));
  for (let created = path.resolve(dir); created !== stop; created = path.dirname(created)) {
    fs.chmodSync(created, PRIVATE_DIR_MODE);
  }
}

/**
 * Creates `file` empty and 0600 when missing (before SQLite creates it with the umask's mode), else
 * makes it 0600. A file that exists is never opened: closing any descriptor of a file drops every
 * POSIX lock this process holds on it, SQLite's among them (SQLite's documented way to corrupt a
 * database), and this process may already have a connection to it.
 */
export function makePrivateFile(file: string): void {
  try {
    fs.closeSync(fs.openSync(file, 'wx', PRIVATE_FILE_MODE));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  fs.chmodSync(file, PRIVATE_FILE_MODE);
}

/** A SQLite database and the files beside it (-wal, -shm, -journal) made 0600, those that exist. */
export function makeSqliteFilesPrivate(file: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) {
    try {
      fs.chmodSync(`${file}${suffix}`, PRIVATE_FILE_MODE);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
}

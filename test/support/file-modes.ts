import fs from 'node:fs';
import path from 'node:path';

/**
 * Every entry under `dir` (and `dir` itself, as `.`) whose permission bits are not private:
 * directories must be 0700, files 0600. Links are reported as they are, never followed.
 */
export function notPrivateUnder(dir: string): { path: string; mode: string }[] {
  const wrong: { path: string; mode: string }[] = [];
  const check = (full: string) => {
    const stats = fs.lstatSync(full);
    const mode = stats.mode & 0o777;
    if (mode !== (stats.isDirectory() ? 0o700 : 0o600)) {
      wrong.push({ path: path.relative(dir, full) || '.', mode: mode.toString(8) });
    }
    if (stats.isDirectory()) for (const name of fs.readdirSync(full)) check(path.join(full, name));
  };
  check(dir);
  return wrong;
}

/** Every path under `dir`, relative to it, depth first. */
export function pathsUnder(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();
}

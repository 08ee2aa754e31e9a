import fs from 'node:fs';
import path from 'node:path';

/**
 * A file shipped beside package.json, found from the running module: the code runs from src/
 * (tsx, jest) or from dist/src/ (built), so the depth differs. Undefined when absent.
 */
export function packageFile(relative: string, accept: (file: string) => boolean = () => true): string | undefined {
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const candidate = path.join(dir, relative);
    if (fs.existsSync(candidate) && accept(candidate)) return candidate;
  }
  return undefined;
}

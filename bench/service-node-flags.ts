import fs from 'node:fs';
import path from 'node:path';

/**
 * The Node.js options `npm start` runs the service with (package.json's start script, `node
 * <options> dist/src/main.js`): the bench starts its services the same way, so that what it
 * measures is what a newcomer runs.
 */
export function serviceNodeFlags(root = path.join(__dirname, '..')): string[] {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { start: string } };
  const match = /^node((?: --[\w-]+(?:=\S+)?)*) dist\/src\/main\.js$/.exec(pkg.scripts.start);
  if (!match)
    throw new Error(`package.json's start script is not "node [options] dist/src/main.js": ${pkg.scripts.start}`);
  return (match[1] ?? '').split(' ').filter(Boolean);
}

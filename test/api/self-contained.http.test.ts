/**
 * A clone is enough to read the contract: the README, docs/api.md and the served OpenAPI document
 * send no reader to a file outside the repository.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { serverForSuite } from '../support/suite-server';

const root = path.join(__dirname, '..', '..');
const outside = /\.\.\/[\w.-]+\/|\b(SPEC|DESIGN)\.md\b/;
/** The contract files a clone does not have, however they are reached. */
const contractFiles = /\.\.\/shared\b|\b(SPEC|DESIGN)\.md\b/;

/** The files of the repository (git's index; the working tree when it is no git checkout). */
function trackedFiles(): string[] {
  const listed = spawnSync('git', ['ls-files'], { cwd: root, encoding: 'utf8' });
  if (listed.status === 0)
    return listed.stdout.split('\n').filter((f) => f !== '' && fs.existsSync(path.join(root, f)));
  return ['README.md', 'docs/api.md', 'docs/architecture.md'];
}

describe('a self-contained repository', () => {
  const server = serverForSuite([]);

  it.each(trackedFiles().filter((f) => f.endsWith('.md')))(
    'given %s, then it names no file outside the repository',
    (file) => {
      const text = fs.readFileSync(path.join(root, file), 'utf8');

      expect(text.split('\n').filter((line) => outside.test(line))).toEqual([]);
    },
  );

  it('given the OpenAPI document, then none of its texts names a file outside the repository', async () => {
    const res = await server.get('/openapi.json');
    const texts: string[] = [];
    JSON.stringify(res.body, (key, value: unknown) => {
      if (typeof value === 'string' && (key === 'description' || key === 'summary' || key === 'title'))
        texts.push(value);
      return value;
    });

    expect(texts.filter((t) => outside.test(t))).toEqual([]);
  });

  it('given the code and the tests, then no comment or name cites a contract document by its name', () => {
    // `SPEC "…"` or `DESIGN "…"` sends a reader of a clone to documents it does not hold: a rule is
    // stated where it is used, or cited from docs/api.md.
    const citation = /\b(SPEC|DESIGN)\b/;
    const code = trackedFiles().filter((f) => /^(src|test|bench|scripts|clients)\/.*\.(ts|cjs|mjs|js)$/.test(f));
    const cited = code
      .filter((f) => f !== 'test/api/self-contained.http.test.ts')
      .flatMap((f) =>
        fs
          .readFileSync(path.join(root, f), 'utf8')
          .split('\n')
          .flatMap((line, i) => (citation.test(line) ? [`${f}:${i + 1}`] : [])),
      );

    expect(code.length).toBeGreaterThan(100);
    expect(cited).toEqual([]);
  });

  it('given every file of the repository, then none names the contract files outside it', () => {
    const text = (f: string) => fs.readFileSync(path.join(root, f), 'utf8');
    const files = trackedFiles().filter((f) => !/\.(png|jpe?g|gif|ico|pdf|sqlite|tgz)$/.test(f));

    expect(files.filter((f) => contractFiles.test(text(f)))).toEqual([]);
  });
});

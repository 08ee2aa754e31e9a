/**
 * A clone is enough to read the contract: the README, docs/api.md and the served OpenAPI document
 * send no reader to a file outside the repository.
 */
import fs from 'node:fs';
import path from 'node:path';
import { serverForSuite } from '../support/suite-server';

const root = path.join(__dirname, '..', '..');
const outside = /\.\.\/[\w.-]+\/|\b(SPEC|DESIGN)\.md\b/;

describe('a self-contained repository', () => {
  const server = serverForSuite([]);

  it.each(['README.md', 'docs/api.md'])('given %s, then it names no file outside the repository', (file) => {
    const text = fs.readFileSync(path.join(root, file), 'utf8');

    expect(text.split('\n').filter((line) => outside.test(line))).toEqual([]);
  });

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
});

/**
 * CHANGELOG.md keeps up with the API: its newest entry is the version every answer names, and
 * records the fingerprint of the answers the served OpenAPI document describes
 * (scripts/api-fingerprint.ts). A response schema that changes without a new entry fails here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { apiFingerprint } from '../../scripts/api-fingerprint';
import { serverForSuite } from '../support/suite-server';

/** The heading and the recorded fingerprint of the changelog's newest entry. */
function newestEntry(): { version?: string; fingerprint?: string } {
  const text = fs.readFileSync(path.join(__dirname, '../../CHANGELOG.md'), 'utf8');
  const [, entry = ''] = text.split(/^## /m);
  return {
    version: /^(\S+)/.exec(entry)?.[1],
    fingerprint: /<!--\s*api-fingerprint:\s*([0-9a-f]{64})\s*-->/.exec(entry)?.[1],
  };
}

describe('CHANGELOG.md', () => {
  const server = serverForSuite([]);

  it('given the served API, then the newest entry is the version its answers name', async () => {
    const res = await server.get('/health/live');

    expect(newestEntry().version).toBe(res.headers.get('api-version'));
  });

  it("given the served OpenAPI document, then the newest entry records its answers' fingerprint", async () => {
    const live = apiFingerprint((await server.get('/openapi.json')).body);
    const recorded = newestEntry().fingerprint;

    if (recorded !== live)
      throw new Error(
        `the API's response schemas changed: add a CHANGELOG.md entry (and a new Api-Version if breaking) ` +
          `with api-fingerprint ${live} (recorded in the newest entry: ${recorded ?? 'none'})`,
      );
  });
});

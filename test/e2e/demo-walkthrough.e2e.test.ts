/**
 * The demo walk-throughs, run as written: the shell blocks of docs/api.md ("Try it on the demo directory")
 * and of the README ("Try it with the demo directory"), each against a real service on a fresh DATA_DIR,
 * with only `npm start` left out (the test starts the service) and the address replaced. Every curl must
 * get a 2xx, and each step must show what the page says it shows: the share seen by Finn, the API key
 * acting as Cleo, the upload downloaded with its ETag, and the audit answers about the share.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { root, startServiceProcess } from '../support/service-process';

/** The first `sh` block after the heading `heading` in the Markdown file. */
function shellBlockAfter(file: string, heading: string): string {
  const text = fs.readFileSync(file, 'utf8');
  const from = text.indexOf(heading);
  if (from < 0) throw new Error(`${file} has no heading ${heading}`);
  const block = /```sh\n([\s\S]*?)```/.exec(text.slice(from));
  if (!block?.[1]) throw new Error(`${file} has no sh block after ${heading}`);
  return block[1];
}

/** Runs a bash script; its exit code, and what it wrote. */
function bash(script: string, cwd: string, env: Record<string, string>) {
  return new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
    const child = spawn('bash', ['-c', script], { cwd, env: { ...process.env, ...env } });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

/**
 * Runs the `sh` block after `heading` in `file` as written against a fresh service (without its `npm start`
 * line, at the service's address): every curl must get a 2xx. Answers its output.
 */
async function walk(file: string, heading: string, times = 1): Promise<string> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'prs-demo-'));
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'prs-demo-cwd-'));
  const service = await startServiceProcess({ DATA_DIR: dataDir });
  try {
    const steps = shellBlockAfter(path.join(root, file), heading)
      .split('\n')
      .filter((line) => !/^npm start\b/.test(line))
      .join('\n')
      .replaceAll('localhost:3000', service.url.replace('http://', ''));
    expect(steps).toContain('npm run seed');
    // Every curl fails on an HTTP error, and so does the script; npm runs in the repository, the files land here.
    const prelude = [
      'set -euo pipefail',
      'curl() { command curl --fail-with-body "$@"; }',
      `npm() { command npm --prefix ${JSON.stringify(root)} "$@"; }`,
    ].join('\n');

    let out = '';
    for (let run = 0; run < times; run++) {
      const result = await bash(`${prelude}\n${steps}`, workDir, { DATA_DIR: dataDir, LOG_LEVEL: 'silent' });

      expect({ code: result.code, err: result.code === 0 ? '' : result.err }).toEqual({ code: 0, err: '' });
      out = result.out;
    }
    return out;
  } finally {
    await service.stop();
    fs.rmSync(workDir, { recursive: true, force: true });
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

describe('the demo walk-throughs', () => {
  jest.setTimeout(180_000);

  it('given a fresh service, when the walk-through of docs/api.md runs as written, then every step answers 2xx and shows what the page says', async () => {
    const out = await walk('docs/api.md', '## Try it on the demo directory');

    // Finn sees the share in community 2's view of project 10
    expect(out).toMatch(/"resources":\{"count":1,"list":\[\{"id":1,"name":"Pitch deck"/);
    // the API key acts as Cleo
    expect(out).toContain('"id":3,"name":"Cleo Park","status":"active","credential":"apiKey"');
    // the upload comes back, with a strong ETag
    expect(out).toMatch(/ETag: "[^"]+"/i);
    expect(out).toMatch(/\r?\n\r?\nhello\n/);
    // the audit: the share's event, the resource's history, who sees it now
    expect(out).toContain('"type":"ResourceShared","data":{"resourceId":1,"communityId":2');
    expect(out).toContain('"eventTypes":["ResourceShared"]');
    expect(out).toContain('"eventTypes":["ResourceUnshared"]');
    expect(out).toMatch(/"resourceId":1,"at":"[^"]+","status":"active","views":\[\{/);
  });

  it('given a service that already holds the walk-through’s resource, when it runs again, then it follows its own new resource', async () => {
    // The walk-through keeps the id its save answered: on a store that is not empty it is not 1.
    const out = await walk('docs/api.md', '## Try it on the demo directory', 2);

    expect(out).toMatch(/"resources":\{"count":1,"list":\[\{"id":2,"name":"Pitch deck"/);
    expect(out).toContain('"type":"ResourceShared","data":{"resourceId":2,"communityId":2');
  });

  it('given a fresh service, when the README’s demo runs as written, then Ada is known, saves, and sees her save listed', async () => {
    const out = await walk('README.md', '## Try it with the demo directory');

    expect(out).toContain('"id":1,"name":"Ada Lovelace","status":"active","credential":"session"');
    expect(out).toMatch(/"resources":\{"count":1,"list":\[\{"id":1,"name":"Pitch deck"/);
  });
});

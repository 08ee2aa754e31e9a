/**
 * The service is started with the same Node.js options everywhere it is started for real: `npm
 * start` (package.json) and the container image (Dockerfile). The bench reads them from
 * package.json, so that it measures what runs.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openEventStore } from '../../src/app/services';
import { loadConfig } from '../../src/config/config';

const root = path.join(__dirname, '..', '..');

const startScript = (
  JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
    scripts: { start: string };
  }
).scripts.start;

/** The words of the Dockerfile's last CMD, in its exec form (a JSON array). */
function dockerCommand(): string[] {
  const lines = fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8').split('\n');
  const cmd = lines.filter((line) => line.startsWith('CMD ')).at(-1);
  if (cmd === undefined) throw new Error('the Dockerfile has no CMD');
  return JSON.parse(cmd.slice('CMD '.length)) as string[];
}

describe('how the service is started', () => {
  it('given npm start, then it runs the built entry point with a bound on the old generation of the heap', () => {
    const words = startScript.split(' ');

    expect(words[0]).toBe('node');
    expect(words.at(-1)).toBe('dist/src/main.js');
    expect(words.slice(1, -1)).toContainEqual(expect.stringMatching(/^--max-old-space-size=\d+$/));
  });

  it('given the container image, then it starts the service with the same command as npm start', () => {
    expect(dockerCommand()).toEqual(startScript.split(' '));
  });
});

describe('the backend POSTGRES_URL selects', () => {
  it('given POSTGRES_URL, when the event store is opened, then it is the PostgreSQL log, and nothing is written to DATA_DIR', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'prs-pg-select-'));
    // An address nobody listens on: the log connects lazily, so opening it names its kind at once.
    const config = loadConfig({ POSTGRES_URL: 'postgres://postgres@127.0.0.1:9/none', DATA_DIR: dataDir });

    const log = openEventStore(config);

    try {
      expect(fs.readdirSync(dataDir)).toEqual([]);
      await expect(log.identity?.()).rejects.toThrow();
    } finally {
      await log.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

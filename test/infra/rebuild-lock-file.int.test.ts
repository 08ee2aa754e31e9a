/**
 * The embedded store's rebuild lock (src/infra/read-generations.ts): a file naming its process,
 * taken over from a process that died, and held only while the file is still this lock's.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config/config';
import { readGenerations } from '../../src/infra/read-generations';

const DEAD_PID = 2 ** 22 + 12_345; // above Linux's pid_max default: no process has it

function generationsIn() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'prs-rebuild-lock-file-'));
  const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', PORT: '0', DATA_DIR: dataDir });
  return { generations: readGenerations(config), lockFile: path.join(dataDir, 'read-models.rebuild.lock') };
}

describe('the embedded rebuild lock', () => {
  it('given a lock held, when another rebuild asks, then it is refused; once released, it is taken', async () => {
    const { generations } = generationsIn();
    const first = await generations.lockRebuild('job-1');

    expect(first?.held).toBe(true);
    expect(await generations.lockRebuild('job-2')).toBeNull();
    expect(await generations.rebuildJob?.()).toBe('job-1');
    await first!.release();
    expect((await generations.lockRebuild('job-3'))?.held).toBe(true);
  });

  it("given a dead process's lock, then it is taken over", async () => {
    const { generations, lockFile } = generationsIn();
    fs.writeFileSync(lockFile, `${DEAD_PID}\njob-dead\n`);

    const lock = await generations.lockRebuild('job-live');

    expect(lock?.held).toBe(true);
    expect(await generations.rebuildJob?.()).toBe('job-live');
  });

  it('given the lock file replaced by another process meanwhile, then the lock reads as not held, and its release leaves the other one', async () => {
    const { generations, lockFile } = generationsIn();
    const lock = await generations.lockRebuild('job-1');
    const other = `${process.pid}\njob-other\nfeedfacefeedface\n`;

    fs.rmSync(lockFile);
    fs.writeFileSync(lockFile, other);

    expect(lock?.held).toBe(false);
    await lock!.release();
    expect(fs.readFileSync(lockFile, 'utf8')).toBe(other);
  });
});

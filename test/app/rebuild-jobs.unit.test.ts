/**
 * The job machinery alone, on a stand-in read side: what needs a read side the embedded test
 * server does not have (generations that cannot copy, as MongoDB's), and the order in which a
 * job's end is told.
 */
import { RebuildJobs, type Rebuilder } from '../../src/app/rebuild-jobs';
import type { RebuildLock } from '../../src/infra/read-generations';
import { createLogger } from '../../src/observability/logger';

function standIn(overrides: Partial<Rebuilder> = {}) {
  let lockHeld = false;
  const lock: RebuildLock = {
    get held() {
      return lockHeld;
    },
    release: async () => {
      lockHeld = false;
    },
  };
  const side: Rebuilder = {
    rebuildsSomeAlone: true,
    lockRebuild: async () => {
      if (lockHeld) return null;
      lockHeld = true;
      return lock;
    },
    rebuildJob: async () => undefined,
    rebuild: async (options) => {
      options.phase?.('replaying');
      options.progress?.({ position: 7n, head: 7n, eventsApplied: 7, eventsPerSecond: 70 });
      options.phase?.('switching');
    },
    ...overrides,
  };
  return { side, lockHeld: () => lockHeld };
}

describe('rebuild jobs on a stand-in read side', () => {
  const logger = createLogger('silent');

  it('given generations that cannot copy (MongoDB), when one read model is asked alone, then it is a 400 naming readModel and no lock is taken', async () => {
    const { side, lockHeld } = standIn({ rebuildsSomeAlone: false });
    const jobs = new RebuildJobs(side, { switchHere: true, logger });
    await expect(jobs.start(['files'])).rejects.toMatchObject({
      kind: 'validation',
      errors: [{ field: 'readModel', message: expect.stringContaining('MongoDB') }],
    });
    expect(lockHeld()).toBe(false);
    // every read model is still rebuilt there
    const job = await jobs.start();
    await jobs.settled();
    expect(jobs.get(job.jobId)).toMatchObject({ phase: 'done', outcome: 'succeeded' });
  });

  it('given a job, then every change is told in order, and by the time its end is told the lock is free and the next job starts', async () => {
    const seen: string[] = [];
    const { side, lockHeld } = standIn();
    let next: Promise<unknown> | undefined;
    const jobs: RebuildJobs = new RebuildJobs(side, {
      switchHere: false,
      logger,
      observe: (job) => {
        seen.push(job.phase);
        if (job.outcome !== null && next === undefined) {
          expect(lockHeld()).toBe(false);
          next = jobs.start();
        }
      },
    });
    const first = await jobs.start(['resources']);
    await jobs.settled();
    expect(seen.slice(0, 5)).toEqual(['queued', 'replaying', 'replaying', 'switching', 'done']);
    expect(jobs.get(first.jobId)?.progress).toEqual({ position: '7', head: '7', eventsApplied: 7 });
    await expect(next).resolves.toMatchObject({ phase: 'queued' });
    await jobs.settled();
  });

  it('given the lock held by a job of another process that the lock records, then the conflict names that job', async () => {
    const { side } = standIn({ lockRebuild: async () => null, rebuildJob: async () => 'elsewhere-7' });
    const jobs = new RebuildJobs(side, { switchHere: true, logger });
    await expect(jobs.start()).rejects.toMatchObject({ kind: 'conflict', extensions: { jobId: 'elsewhere-7' } });
  });
});

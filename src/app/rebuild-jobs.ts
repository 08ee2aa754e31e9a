import { randomUUID } from 'node:crypto';
import { conflict, DomainError, validationError } from '../domain/errors';
import type { Logger } from '../observability/logger';
import type { RebuildMetrics } from '../observability/metrics';
import { outsideRequest } from '../observability/request-context';
import type { RebuildLock } from '../infra/read-generations';
import { READ_MODEL_NAMES, type ReadModelName } from './read-model-list';
import type { RebuildOptions, RebuildPhase, RebuildProgress } from './read-side';

/** Where a job is: waiting for its generation to be opened, its two phases of work, or its end. */
export type RebuildJobPhase = 'queued' | RebuildPhase | 'done' | 'failed';

/** A rebuild of the read models as an operator follows it (GET /internal/read-models/rebuild/{jobId}). */
export type RebuildJob = {
  readonly jobId: string;
  readonly readModels: readonly ReadModelName[];
  readonly phase: RebuildJobPhase;
  /** Positions as decimal strings, as every log position the API answers. */
  readonly progress: { readonly position: string; readonly head: string; readonly eventsApplied: number };
  readonly startedAt: string;
  readonly finishedAt: string | null;
  readonly outcome: 'succeeded' | 'failed' | null;
  readonly error: string | null;
};

/** What a job runs on: the read side of this process (ReadSide), as much of it as a job uses. */
export type Rebuilder = {
  readonly rebuildsSomeAlone: boolean;
  lockRebuild(jobId: string): Promise<RebuildLock | null>;
  rebuildJob(): Promise<string | undefined>;
  rebuild(options: RebuildOptions): Promise<unknown>;
};

type Options = {
  /** A server serves the new generation at once; the CLI leaves that to the services. */
  readonly switchHere: boolean;
  readonly logger: Logger;
  /**
   * Where a service counts its jobs (read_model_rebuilds_total, read_model_rebuild_running). The
   * CLI passes none: its process serves no metrics, and says how its one job ended in its exit code.
   */
  readonly metrics?: RebuildMetrics;
  readonly clock?: () => Date;
  /** Told every change of a job (the CLI prints its progress). */
  readonly observe?: (job: RebuildJob, progress: RebuildProgress | undefined) => void;
};

/** How many ended jobs stay answerable: an operator polls one for a while after it ends, not forever. */
const KEPT_ENDED_JOBS = 20;

/**
 * Rebuilds of the read models run as jobs: asked, a job takes the rebuild lock at once (so a second
 * rebuild is refused while the request is still open) and then runs in the background of this
 * process, which answers its state until it is among the oldest ended ones. One job runs at a
 * time, whichever read models it rebuilds: every rebuild builds the next generation and moves the
 * one pointer, so two at once would build the same generation over each other.
 */
export class RebuildJobs {
  private readonly jobs = new Map<string, RebuildJob>();
  private running: { readonly jobId: string; readonly ended: Promise<void> } | undefined;
  private asking: string | undefined;
  private readonly clock: () => Date;

  constructor(
    private readonly side: Rebuilder,
    private readonly options: Options,
  ) {
    this.clock = options.clock ?? (() => new Date());
  }

  /**
   * Starts a job rebuilding `readModels` (every one when absent) and answers it queued. A conflict
   * naming the running job when one runs, here or (where the lock says) in another process.
   */
  async start(readModels?: readonly ReadModelName[]): Promise<RebuildJob> {
    const names = readModels && readModels.length > 0 ? [...new Set(readModels)] : [...READ_MODEL_NAMES];
    if (names.length < READ_MODEL_NAMES.length && !this.side.rebuildsSomeAlone) {
      throw validationError(
        'readModel',
        'one read model alone is rebuilt on the embedded read models (SQLite) and on PostgreSQL; ' +
          'with MongoDB, rebuild them all',
      );
    }
    const busy = this.asking ?? this.running?.jobId;
    if (busy !== undefined) throw this.refused(busy);
    const jobId = randomUUID();
    // Held from here: a second request arriving while the lock is asked for is refused too.
    this.asking = jobId;
    let lock: RebuildLock | null;
    try {
      lock = await this.side.lockRebuild(jobId);
    } finally {
      this.asking = undefined;
    }
    if (!lock) throw this.refused(await this.side.rebuildJob());
    const job: RebuildJob = {
      jobId,
      readModels: names,
      phase: 'queued',
      progress: { position: '0', head: '0', eventsApplied: 0 },
      startedAt: this.clock().toISOString(),
      finishedAt: null,
      outcome: null,
      error: null,
    };
    this.put(job);
    this.options.metrics?.rebuildRunning.set(1);
    // The job outlives the request that asked for it, and the projections of the generation it
    // switches to outlive the job: their lines carry the job's id, not that request's.
    this.running = { jobId, ended: outsideRequest(() => this.run(job, names, lock)) };
    return job;
  }

  /** The job, while it runs and for a while after it ended; undefined for one this process does not know. */
  get(jobId: string): RebuildJob | undefined {
    return this.jobs.get(jobId);
  }

  /** The job running in this process, if one runs. */
  get current(): RebuildJob | undefined {
    return this.running && this.jobs.get(this.running.jobId);
  }

  /** Resolves once no job runs (closing waits for the running one to end). */
  async settled(): Promise<void> {
    await this.running?.ended;
  }

  private refused(jobId: string | undefined): DomainError {
    return conflict(
      jobId === undefined
        ? 'another rebuild of the read models is running: try again once it has switched'
        : `rebuild job ${jobId} is running: follow it, and ask again once it has ended`,
      jobId === undefined ? {} : { jobId },
    );
  }

  private async run(job: RebuildJob, names: readonly ReadModelName[], lock: RebuildLock): Promise<void> {
    const { jobId } = job;
    let ended: Pick<RebuildJob, 'phase' | 'error'> & { readonly outcome: 'succeeded' | 'failed' };
    try {
      await this.side.rebuild({
        switchHere: this.options.switchHere,
        lock,
        // Every name: the rebuild of them all (from nothing, indexes built once) is not a copy.
        ...(names.length < READ_MODEL_NAMES.length ? { readModels: names } : {}),
        phase: (phase) => this.update(jobId, { phase }),
        progress: (p) =>
          this.update(
            jobId,
            { progress: { position: p.position.toString(), head: p.head.toString(), eventsApplied: p.eventsApplied } },
            p,
          ),
      });
      ended = { phase: 'done', outcome: 'succeeded', error: null };
    } catch (error) {
      // Nothing but the domain's own words leaves the process; the log has the rest.
      if (error instanceof DomainError)
        this.options.logger.warn({ jobId, reason: error.message }, 'read-model rebuild refused');
      else this.options.logger.error({ err: error, jobId }, 'read-model rebuild failed');
      const said =
        error instanceof DomainError ? error.message : `the rebuild failed unexpectedly; the log has job ${jobId}`;
      ended = { phase: 'failed', outcome: 'failed', error: said };
    }
    // The rebuild releases it; this covers one that failed before it took it over. Both before the
    // job says it ended: an operator who then asks for the next rebuild is not refused.
    await lock.release().catch(() => undefined);
    this.running = undefined;
    // Counted before the job says it ended: whoever sees it ended finds it counted.
    this.options.metrics?.rebuildRunning.set(0);
    this.options.metrics?.rebuilds.inc({ outcome: ended.outcome });
    this.update(jobId, { ...ended, finishedAt: this.clock().toISOString() });
  }

  private update(jobId: string, change: Partial<RebuildJob>, progress?: RebuildProgress): void {
    const job = this.jobs.get(jobId);
    if (!job) return;
    const next = { ...job, ...change };
    this.jobs.set(jobId, next);
    this.options.observe?.(next, progress);
  }

  private put(job: RebuildJob): void {
    this.jobs.set(job.jobId, job);
    const ended = [...this.jobs.values()].filter((j) => j.finishedAt !== null);
    // A Map keeps insertion order: the first ended ones are the oldest.
    for (const old of ended.slice(0, Math.max(0, ended.length - KEPT_ENDED_JOBS))) this.jobs.delete(old.jobId);
    this.options.observe?.(job, undefined);
  }
}

import { createHash } from 'node:crypto';
import { setImmediate as yieldToRequests } from 'node:timers/promises';
import type { EventStore, ScannedEvents } from '../ports/event-store';
import type { Logger } from '../observability/logger';
import type { Metrics } from '../observability/metrics';
import { eventTypesOf, type ReadModelDigest, type ReadModelProjection } from './read-model-projection';
import { ReadModelRunner, type RunnerOptions } from './read-model-runner';
import { FollowerPolls } from './follower-polls';

const SHARED_CATCH_UP_BATCH = 2000;

/**
 * Every read model's runner behind one face: a write waits until all of them show its events,
 * readiness reports the first one that is not keeping up.
 */
export class ReadModels {
  readonly runners: readonly ReadModelRunner[];

  constructor(
    private readonly events: EventStore,
    projections: readonly ReadModelProjection[],
    logger: Logger,
    private readonly options?: RunnerOptions,
  ) {
    // One poll for all the followers: one query for their checkpoints, one read of the log.
    const polls = new FollowerPolls(events);
    this.runners = projections.map((projection) => new ReadModelRunner(events, projection, logger, options, polls));
  }

  async start(): Promise<void> {
    if (this.options?.role === 'follow' || this.options?.lease) {
      await Promise.all(this.runners.map((runner) => runner.start()));
      return;
    }
    // No lease: every runner projects here. One read of the log feeds them all (a rebuild reads
    // the whole log once instead of once per read model), and only the events they fold.
    const starts = await Promise.all(this.runners.map((runner) => runner.prepareCatchUp()));
    let from = starts.some((p) => p === undefined)
      ? undefined
      : starts.reduce((a, b) => (b !== undefined && a !== undefined && b < a ? b : a));
    const types = eventTypesOf(this.runners.map((runner) => runner.projection));
    let reading = this.readBatch(from, types);
    for (;;) {
      const { events: batch, scannedTo } = await reading;
      // A plain read of the log (no scan moving checkpoints as it goes) is made while the read
      // models fold the batch before it: on a remote log the two round trips' waits overlap.
      const full = batch.length >= SHARED_CATCH_UP_BATCH;
      if (full && !this.scans(types)) {
        reading = this.readBatch(batch.at(-1)?.position, types);
        // Awaited after the fold; a fold that fails first leaves it unread, not unhandled.
        reading.catch(() => undefined);
      }
      for (const runner of this.runners) {
        await runner.catchUp(batch);
        // A rebuild runs beside the requests of a serving process: they go between commits.
        await yieldToRequests();
      }
      if (scannedTo !== undefined) for (const runner of this.runners) runner.skippedTo(scannedTo);
      if (!full) break;
      from = batch.at(-1)?.position;
      if (this.scans(types)) reading = this.readBatch(from, types);
    }
    for (const runner of this.runners) runner.followLive();
  }

  /** Whether the catch-up scans the log by type (readBatch), moving every checkpoint as it goes. */
  private scans(types: ReadonlySet<string> | undefined): boolean {
    return types !== undefined && this.events.scanAll !== undefined;
  }

  /**
   * The next batch of the shared catch-up: where the store filters by type itself (EventStoreDB,
   * on the server) it also says how far it looked, and every runner's checkpoint moves there, as
   * it does while a long scan finds nothing; elsewhere a plain read of the types.
   */
  private async readBatch(from: bigint | undefined, types: ReadonlySet<string> | undefined): Promise<ScannedEvents> {
    if (!types || !this.events.scanAll)
      return { events: await this.events.readAll(from, SHARED_CATCH_UP_BATCH, types), scannedTo: undefined };
    return this.events.scanAll(from, SHARED_CATCH_UP_BATCH, types, async (position) => {
      for (const runner of this.runners) runner.skippedTo(position);
    });
  }

  async stop(): Promise<void> {
    await Promise.all(this.runners.map((runner) => runner.stop()));
  }

  async waitFor(position: bigint, timeoutMs: number): Promise<void> {
    await Promise.all(this.runners.map((runner) => runner.waitFor(position, timeoutMs)));
  }

  /** The lowest checkpoint: every read model holds at least the events up to it. */
  get checkpoint(): bigint | undefined {
    let lowest: bigint | undefined;
    for (const runner of this.runners) {
      const position = runner.checkpoint;
      if (position === undefined) return undefined;
      if (lowest === undefined || position < lowest) lowest = position;
    }
    return lowest;
  }

  get problem(): string | undefined {
    for (const runner of this.runners) if (runner.problem) return runner.problem;
    return undefined;
  }

  /** Each projection's checkpoint, and its lag behind the newest event any of them has seen. */
  async reportMetrics(metrics: Metrics): Promise<void> {
    let head = 0n;
    for (const runner of this.runners) if ((runner.newestSeen ?? 0n) > head) head = runner.newestSeen ?? 0n;
    for (const runner of this.runners) {
      const checkpoint = runner.checkpoint ?? 0n;
      metrics.projectionCheckpoint.set({ projection: runner.name }, Number(checkpoint));
      metrics.projectionLag.set({ projection: runner.name }, Number(head - checkpoint));
      metrics.projectionLeading.set({ projection: runner.name }, runner.isLeading ? 1 : 0);
      metrics.projectionStopped.set({ projection: runner.name }, runner.stopped ? 1 : 0);
    }
    for (const runner of this.runners) {
      // A store that does not answer leaves the last figure: the scrape still gets the others.
      const parked = await runner.projection.store.parked(runner.name).catch(() => undefined);
      if (parked) metrics.projectionParked.set({ projection: runner.name }, parked.length);
    }
  }

  async digest(): Promise<{ digest: string; counts: Record<string, number> }> {
    const parts: ReadModelDigest[] = [];
    for (const runner of this.runners) parts.push(await runner.projection.store.digest());
    const counts = Object.assign({}, ...parts.map((p) => p.counts)) as Record<string, number>;
    const digest = createHash('sha256')
      .update(parts.map((p) => p.digest).join('|'))
      .digest('hex');
    return { digest, counts };
  }
}

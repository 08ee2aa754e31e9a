import type { RecordedEvent } from '../ports/event-store';
import { tracedApply } from './traced-apply';
import type { Logger } from '../observability/logger';
import { ProjectionFailedError } from './projection-failed-error';
import { type Fence, LeaseLostError } from './projection-lease';
import { PARKED_ERROR_MAX, type ParkedEvent, type ReadModelProjection } from './read-model-projection';
import type { ReadPosition } from './read-position';

/**
 * How soon a checkpoint moved only by ignored events is written. Nobody waits on it: this process
 * moves on at once, and a process that follows the read model lets a write through once the
 * events past the written checkpoint are ones the read model ignores (SharedCheckpointFollower's
 * look-ahead); a crash before the write replays ignored events only. So it is written at the pace
 * of a follower's idle poll, one transaction for all the ignored events of that time: every save
 * is ignored by most read models, and at 5 ms each wrote a transaction of its own per save (about
 * four per save; docs/benchmarks.md "What the figures decided").
 */
const IDLE_CHECKPOINT_MS = 250;

/**
 * How much one transaction may do before its batch is cut and the rest committed in the next:
 * MongoDB aborts a transaction after 60 s (transactionLifetimeLimitSeconds), and a catch-up
 * batch of 1,000 events, or a few project links that re-project every resource of a project,
 * could outlive it and fail again on every retry. Checked between events: one event is never
 * split, so the first event of a batch always goes in.
 */
export type BatchBudget = { readonly maxMs: number; readonly maxOperations: number };
export const DEFAULT_BATCH_BUDGET: BatchBudget = { maxMs: 10_000, maxOperations: 5_000 };

export type CommittingRunner = {
  /** Whether this process still writes the read model. */
  readonly leads: () => boolean;
  readonly fence: () => Fence | undefined;
  /** Store errors worth retrying; anything else a projection throws stops it. */
  readonly isTransient?: (error: unknown) => boolean;
  readonly leaseLost: () => Promise<void>;
  readonly budget?: BatchBudget;
  /**
   * After how many failures of one event (not the store's passing trouble) the event is parked
   * and the projection goes on with the next; never parked when absent (it stops on it).
   */
  readonly parkAfter?: number;
  /**
   * Whether the runner tries a failed batch again later by itself (a lease's stand-down and its
   * backoff). When it does not (a rebuild's builder), a failure is tried again at once, until parked.
   */
  readonly retriesLater?: boolean;
  readonly now?: () => Date;
  /** Told how many events each committed part folded (the runner's rate of work). */
  readonly folded?: (events: number) => void;
};

/** How an event fared so far: its failures in a row, counted by this process. */
type Failing = { failures: number; readonly firstFailedAt: string; lastFailedAt: string; error: string };

const messageOf = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error)).slice(0, PARKED_ERROR_MAX);

/**
 * Folding batches of events into the read model, each committed with its checkpoint and the
 * lease's fence; a batch the projection ignores moves only the checkpoint, written a moment later.
 */
export class CheckpointedCommits {
  /** A position reached through ignored events only, not yet written as the checkpoint. */
  private unwritten: bigint | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** Events that failed and are not committed yet, by position (forgotten once the checkpoint passes them). */
  private readonly failing = new Map<bigint, Failing>();
  /** Events to park as the next attempt of their batch reaches them. */
  private readonly parking = new Map<bigint, ParkedEvent>();

  constructor(
    private readonly projection: ReadModelProjection,
    private readonly position: ReadPosition,
    private readonly logger: Logger,
    private readonly runner: CommittingRunner,
  ) {}

  private get name(): string {
    return this.projection.name;
  }

  async commit(batch: readonly RecordedEvent[]): Promise<void> {
    const last = batch.at(-1);
    if (!last) return;
    const handles = this.projection.handles?.bind(this.projection);
    if (handles && !batch.some(handles)) {
      // Nothing to write but the checkpoint: this process moves on at once, and the checkpoint
      // follows a moment later for the others (a crash before then replays ignored events only).
      this.position.advanceTo(last.position);
      this.unwritten = last.position;
      this.timer ??= setTimeout(() => void this.writeUnwritten(), IDLE_CHECKPOINT_MS);
      return;
    }
    this.unwritten = undefined;
    let rest = batch;
    while (rest.length > 0) rest = rest.slice(await this.commitPart(rest));
  }

  /**
   * Commits the first events of `batch` that fit in the budget (one at least), with the
   * checkpoint of the last of them; answers how many it committed.
   */
  private async commitPart(batch: readonly RecordedEvent[]): Promise<number> {
    const handles = this.projection.handles?.bind(this.projection);
    const store = this.projection.store;
    const budget = this.runner.budget ?? DEFAULT_BATCH_BUDGET;
    let current: RecordedEvent | undefined;
    let failed: RecordedEvent | undefined;
    let taken = 0;
    let applied = 0;
    try {
      await store.commit(
        this.name,
        (batch.at(-1) as RecordedEvent).position,
        async () => {
          // From the start on every attempt: the store may run this again after a transient error.
          const started = Date.now();
          taken = 0;
          failed = undefined;
          applied = 0;
          await this.projection.readAhead?.(batch);
          for (const event of batch) {
            const spent =
              Date.now() - started > budget.maxMs || (store.batchOperations?.() ?? 0) >= budget.maxOperations;
            if (taken > 0 && spent) return batch[taken - 1]?.position;
            taken += 1;
            // An event the projection ignores costs no call: most of a shared batch is ignored by most projections.
            if (handles && !handles(event)) continue;
            current = event;
            const parked = this.parking.get(event.position);
            if (parked) {
              await store.park(parked);
              continue;
            }
            try {
              await tracedApply(this.name, event, () => this.projection.apply(event));
              applied += 1;
            } catch (error) {
              failed = event;
              throw error;
            }
          }
          return undefined;
        },
        this.runner.fence(),
      );
    } catch (error) {
      if (error instanceof LeaseLostError || this.runner.isTransient?.(error)) throw error;
      this.logger.error(
        { err: error, projection: this.name, position: String(current?.position) },
        'projection failed',
      );
      // Committed again at once, the event parked or (when nobody retries later) tried again.
      if (failed && this.failedOn(failed, error)) return 0;
      throw new ProjectionFailedError(this.name, error, current?.position);
    }
    const reached = (batch[taken - 1] as RecordedEvent).position;
    this.position.advanceTo(reached);
    for (const position of this.failing.keys()) if (position <= reached) this.failing.delete(position);
    for (const position of this.parking.keys()) if (position <= reached) this.parking.delete(position);
    this.runner.folded?.(applied);
    return taken;
  }

  /**
   * Counts a failure of `event`; true when its batch is to be committed again at once: the event
   * failed as often as allowed and is parked there, or nobody would try it again later.
   */
  private failedOn(event: RecordedEvent, error: unknown): boolean {
    const parkAfter = this.runner.parkAfter;
    if (parkAfter === undefined) return false;
    const now = (this.runner.now?.() ?? new Date()).toISOString();
    const seen = this.failing.get(event.position);
    const failing: Failing = seen ?? { failures: 0, firstFailedAt: now, lastFailedAt: now, error: '' };
    failing.failures += 1;
    failing.lastFailedAt = now;
    failing.error = messageOf(error);
    this.failing.set(event.position, failing);
    if (failing.failures < parkAfter) return !this.runner.retriesLater;
    this.logger.error(
      { projection: this.name, position: String(event.position), type: event.type, failures: failing.failures },
      'projection parked an event it cannot fold; an operator retries or skips it',
    );
    this.parking.set(event.position, {
      readModel: this.name,
      streamId: event.streamId,
      position: event.position,
      type: event.type,
      error: failing.error,
      failures: failing.failures,
      firstFailedAt: failing.firstFailedAt,
      lastFailedAt: failing.lastFailedAt,
    });
    return true;
  }

  /**
   * The log was looked through up to `position` and nothing this projection folds lies between
   * the last committed event and it (a filtered scan): the checkpoint moves there, written a
   * moment later as for ignored events, so a rare type is not looked for from its last event again.
   */
  skipTo(position: bigint): void {
    if (this.position.reached(position)) return;
    this.position.advanceTo(position);
    this.unwritten = position;
    this.timer ??= setTimeout(() => void this.writeUnwritten(), IDLE_CHECKPOINT_MS);
  }

  /** Stopping: writes a checkpoint still waiting to be written, at once. */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.runner.leads() && this.unwritten !== undefined) await this.writeUnwritten();
  }

  private async writeUnwritten(): Promise<void> {
    this.timer = undefined;
    const position = this.unwritten;
    if (position === undefined || !this.runner.leads()) return;
    try {
      await this.projection.store.commit(this.name, position, async () => undefined, this.runner.fence());
      if (this.unwritten === position) this.unwritten = undefined;
    } catch (error) {
      if (error instanceof LeaseLostError) await this.runner.leaseLost();
      else
        this.logger.warn(
          { err: error, projection: this.name },
          'could not write the checkpoint; will write it with the next change',
        );
    }
  }
}

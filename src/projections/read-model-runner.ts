import { setImmediate as yieldToRequests } from 'node:timers/promises';
import type { EventStore, RecordedEvent, ScannedEvents, Subscription } from '../ports/event-store';
import type { Logger } from '../observability/logger';
import { LeaseHolder, type LeaseOptions } from './lease-holder';
import { type BatchBudget, CheckpointedCommits } from './checkpointed-commits';
import { LiveBatches } from './live-batches';
import { adoptEventLog } from './event-log-identity';
import { ProjectionFailedError } from './projection-failed-error';
import { LeaseLostError } from './projection-lease';
import { PARKED_ERROR_MAX, type ParkedEvent, type ReadModelProjection } from './read-model-projection';
import { ReadPosition } from './read-position';
import { ResubscribeBackoff } from './resubscribe-backoff';
import { SharedCheckpointFollower } from './shared-checkpoint-follower';
import { FollowerPolls } from './follower-polls';
import { EventRate } from './event-rate';
import { describeRunnerError, type RunnerError } from './runner-error';

const CATCH_UP_BATCH = 1000;

export type RunnerOptions = {
  /** `project`: fold events (under the lease, when one is given); `follow`: only read the shared checkpoint. */
  readonly role: 'project' | 'follow';
  readonly lease?: LeaseOptions;
  /** Store errors worth retrying (a network fault, an election); anything else stops the projection. */
  readonly isTransient?: (error: unknown) => boolean;
  /**
   * Told the position of each committed batch while catching up, and how many events of the log
   * the batch held past the previous checkpoint (a rebuild's progress).
   */
  readonly onCatchUp?: (projection: string, position: bigint, events: number) => void;
  /**
   * Under a lease, how long a process whose projection failed (a bug: the same event would fail
   * again) stands by before it tries to lead again: the first delay, doubled per failure in a
   * row up to the cap. Defaults: 30 s, 15 min.
   */
  readonly failureBackoff?: { readonly firstMs: number; readonly maxMs: number };
  /** How often a follower looks at the shared checkpoint while a write waits on it (default 2 ms). */
  readonly followPollMs?: number;
  /** How much one committed batch may do before the rest goes to the next (DEFAULT_BATCH_BUDGET). */
  readonly batchBudget?: BatchBudget;
  /**
   * After how many failures of one event (not the store's passing trouble) the runner parks it in
   * its store and goes on with the next events (PROJECTION_PARK_AFTER); never when absent: the
   * projection stops on it. Under a lease each failure but the last waits out `failureBackoff`;
   * without one, the failures follow each other at once.
   */
  readonly parkAfter?: number;
  /** The clock of the runner's last error and of its rate of work (ms since the epoch). */
  readonly now?: () => number;
};

/** What an operator's retry of a parked event came to. */
export type ParkedRetry =
  | { readonly outcome: 'applied' }
  | { readonly outcome: 'failed'; readonly parked: ParkedEvent }
  | { readonly outcome: 'unknown' };

const FAILURE_FIRST_RETRY_MS = 30_000;
const FAILURE_MAX_RETRY_MS = 15 * 60_000;

/**
 * Runs one projection over the event log in global order, or follows another process that does.
 *
 * The process that holds the projection's lease catches up from the checkpoint in batches, each
 * committed with its checkpoint and its fence, then follows the log live. The others (API
 * processes, standbys) read the checkpoint from the shared store, so a write through any process
 * answers once its events are visible everywhere; a standby takes the lease over when its holder
 * stops renewing it.
 */
export class ReadModelRunner {
  private readonly position = new ReadPosition();
  private readonly lease: LeaseHolder | undefined;
  private readonly follower: SharedCheckpointFollower;
  private readonly backoff = new ResubscribeBackoff();
  /** Under a lease: after a failure this process stood down; it tries to lead again no earlier than `leadNotBefore`. */
  private readonly transientStandDown = new ResubscribeBackoff();
  private readonly failedStandDown: ResubscribeBackoff;
  private leadNotBefore = 0;
  private readonly commits: CheckpointedCommits;
  private subscription: Subscription | undefined;
  private failure: unknown;
  private leaseTimer: NodeJS.Timeout | undefined;
  private running = false;
  private leading = false;
  /** The newest event this runner has been handed, committed or not: its lag is measured against it. */
  private seen: bigint | undefined;
  private readonly rate: EventRate;
  private lastFailure: RunnerError | undefined;
  private readonly now: () => number;

  constructor(
    private readonly events: EventStore,
    readonly projection: ReadModelProjection,
    private readonly logger: Logger,
    private readonly options: RunnerOptions = { role: 'project' },
    /** The polls this runner's follower shares with the other read models' (one of its own by default). */
    polls: FollowerPolls = new FollowerPolls(events),
  ) {
    this.lease = options.lease && new LeaseHolder(options.lease, projection.name, logger);
    this.now = options.now ?? Date.now;
    this.rate = new EventRate(this.now);
    this.failedStandDown = new ResubscribeBackoff(
      options.failureBackoff?.firstMs ?? FAILURE_FIRST_RETRY_MS,
      options.failureBackoff?.maxMs ?? FAILURE_MAX_RETRY_MS,
    );
    this.follower = new SharedCheckpointFollower(
      projection,
      this.position,
      {
        polls: () => this.running && !this.leading,
        readSucceeded: () => {
          if (this.failure !== undefined && !(this.failure instanceof ProjectionFailedError)) this.failure = undefined;
        },
        readFailed: (error) => {
          this.failure = error;
          this.noteError('the shared read model cannot be read', error);
        },
        waitingPollMs: options.followPollMs,
      },
      polls,
    );
    this.commits = new CheckpointedCommits(projection, this.position, logger, {
      leads: () => this.leading,
      fence: () => this.lease?.fence(),
      isTransient: options.isTransient,
      leaseLost: () => this.demote(),
      budget: options.batchBudget,
      parkAfter: options.parkAfter,
      retriesLater: options.lease !== undefined,
      folded: (events) => this.rate.add(events),
    });
  }

  get name(): string {
    return this.projection.name;
  }

  /** True while this process writes the read model. */
  get isLeading(): boolean {
    return this.leading;
  }

  /**
   * Projecting without a lease, or having taken it: catches up, then follows the log; resolves
   * once caught up. Otherwise resolves at once and follows the shared checkpoint.
   *
   * Under a lease, a catch-up that fails (the store unreachable for a moment, a bug in the
   * projection) never fails the start: the process stands down, follows the shared checkpoint
   * and tries to lead again after a backoff, as a takeover does. Without a lease (a rebuild's
   * builder, one process alone) the failure is the caller's.
   */
  async start(): Promise<void> {
    this.running = true;
    if (this.options.role === 'project') {
      if (!this.lease) return this.lead();
      const refusal = this.lease.options.store.refusal;
      if (refusal) this.logger.error({ projection: this.name, reason: refusal }, 'refusing to lead the projection');
      if (await this.lease.tryAcquire()) return this.lead().catch((error: unknown) => this.leadFailed(error));
    }
    await this.follow();
  }

  /** Whether the runner was started and not stopped (leading or following). */
  get isRunning(): boolean {
    return this.running;
  }

  /**
   * The last error this runner met, kept after it recovered (with its time, an operator tells an
   * old blip from a current fault; `problem` says whether it still holds).
   */
  get lastError(): RunnerError | undefined {
    return this.lastFailure;
  }

  /** Events this process folded into the read model per second over the last minute (0 while it follows). */
  get eventsPerSecond(): number {
    return this.rate.perSecond();
  }

  /** True while this process stands down after its projection failed (a bug): the alert. */
  get stopped(): boolean {
    return this.failure instanceof ProjectionFailedError;
  }

  /**
   * For a runner that projects without a lease (a rebuild's builder): readies the read model and
   * says where its catch-up starts, so that several runners can catch up from one read of the
   * log (`catchUp`) before each `follows live`.
   */
  async prepareCatchUp(): Promise<bigint | undefined> {
    this.running = true;
    this.leading = true;
    await this.adoptLog();
    this.position.restartFrom(await this.projection.store.checkpoint(this.name));
    return this.position.value;
  }

  async catchUp(batch: readonly RecordedEvent[]): Promise<void> {
    const from = this.position.value;
    const fresh = from === undefined ? batch : batch.filter((e) => e.position > from);
    if (fresh.length === 0) return;
    await this.commits.commit(fresh);
    const reached = this.position.value;
    if (reached !== undefined) this.options.onCatchUp?.(this.name, reached, fresh.length);
  }

  /**
   * The shared catch-up looked through the log up to `position` and found nothing this read model
   * folds after what it was handed (a filtered scan): its checkpoint moves there, so that it
   * follows the log live from there rather than from its last event.
   */
  skippedTo(position: bigint): void {
    this.commits.skipTo(position);
    const reached = this.position.value;
    if (reached !== undefined) this.options.onCatchUp?.(this.name, reached, 0);
  }

  followLive(): void {
    this.subscribe();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.commits.flush();
    this.backoff.cancel();
    clearTimeout(this.leaseTimer);
    this.follower.stop();
    await this.subscription?.close();
    this.subscription = undefined;
    this.leading = false;
    await this.lease?.release();
    this.position.abandon();
  }

  get checkpoint(): bigint | undefined {
    return this.position.value;
  }

  get newestSeen(): bigint | undefined {
    const position = this.position.value;
    return this.seen === undefined || (position !== undefined && position > this.seen) ? position : this.seen;
  }

  /** Why the read model is not being kept up to date here, or undefined when it is. */
  get problem(): string | undefined {
    if (this.failure instanceof ProjectionFailedError) return `projection ${this.name} failed`;
    const refusal = this.options.role === 'project' ? this.lease?.options.store.refusal : undefined;
    if (refusal && !this.leading) return `projection ${this.name} refuses to lead: ${refusal}`;
    if (!this.leading) {
      if (!this.running) return `projection ${this.name} not running`;
      if (this.failure !== undefined) return `projection ${this.name}: the shared read model cannot be read`;
      return this.follower.stalled
        ? `projection ${this.name} is behind the log and no process is projecting it yet`
        : undefined;
    }
    if (this.failure !== undefined) return `projection ${this.name}: event subscription dropped`;
    if (this.subscription === undefined) return `projection ${this.name} not running`;
    return undefined;
  }

  /**
   * An operator's retry of the event parked at `position`: folded now, from the log, in one
   * transaction with its removal from the parked list; the checkpoint stays where it is (read and
   * written back in that transaction, so it never moves back). A failure keeps it parked with the
   * new error; the store's passing trouble is thrown (a 503). `unknown`: nothing parked there.
   * An event the read model already holds something newer of is left alone by the position guards
   * of its writes: folding it there would need the events after it again (a rebuild).
   */
  async retryParked(position: bigint, now: Date): Promise<ParkedRetry> {
    const store = this.projection.store;
    const entry = (await store.parked(this.name)).find((parked) => parked.position === position);
    if (!entry) return { outcome: 'unknown' };
    try {
      const event = (await this.events.readStream(entry.streamId)).find((e) => e.position === position);
      if (!event) throw new Error(`event ${position} of stream ${entry.streamId} is not in the log`);
      await store.commit(
        this.name,
        position,
        async () => {
          await this.projection.apply(event);
          await store.unpark(this.name, position);
          return (await store.checkpoint(this.name)) ?? position;
        },
        this.leading ? this.lease?.fence() : undefined,
      );
      return { outcome: 'applied' };
    } catch (error) {
      if (error instanceof LeaseLostError || this.options.isTransient?.(error)) throw error;
      const parked: ParkedEvent = {
        ...entry,
        error: (error instanceof Error ? error.message : String(error)).slice(0, PARKED_ERROR_MAX),
        failures: entry.failures + 1,
        lastFailedAt: now.toISOString(),
      };
      await store.park(parked);
      return { outcome: 'failed', parked };
    }
  }

  /** Resolves once every event up to `position` is in the read model; 503 after `timeoutMs`. */
  waitFor(position: bigint, timeoutMs: number): Promise<void> {
    if (this.position.reached(position)) return Promise.resolve();
    const caughtUp = this.position.wait(position, timeoutMs);
    if (!this.leading) this.follower.pollNow();
    return caughtUp;
  }

  // --- leading ------------------------------------------------------------------------------

  private async lead(): Promise<void> {
    this.leading = true;
    this.follower.stop();
    // The lease is renewed during the catch-up too, however long it takes: not only by its commits.
    if (this.lease) this.scheduleLease();
    await this.adoptLog();
    await this.catchUpAndSubscribe();
    if (this.lease) {
      // Caught up: a failure that made this process stand down is over.
      if (this.failure instanceof ProjectionFailedError) this.failure = undefined;
      this.transientStandDown.succeeded();
      this.failedStandDown.succeeded();
    }
  }

  /**
   * A checkpoint of another event log (the store was switched or recreated) is worthless, and
   * resetting a served read model in place would answer from a half-empty one: it is refused
   * (EventLogMismatchError); a rebuild builds a new generation instead.
   */
  private async adoptLog(): Promise<void> {
    await adoptEventLog(this.events, this.projection.store, this.name);
  }

  private async catchUpAndSubscribe(): Promise<void> {
    this.position.restartFrom(await this.projection.store.checkpoint(this.name));
    for (;;) {
      const { events: batch, scannedTo } = await this.readBatch();
      // The lease loop found the lease taken meanwhile: the new holder catches up.
      if (this.lease && !this.leading) throw new LeaseLostError(this.name);
      await this.catchUp(batch);
      if (scannedTo !== undefined) this.commits.skipTo(scannedTo);
      if (batch.length < CATCH_UP_BATCH) break;
      // Let requests, and the lease renewal, run between batches of a long catch-up.
      await yieldToRequests();
    }
    this.subscribe();
  }

  /**
   * The next catch-up batch: where the store filters by type itself (EventStoreDB, on the server)
   * it also says how far it looked, and a long scan that finds nothing moves the checkpoint as it
   * goes (and stops once the lease is lost); elsewhere a plain read of the projection's types.
   */
  private async readBatch(): Promise<ScannedEvents> {
    const types = this.projection.eventTypes;
    if (!types || !this.events.scanAll)
      return { events: await this.events.readAll(this.position.value, CATCH_UP_BATCH, types), scannedTo: undefined };
    return this.events.scanAll(this.position.value, CATCH_UP_BATCH, types, async (position) => {
      if (this.lease && !this.leading) throw new LeaseLostError(this.name);
      this.commits.skipTo(position);
    });
  }

  /**
   * A dropped subscription or a transient store error resumes from the last committed position
   * with a growing delay; a failing projection stops and readiness reports it, since folding the
   * same event again would fail again; a lost lease hands over to the new holder.
   */
  private subscribe(): void {
    if (!this.running || !this.leading) return;
    if (!(this.failure instanceof ProjectionFailedError)) this.failure = undefined;
    const live = new LiveBatches(
      async (events) => {
        await this.commits.commit(events.filter((event) => !this.position.reached(event.position)));
        this.backoff.succeeded();
      },
      (error) => {
        void subscription.close();
        if (this.subscription === following) this.dropped(error);
      },
      CATCH_UP_BATCH,
    );
    const subscription = this.events.subscribeToAll(
      this.position.value,
      async (event) => {
        if (this.seen === undefined || event.position > this.seen) this.seen = event.position;
        if (this.position.reached(event.position)) return;
        await live.add(event);
      },
      (error) => {
        live.stop();
        if (this.subscription === following) this.dropped(error);
      },
    );
    const following: Subscription = {
      close: async () => {
        live.stop();
        await subscription.close();
      },
    };
    this.subscription = following;
  }

  /** The live subscription ended on `error`: see `subscribe`. */
  private dropped(error: unknown): void {
    this.subscription = undefined;
    if (error instanceof LeaseLostError) {
      void this.demote();
      return;
    }
    this.failure = error;
    const failed = error instanceof ProjectionFailedError;
    this.noteError(failed ? 'the projection failed on an event' : 'the event subscription dropped', error);
    if (error instanceof ProjectionFailedError) {
      this.logger.error({ err: error.reason, projection: error.projection }, 'projection failed; read model stopped');
      if (this.lease) void this.standDown(error);
      return;
    }
    const delay = this.backoff.schedule(() => this.subscribe());
    this.logger.warn(
      { err: error, delayMs: delay, projection: this.name },
      'event subscription dropped; resubscribing',
    );
  }

  // --- the lease ----------------------------------------------------------------------------

  /**
   * The holder renews; a standby tries to take over. One lease loop per runner, whoever asks:
   * a demotion reschedules (through `follow`) while a tick may still run or another be pending
   * (a renewal that failed, a commit refused by the fence), so the next tick replaces any other.
   */
  private scheduleLease(): void {
    const lease = this.lease;
    clearTimeout(this.leaseTimer);
    if (!lease || !this.running) return;
    this.leaseTimer = setTimeout(async () => {
      if (!this.running) return;
      if (this.leading) {
        if (!(await lease.tryAcquire())) await this.demote();
      } else if (Date.now() >= this.leadNotBefore && (await lease.tryAcquire())) {
        this.logger.info({ projection: this.name, token: String(lease.token) }, 'took over the projection');
        await this.lead().catch((error: unknown) => this.leadFailed(error));
        return;
      }
      this.scheduleLease();
    }, lease.options.retryMs);
    this.leaseTimer.unref();
  }

  /**
   * A start or a takeover whose catch-up failed: a fence that refused it means another process
   * holds the lease (stand by); anything else stands down too, see `standDown`.
   */
  private async leadFailed(error: unknown): Promise<void> {
    if (error instanceof LeaseLostError) return this.demote();
    this.failure = error;
    this.noteError(
      error instanceof ProjectionFailedError ? 'the projection failed on an event' : 'could not lead the projection',
      error,
    );
    this.logger.error({ err: error, projection: this.name }, 'could not lead the projection');
    await this.standDown(error);
  }

  /**
   * A process that cannot keep the read model up to date gives its lease up at once, so that a
   * standby may try, follows the shared checkpoint, and tries to lead again after a backoff: a
   * short one after the store's passing trouble, a long one after a failing projection (the same
   * event would fail again; `stopped` and the metric say so meanwhile). It never stays down.
   */
  private async standDown(error: unknown): Promise<void> {
    if (!this.running) return;
    const failed = error instanceof ProjectionFailedError;
    const delay = (failed ? this.failedStandDown : this.transientStandDown).next();
    this.leadNotBefore = Date.now() + delay;
    this.logger.warn(
      { projection: this.name, retryInMs: delay },
      'standing down from the projection; will try to lead again',
    );
    this.leading = false;
    this.backoff.cancel();
    await this.subscription?.close();
    this.subscription = undefined;
    await this.lease?.release();
    await this.follow();
  }

  private async demote(): Promise<void> {
    if (!this.leading) return;
    this.logger.warn({ projection: this.name }, 'lost the lease on the projection; standing by');
    this.leading = false;
    this.lease?.forget();
    this.backoff.cancel();
    await this.subscription?.close();
    this.subscription = undefined;
    await this.follow();
  }

  private noteError(what: string, error: unknown): void {
    this.lastFailure = {
      message: describeRunnerError(what, error),
      position: (error instanceof ProjectionFailedError ? error.position : undefined) ?? this.position.value,
      at: new Date(this.now()),
    };
  }

  // --- following ----------------------------------------------------------------------------

  private async follow(): Promise<void> {
    await this.follower.start();
    if (this.options.role === 'project' && this.lease) this.scheduleLease();
  }
}

import { setImmediate as yieldToRequests } from 'node:timers/promises';
import { DomainError } from '../domain/errors';
import type { EventStore, RecordedEvent, Subscription } from '../infra/event-store/event-store';
import type { Logger } from '../infra/logger';
import type { Fence, Lease, LeaseStore } from './projection-lease';
import { LeaseLostError } from './projection-lease';
import type { ReadModelProjection } from './read-model-projection';

const CATCH_UP_BATCH = 1000;
const RESUBSCRIBE_MAX_DELAY_MS = 30_000;
/** How often a process that does not project looks at the shared checkpoint while a write waits on it. */
const WAITING_POLL_MS = 5;
const IDLE_POLL_MS = 250;
/** A follower that sees the log ahead of the shared checkpoint for this long reports that nobody projects. */
const STALLED_AFTER_MS = 2000;
/** How soon a checkpoint moved only by ignored events is written, for the processes that follow it. */
const IDLE_CHECKPOINT_MS = 5;

/** A projection threw on an event: a bug or bad data, not a transport fault, so retrying cannot help. */
export class ProjectionFailedError extends Error {
  constructor(
    readonly projection: string,
    readonly reason: unknown,
  ) {
    super(`projection ${projection} failed`);
  }
}

export type LeaseOptions = {
  readonly store: LeaseStore;
  /** This process, as the lease names it. */
  readonly holder: string;
  readonly ttlMs: number;
  /** How often the holder renews and a standby tries to take over. */
  readonly retryMs: number;
  readonly now: () => number;
};

export type RunnerOptions = {
  /** `project`: fold events (under the lease, when one is given); `follow`: only read the shared checkpoint. */
  readonly role: 'project' | 'follow';
  readonly lease?: LeaseOptions;
  /** Store errors worth retrying (a network fault, an election); anything else stops the projection. */
  readonly isTransient?: (error: unknown) => boolean;
  /** Told the position of each committed batch while catching up (a rebuild's progress). */
  readonly onCatchUp?: (projection: string, position: bigint) => void;
};

type Waiter = { position: bigint; resolve: () => void };

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
  private position: bigint | undefined;
  private subscription: Subscription | undefined;
  private failure: unknown;
  private waiters: Waiter[] = [];
  private resubscribeTimer: NodeJS.Timeout | undefined;
  private resubscribeAttempts = 0;
  private leaseTimer: NodeJS.Timeout | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private lease: Lease | undefined;
  private running = false;
  private leading = false;
  /** The newest event this runner has been handed, committed or not: its lag is measured against it. */
  private seen: bigint | undefined;
  /** Following: since when the log has held events the shared checkpoint does not (Date.now()). */
  private behindSince: number | undefined;
  /** Following: whether the shared read model has once caught up with the log since this process started. */
  private caughtUpOnce = false;
  /** Leading: a position reached through ignored events only, not yet written as the checkpoint. */
  private unwritten: bigint | undefined;
  private checkpointTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly events: EventStore,
    readonly projection: ReadModelProjection,
    private readonly logger: Logger,
    private readonly options: RunnerOptions = { role: 'project' },
  ) {}

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
   */
  async start(): Promise<void> {
    this.running = true;
    if (this.options.role === 'project') {
      if (!this.options.lease) return this.lead();
      if (await this.tryAcquire()) return this.lead();
    }
    await this.follow();
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
    this.position = await this.projection.store.checkpoint(this.name);
    return this.position;
  }

  async catchUp(batch: readonly RecordedEvent[]): Promise<void> {
    const fresh = this.position === undefined ? batch : batch.filter((e) => e.position > (this.position ?? 0n));
    if (fresh.length === 0) return;
    await this.commit(fresh);
    if (this.position !== undefined) this.options.onCatchUp?.(this.name, this.position);
  }

  followLive(): void {
    this.subscribe();
  }

  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.checkpointTimer);
    this.checkpointTimer = undefined;
    if (this.leading && this.unwritten !== undefined) await this.writeUnwritten();
    clearTimeout(this.resubscribeTimer);
    clearTimeout(this.leaseTimer);
    clearTimeout(this.pollTimer);
    await this.subscription?.close();
    this.subscription = undefined;
    this.leading = false;
    const lease = this.lease;
    this.lease = undefined;
    if (lease && this.options.lease) await this.options.lease.store.release(lease).catch(() => undefined);
  }

  get checkpoint(): bigint | undefined {
    return this.position;
  }

  get newestSeen(): bigint | undefined {
    return this.seen === undefined || (this.position !== undefined && this.position > this.seen) ? this.position : this.seen;
  }

  /** Why the read model is not being kept up to date here, or undefined when it is. */
  get problem(): string | undefined {
    if (this.failure instanceof ProjectionFailedError) return `projection ${this.name} failed`;
    if (!this.leading) {
      if (!this.running) return `projection ${this.name} not running`;
      if (this.failure !== undefined) return `projection ${this.name}: the shared read model cannot be read`;
      const stalled = this.behindSince !== undefined && (!this.caughtUpOnce || Date.now() - this.behindSince > STALLED_AFTER_MS);
      return stalled ? `projection ${this.name} is behind the log and no process is projecting it yet` : undefined;
    }
    if (this.failure !== undefined) return `projection ${this.name}: event subscription dropped`;
    if (this.subscription === undefined) return `projection ${this.name} not running`;
    return undefined;
  }

  /** Resolves once every event up to `position` is in the read model; 503 after `timeoutMs`. */
  waitFor(position: bigint, timeoutMs: number): Promise<void> {
    if (this.position !== undefined && this.position >= position) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        position,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new DomainError('unavailable', 'the change is stored but the read models have not caught up yet'));
      }, timeoutMs);
      this.waiters.push(waiter);
      if (!this.leading) this.schedulePoll(0);
    });
  }

  // --- leading ------------------------------------------------------------------------------

  private async lead(): Promise<void> {
    this.leading = true;
    clearTimeout(this.pollTimer);
    await this.adoptLog();
    await this.catchUpAndSubscribe();
    if (this.options.lease) this.scheduleLease();
  }

  /** A checkpoint of another event log (the store was switched) is worthless: start over. */
  private async adoptLog(): Promise<void> {
    const store = this.projection.store;
    const log = await store.checkpointLog(this.name);
    if (log !== undefined && log !== this.events.identity) {
      this.logger.warn({ projection: this.name, was: log, now: this.events.identity }, 'read model built from another event log; rebuilding');
      await store.reset(this.name);
    }
    if (log !== this.events.identity) await store.setCheckpointLog(this.name, this.events.identity);
  }

  private async catchUpAndSubscribe(): Promise<void> {
    this.position = await this.projection.store.checkpoint(this.name);
    for (;;) {
      const batch = await this.events.readAll(this.position, CATCH_UP_BATCH);
      await this.catchUp(batch);
      if (batch.length < CATCH_UP_BATCH) break;
      // Let requests, and the lease renewal, run between batches of a long catch-up.
      await yieldToRequests();
    }
    this.subscribe();
  }

  /**
   * A dropped subscription or a transient store error resumes from the last committed position
   * with a growing delay; a failing projection stops and readiness reports it, since folding the
   * same event again would fail again; a lost lease hands over to the new holder.
   */
  private subscribe(): void {
    if (!this.running || !this.leading) return;
    if (!(this.failure instanceof ProjectionFailedError)) this.failure = undefined;
    this.subscription = this.events.subscribeToAll(
      this.position,
      async (event) => {
        if (this.seen === undefined || event.position > this.seen) this.seen = event.position;
        if (this.position !== undefined && event.position <= this.position) return;
        await this.commit([event]);
        this.resubscribeAttempts = 0;
      },
      (error) => {
        this.subscription = undefined;
        if (error instanceof LeaseLostError) {
          void this.demote();
          return;
        }
        this.failure = error;
        if (error instanceof ProjectionFailedError) {
          this.logger.error({ err: error.reason, projection: error.projection }, 'projection failed; read model stopped');
          return;
        }
        const delay = Math.min(RESUBSCRIBE_MAX_DELAY_MS, 250 * 2 ** this.resubscribeAttempts++);
        this.logger.warn({ err: error, delayMs: delay, projection: this.name }, 'event subscription dropped; resubscribing');
        this.resubscribeTimer = setTimeout(() => this.subscribe(), delay);
        this.resubscribeTimer.unref();
      },
    );
  }

  private async commit(batch: readonly RecordedEvent[]): Promise<void> {
    const last = batch.at(-1);
    if (!last) return;
    const handles = this.projection.handles?.bind(this.projection);
    if (handles && !batch.some(handles)) {
      // Nothing to write but the checkpoint: this process moves on at once, and the checkpoint
      // follows a moment later for the others (a crash before then replays ignored events only).
      this.advanceTo(last.position);
      this.unwritten = last.position;
      this.checkpointTimer ??= setTimeout(() => void this.writeUnwritten(), IDLE_CHECKPOINT_MS);
      return;
    }
    this.unwritten = undefined;
    let current: RecordedEvent | undefined;
    try {
      await this.projection.store.commit(
        this.name,
        last.position,
        async () => {
          for (const event of batch) {
            current = event;
            await this.projection.apply(event);
          }
        },
        this.fence(),
      );
    } catch (error) {
      if (error instanceof LeaseLostError || this.options.isTransient?.(error)) throw error;
      this.logger.error({ err: error, projection: this.name, position: String(current?.position) }, 'projection failed');
      throw new ProjectionFailedError(this.name, error);
    }
    this.advanceTo(last.position);
  }

  private async writeUnwritten(): Promise<void> {
    this.checkpointTimer = undefined;
    const position = this.unwritten;
    if (position === undefined || !this.leading) return;
    try {
      await this.projection.store.commit(this.name, position, async () => undefined, this.fence());
      if (this.unwritten === position) this.unwritten = undefined;
    } catch (error) {
      if (error instanceof LeaseLostError) await this.demote();
      else this.logger.warn({ err: error, projection: this.name }, 'could not write the checkpoint; will write it with the next change');
    }
  }

  private fence(): Fence | undefined {
    const options = this.options.lease;
    if (!options || !this.lease) return undefined;
    return { ...this.lease, ttlMs: options.ttlMs, nowMs: options.now() };
  }

  // --- the lease ----------------------------------------------------------------------------

  private async tryAcquire(): Promise<boolean> {
    const options = this.options.lease;
    if (!options) return true;
    try {
      const lease = await options.store.acquire(this.name, options.holder, options.ttlMs, options.now());
      if (lease && this.lease && lease.token !== this.lease.token) {
        // Renewed too late: someone held it in between, and our writes were refused meanwhile.
        this.lease = lease;
        return false;
      }
      this.lease = lease ?? undefined;
      return lease !== null;
    } catch (error) {
      this.logger.warn({ err: error, projection: this.name }, 'could not reach the lease store');
      return false;
    }
  }

  /** The holder renews; a standby tries to take over. */
  private scheduleLease(): void {
    const options = this.options.lease;
    if (!options || !this.running) return;
    this.leaseTimer = setTimeout(async () => {
      if (!this.running) return;
      if (this.leading) {
        if (!(await this.tryAcquire())) await this.demote();
      } else if (await this.tryAcquire()) {
        this.logger.info({ projection: this.name, token: String(this.lease?.token) }, 'took over the projection');
        await this.lead().catch((error: unknown) => {
          this.failure = error;
          this.logger.error({ err: error, projection: this.name }, 'could not take over the projection');
        });
        return;
      }
      this.scheduleLease();
    }, options.retryMs);
    this.leaseTimer.unref();
  }

  private async demote(): Promise<void> {
    if (!this.leading) return;
    this.logger.warn({ projection: this.name }, 'lost the lease on the projection; standing by');
    this.leading = false;
    this.lease = undefined;
    clearTimeout(this.resubscribeTimer);
    await this.subscription?.close();
    this.subscription = undefined;
    await this.follow();
  }

  // --- following ----------------------------------------------------------------------------

  private async follow(): Promise<void> {
    await this.readSharedCheckpoint();
    this.schedulePoll(IDLE_POLL_MS);
    if (this.options.role === 'project' && this.options.lease) this.scheduleLease();
  }

  private schedulePoll(delayMs: number): void {
    if (!this.running || this.leading) return;
    clearTimeout(this.pollTimer);
    this.pollTimer = setTimeout(async () => {
      await this.readSharedCheckpoint();
      this.schedulePoll(this.waiters.length > 0 ? WAITING_POLL_MS : IDLE_POLL_MS);
    }, delayMs);
    this.pollTimer.unref();
  }

  private async readSharedCheckpoint(): Promise<void> {
    try {
      const position = await this.projection.store.checkpoint(this.name);
      if (position !== undefined) this.advanceTo(position);
      const ahead = await this.events.readAll(this.position, 1);
      if (ahead.length === 0) {
        this.behindSince = undefined;
        this.caughtUpOnce = true;
      } else {
        this.behindSince ??= Date.now();
      }
      if (this.failure !== undefined && !(this.failure instanceof ProjectionFailedError)) this.failure = undefined;
    } catch (error) {
      this.failure = error;
    }
  }

  private advanceTo(position: bigint): void {
    if (this.position === undefined || position > this.position) this.position = position;
    const done = this.waiters.filter((w) => w.position <= position);
    if (done.length > 0) {
      this.waiters = this.waiters.filter((w) => w.position > position);
      for (const w of done) w.resolve();
    }
  }
}

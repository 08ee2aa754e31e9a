import { DomainError } from '../domain/errors';
import type { EventStore, RecordedEvent, Subscription } from '../infra/event-store/event-store';
import type { Logger } from '../infra/logger';
import type { ReadModelProjection } from './read-model-projection';

const CATCH_UP_BATCH = 1000;
const RESUBSCRIBE_MAX_DELAY_MS = 30_000;

/** A projection threw: a bug or bad data, not a transport fault, so retrying cannot help. */
export class ProjectionFailedError extends Error {
  constructor(
    readonly projection: string,
    readonly reason: unknown,
  ) {
    super(`projection ${projection} failed`);
  }
}

type Waiter = { position: bigint; resolve: () => void };

/**
 * Runs one projection over the event log in global order. Catch-up folds batches, each committed
 * with its checkpoint; live events commit one by one. A command waits on `waitFor(position)` to
 * give its caller read-your-writes.
 */
export class ReadModelRunner {
  private position: bigint | undefined;
  private subscription: Subscription | undefined;
  private failure: unknown;
  private waiters: Waiter[] = [];
  private resubscribeTimer: NodeJS.Timeout | undefined;
  private resubscribeAttempts = 0;
  private running = false;
  /** The newest event this runner has been handed, committed or not: its lag is measured against it. */
  private seen: bigint | undefined;

  constructor(
    private readonly events: EventStore,
    readonly projection: ReadModelProjection,
    private readonly logger: Logger,
  ) {}

  get name(): string {
    return this.projection.name;
  }

  /** Catches up from the checkpoint, then follows the log live. Resolves once caught up. */
  async start(): Promise<void> {
    this.running = true;
    this.position = await this.projection.store.checkpoint(this.name);
    for (;;) {
      const batch = await this.events.readAll(this.position, CATCH_UP_BATCH);
      if (batch.length > 0) await this.commit(batch);
      if (batch.length < CATCH_UP_BATCH) break;
    }
    this.subscribe();
  }

  /**
   * A dropped subscription (the event store restarted, a network fault) resumes from the last
   * committed position with a growing delay; a failing projection stops the runner and readiness
   * reports it, since folding the same event again would fail again.
   */
  private subscribe(): void {
    if (!this.running) return;
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
        this.failure = error;
        this.subscription = undefined;
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

  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.resubscribeTimer);
    await this.subscription?.close();
    this.subscription = undefined;
  }

  /** Empties the read model and projects the whole log again from position 0. */
  async rebuild(): Promise<void> {
    await this.stop();
    await this.projection.store.reset(this.name);
    this.failure = undefined;
    await this.start();
  }

  get checkpoint(): bigint | undefined {
    return this.position;
  }

  get newestSeen(): bigint | undefined {
    return this.seen === undefined || (this.position !== undefined && this.position > this.seen) ? this.position : this.seen;
  }

  /** Why the read model is not being kept up to date, or undefined when it is. */
  get problem(): string | undefined {
    if (this.failure instanceof ProjectionFailedError) return `projection ${this.name} failed`;
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
    });
  }

  private async commit(batch: readonly RecordedEvent[]): Promise<void> {
    const last = batch.at(-1);
    if (!last) return;
    let current: RecordedEvent | undefined;
    try {
      await this.projection.store.commit(this.name, last.position, async () => {
        for (const event of batch) {
          current = event;
          await this.projection.apply(event);
        }
      });
    } catch (error) {
      this.logger.error({ err: error, projection: this.name, position: String(current?.position) }, 'projection failed');
      throw new ProjectionFailedError(this.name, error);
    }
    this.position = last.position;
    const done = this.waiters.filter((w) => w.position <= last.position);
    if (done.length > 0) {
      this.waiters = this.waiters.filter((w) => w.position > last.position);
      for (const w of done) w.resolve();
    }
  }
}

import { DomainError } from '../domain/errors';
import type { EventStore, RecordedEvent, Subscription } from '../infra/event-store/event-store';
import type { Logger } from '../infra/logger';
import type { Doc, ReadStore } from '../infra/read-store/read-store';
import type { Projection } from './projection';

type CheckpointDoc = Doc & { position: string };

const CHECKPOINTS = 'projection_checkpoints';
const CHECKPOINT_ID = 'read-models';
const CATCH_UP_BATCH = 500;
const RESUBSCRIBE_MAX_DELAY_MS = 30_000;

/** A projection threw: a bug or bad data, not a transport fault, so retrying cannot help. */
class ProjectionFailedError extends Error {
  constructor(readonly projection: string, readonly reason: unknown) {
    super(`projection ${projection} failed`);
  }
}

/**
 * Runs every projection over the event log in global order, one event at a time, and keeps a
 * checkpoint beside the read models. A command waits on `waitFor(position)` to give its caller
 * read-your-writes.
 */
export class ProjectionRunner {
  private position: bigint | undefined;
  private subscription: Subscription | undefined;
  private failure: unknown;
  private waiters: { position: bigint; resolve: () => void }[] = [];
  private resubscribeTimer: NodeJS.Timeout | undefined;
  private resubscribeAttempts = 0;

  constructor(
    private readonly events: EventStore,
    private readonly store: ReadStore,
    private readonly projections: readonly Projection[],
    private readonly logger: Logger,
  ) {}

  /** Catches up with the whole log, then follows it live. Resolves once caught up. */
  async start(): Promise<void> {
    await this.store.ensureIndexes(this.projections.flatMap((p) => p.indexes));
    this.position = this.store.durable ? await this.loadCheckpoint() : undefined;
    for (;;) {
      const batch = await this.events.readAll(this.position, CATCH_UP_BATCH);
      for (const event of batch) await this.handle(event);
      if (batch.length < CATCH_UP_BATCH) break;
    }
    this.subscribe();
  }

  /**
   * Follows the log live. A dropped subscription (the event store restarted, a network fault)
   * resumes from the last applied position with a growing delay; a failing projection stops
   * the runner and readiness reports it, since replaying the same event would fail again.
   */
  private subscribe(): void {
    if (!(this.failure instanceof ProjectionFailedError)) this.failure = undefined;
    this.subscription = this.events.subscribeToAll(
      this.position,
      async (event) => {
        await this.handle(event);
        this.resubscribeAttempts = 0;
      },
      (error) => {
        this.failure = error;
        this.subscription = undefined;
        if (error instanceof ProjectionFailedError) {
          this.logger.error({ err: error.reason, projection: error.projection }, 'projection failed; read models stopped');
          return;
        }
        const delay = Math.min(RESUBSCRIBE_MAX_DELAY_MS, 250 * 2 ** this.resubscribeAttempts++);
        this.logger.warn({ err: error, delayMs: delay }, 'event subscription dropped; resubscribing');
        this.resubscribeTimer = setTimeout(() => this.subscribe(), delay);
        this.resubscribeTimer.unref();
      },
    );
  }

  async stop(): Promise<void> {
    clearTimeout(this.resubscribeTimer);
    await this.subscription?.close();
    this.subscription = undefined;
  }

  /** Drops every read model and projects the whole log again from position 0. */
  async rebuild(): Promise<void> {
    await this.stop();
    await this.store.dropAll();
    this.position = undefined;
    this.failure = undefined;
    await this.start();
  }

  get checkpoint(): bigint | undefined {
    return this.position;
  }

  /** Why the read models are not being kept up to date, or undefined when they are. */
  get problem(): string | undefined {
    if (this.failure instanceof ProjectionFailedError) return 'projection failed';
    if (this.failure !== undefined) return 'event subscription dropped';
    if (this.subscription === undefined) return 'projections not running';
    return undefined;
  }

  /** Resolves once every event up to `position` is in the read models; 503 after `timeoutMs`. */
  waitFor(position: bigint, timeoutMs: number): Promise<void> {
    if (this.position !== undefined && this.position >= position) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter = {
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

  private async handle(event: RecordedEvent): Promise<void> {
    if (this.position !== undefined && event.position <= this.position) return;
    for (const projection of this.projections) {
      try {
        await projection.apply(event, this.store);
      } catch (error) {
        this.logger.error({ err: error, projection: projection.name, position: String(event.position) }, 'projection failed');
        throw new ProjectionFailedError(projection.name, error);
      }
    }
    this.position = event.position;
    if (this.store.durable) {
      await this.store
        .collection<CheckpointDoc>(CHECKPOINTS)
        .upsert({ _id: CHECKPOINT_ID, position: event.position.toString() });
    }
    const done = this.waiters.filter((w) => w.position <= event.position);
    if (done.length > 0) {
      this.waiters = this.waiters.filter((w) => w.position > event.position);
      for (const w of done) w.resolve();
    }
  }

  private async loadCheckpoint(): Promise<bigint | undefined> {
    const doc = await this.store.collection<CheckpointDoc>(CHECKPOINTS).findOne({ _id: CHECKPOINT_ID });
    return doc ? BigInt(doc.position) : undefined;
  }
}

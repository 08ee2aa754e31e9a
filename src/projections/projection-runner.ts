import { DomainError } from '../domain/errors';
import type { EventStore, RecordedEvent, Subscription } from '../infra/event-store/event-store';
import type { Logger } from '../infra/logger';
import type { Doc, ReadStore } from '../infra/read-store/read-store';
import type { Projection } from './projection';

type CheckpointDoc = Doc & { position: string };

const CHECKPOINTS = 'projection_checkpoints';
const CHECKPOINT_ID = 'read-models';
const CATCH_UP_BATCH = 500;

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
    this.subscription = this.events.subscribeToAll(
      this.position,
      (event) => this.handle(event),
      (error) => {
        this.failure = error;
        this.logger.error({ err: error }, 'projection subscription stopped');
      },
    );
  }

  async stop(): Promise<void> {
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
    if (this.failure !== undefined) return 'projection failed';
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
        throw error;
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

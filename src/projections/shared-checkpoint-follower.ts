import type { RecordedEvent } from '../ports/event-store';
import type { FollowerPolls, PollingFollower } from './follower-polls';
import type { ProjectionStore, ReadModelProjection } from './read-model-projection';
import type { ReadPosition } from './read-position';

/**
 * How often a process that does not project looks at the shared checkpoint while a write waits on
 * it, unless the runner says otherwise: a local SQLite file answers in microseconds.
 */
const WAITING_POLL_MS = 2;
const IDLE_POLL_MS = 250;
/** How many events past the shared checkpoint a follower looks at while a write waits on it. */
const WAITING_LOOKAHEAD = 200;
/** A follower that sees the log ahead of the shared checkpoint for this long reports that nobody projects. */
const STALLED_AFTER_MS = 2000;

export type FollowingRunner = {
  /** Whether this process should poll now: it runs, and does not project the read model itself. */
  readonly polls: () => boolean;
  readonly readSucceeded: () => void;
  readonly readFailed: (error: unknown) => void;
  /** The poll while a write waits (ms): each poll is a round trip to the read models and the event log. */
  readonly waitingPollMs?: number;
};

/**
 * Following a read model another process projects: polls the checkpoint in the shared store
 * (often while a write waits on it), and notices when the log stays ahead of it, nobody projecting.
 * The polls are made with the other read models' followers (FollowerPolls): one query for all
 * their checkpoints, one read of the log.
 */
export class SharedCheckpointFollower implements PollingFollower {
  /** Since when the log has held events the shared checkpoint does not (Date.now()). */
  private behindSince: number | undefined;
  /** Whether the shared read model has once caught up with the log since this process started. */
  private caughtUpOnce = false;

  constructor(
    private readonly projection: ReadModelProjection,
    private readonly readPosition: ReadPosition,
    private readonly runner: FollowingRunner,
    private readonly shared: FollowerPolls,
  ) {}

  get name(): string {
    return this.projection.name;
  }

  get store(): ProjectionStore {
    return this.projection.store;
  }

  get stalled(): boolean {
    return this.behindSince !== undefined && (!this.caughtUpOnce || Date.now() - this.behindSince > STALLED_AFTER_MS);
  }

  async start(): Promise<void> {
    await this.shared.join(this);
    if (this.polls()) this.shared.schedule(IDLE_POLL_MS);
  }

  /** A write waits: look at the shared checkpoint now rather than at the next idle poll. */
  pollNow(): void {
    if (this.polls()) this.shared.schedule(0);
  }

  stop(): void {
    this.shared.leave(this);
  }

  polls(): boolean {
    return this.runner.polls();
  }

  position(): bigint | undefined {
    return this.readPosition.value;
  }

  lookahead(): number {
    return this.readPosition.someoneWaits ? WAITING_LOOKAHEAD : 1;
  }

  nextPollMs(): number {
    return this.readPosition.someoneWaits ? (this.runner.waitingPollMs ?? WAITING_POLL_MS) : IDLE_POLL_MS;
  }

  checkpointRead(position: bigint | undefined): void {
    if (position !== undefined) this.readPosition.advanceTo(position);
  }

  aheadRead(ahead: readonly RecordedEvent[]): void {
    // Events this read model ignores change nothing in it: a write waiting on them is let go
    // now, as the projecting process moves past them at once (it writes that checkpoint later).
    const handles = this.projection.handles?.bind(this.projection);
    const firstHandled = ahead.findIndex((event) => !handles || handles(event));
    const lastIgnored = (firstHandled === -1 ? ahead : ahead.slice(0, firstHandled)).at(-1);
    if (lastIgnored) this.readPosition.advanceTo(lastIgnored.position);
    if (firstHandled === -1) {
      this.behindSince = undefined;
      this.caughtUpOnce = true;
    } else {
      this.behindSince ??= Date.now();
    }
    this.runner.readSucceeded();
  }

  readFailed(error: unknown): void {
    this.runner.readFailed(error);
  }
}

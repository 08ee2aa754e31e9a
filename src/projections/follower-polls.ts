import type { EventStore, RecordedEvent } from '../ports/event-store';
import type { CheckpointSource, ProjectionStore } from './read-model-projection';

/** One follower, as the shared poll sees it (SharedCheckpointFollower). */
export interface PollingFollower {
  readonly name: string;
  readonly store: ProjectionStore;
  /** Whether it should be polled now (its runner runs and does not project). */
  polls(): boolean;
  /** Where its read model is known to reach here, after the checkpoint was applied. */
  position(): bigint | undefined;
  /** How many events past its position it looks at (more while a write waits). */
  lookahead(): number;
  /** How soon it wants the next poll (ms). */
  nextPollMs(): number;
  checkpointRead(position: bigint | undefined): void;
  aheadRead(ahead: readonly RecordedEvent[]): void;
  readFailed(error: unknown): void;
}

/**
 * The polls of every follower of one set of read models, made together on one timer: one query
 * for all the checkpoints of a database, then one read of the log per position the followers are
 * at (all of them at the same one, the log's head, as a rule), instead of two round trips per
 * read model per poll. The next poll comes as soon as the most eager follower wants it.
 */
export class FollowerPolls {
  private readonly members = new Set<PollingFollower>();
  private timer: NodeJS.Timeout | undefined;
  private dueAt = Number.POSITIVE_INFINITY;

  constructor(private readonly events: EventStore) {}

  /** Joins the polls and reads this follower's checkpoint and the log once, now. */
  async join(follower: PollingFollower): Promise<void> {
    this.members.add(follower);
    await this.read([follower]);
  }

  leave(follower: PollingFollower): void {
    this.members.delete(follower);
    if (this.members.size === 0) this.cancel();
  }

  /** The next poll within `delayMs`: an earlier one already due stays. */
  schedule(delayMs: number): void {
    const at = Date.now() + delayMs;
    if (this.timer !== undefined && this.dueAt <= at) return;
    this.cancel();
    this.dueAt = at;
    this.timer = setTimeout(() => void this.tick(), delayMs);
    this.timer.unref();
  }

  private cancel(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.dueAt = Number.POSITIVE_INFINITY;
  }

  private async tick(): Promise<void> {
    this.timer = undefined;
    this.dueAt = Number.POSITIVE_INFINITY;
    await this.read([...this.members].filter((m) => m.polls()));
    const polling = [...this.members].filter((m) => m.polls());
    if (polling.length > 0) this.schedule(Math.min(...polling.map((m) => m.nextPollMs())));
  }

  private async read(followers: readonly PollingFollower[]): Promise<void> {
    const readable = await this.readCheckpoints(followers);
    const atPosition = new Map<bigint | undefined, PollingFollower[]>();
    for (const follower of readable) {
      const position = follower.position();
      atPosition.set(position, [...(atPosition.get(position) ?? []), follower]);
    }
    for (const [position, group] of atPosition) {
      try {
        const ahead = await this.events.readAll(position, Math.max(...group.map((f) => f.lookahead())));
        for (const follower of group) follower.aheadRead(ahead);
      } catch (error) {
        for (const follower of group) follower.readFailed(error);
      }
    }
  }

  /** Applies each follower's checkpoint; answers those whose checkpoint could be read. */
  private async readCheckpoints(followers: readonly PollingFollower[]): Promise<PollingFollower[]> {
    const bySource = new Map<CheckpointSource | ProjectionStore, PollingFollower[]>();
    for (const follower of followers) {
      const key = follower.store.checkpointSource ?? follower.store;
      bySource.set(key, [...(bySource.get(key) ?? []), follower]);
    }
    const read: PollingFollower[] = [];
    for (const [key, group] of bySource) {
      const source = group[0]?.store.checkpointSource;
      try {
        if (source) {
          const found = await source.checkpoints(group.map((f) => f.name));
          for (const follower of group) follower.checkpointRead(found.get(follower.name));
          read.push(...group);
          continue;
        }
        const store = key as ProjectionStore;
        for (const follower of group) {
          follower.checkpointRead(await store.checkpoint(follower.name));
          read.push(follower);
        }
      } catch (error) {
        for (const follower of group) if (!read.includes(follower)) follower.readFailed(error);
      }
    }
    return read;
  }
}

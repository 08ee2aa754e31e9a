import type { RecordedEvent } from '../ports/event-store';
import type { Fence } from './projection-lease';

/** A fingerprint of one read model: operators compare the live one with a fresh rebuild. */
export type ReadModelDigest = { readonly digest: string; readonly counts: Readonly<Record<string, number>> };

/**
 * Where the checkpoints of several read models are read in one query: one database holds them
 * all (a MongoDB generation's `projection_checkpoints`).
 */
export interface CheckpointSource {
  /** The checkpoints of `projections` that exist, by projection. */
  checkpoints(projections: readonly string[]): Promise<ReadonlyMap<string, bigint>>;
}

/**
 * An event a projection gave up on: it failed on it, not for the store's passing trouble, as many
 * times as the runner allows (PROJECTION_PARK_AFTER). The checkpoint moved past it in the same
 * transaction as this record was written; an operator retries or skips it.
 */
export type ParkedEvent = {
  readonly readModel: string;
  readonly streamId: string;
  readonly position: bigint;
  readonly type: string;
  /** The message of the last failure (bounded: PARKED_ERROR_MAX). */
  readonly error: string;
  readonly failures: number;
  /** ISO 8601. */
  readonly firstFailedAt: string;
  readonly lastFailedAt: string;
};

/** A failure's message is kept this long at most: an error may quote a whole document. */
export const PARKED_ERROR_MAX = 1000;

/**
 * What every read-model store offers the projection runner, whatever its adapter. The checkpoint
 * is the global position of the last event the projection folded in.
 */
export interface ProjectionStore {
  /**
   * Runs `work` (the projection folding a batch of events) and records `position` as the
   * projection's checkpoint as one unit: on SQLite, and on a MongoDB replica set or sharded
   * cluster, one transaction, so a crash never applies an event twice nor skips one. On a
   * standalone MongoDB the writes are ordered and guarded by the event's position instead.
   * With a `fence`, the commit first checks that the lease is still this holder's (and renews it);
   * otherwise it writes nothing and throws LeaseLostError. `work` may stop short of `position`
   * (a batch bounded by time or operations) and answer the position it reached: that is the
   * checkpoint written then.
   */
  commit(projection: string, position: bigint, work: () => Promise<bigint | void>, fence?: Fence): Promise<void>;
  /**
   * How many operations the batch being committed has sent to the store so far, where the store
   * bounds a transaction's work (MongoDB: 60 s per transaction): the runner ends a batch early
   * rather than let one transaction grow past it.
   */
  batchOperations?(): number;
  checkpoint(projection: string): Promise<bigint | undefined>;
  /**
   * Where the checkpoints of every read model of this store's database are read in one query,
   * when the adapter offers it: the followers' polls read them all at once (FollowerPolls).
   */
  readonly checkpointSource?: CheckpointSource;
  /** The event log the checkpoint counts positions of: a checkpoint of another log is worthless. */
  checkpointLog(projection: string): Promise<string | undefined>;
  /** Drops the read model's data and the projection's checkpoint: a rebuild from position 0 follows. */
  reset(projection: string): Promise<void>;
  /** Records which event log the checkpoint belongs to (after a reset, before the first commit). */
  setCheckpointLog(projection: string, log: string): Promise<void>;
  /**
   * The version of the read model's code that built what the store holds (see READ_MODELS'
   * `version`): undefined until one is recorded. A reset forgets it. Every adapter of the service
   * keeps it; a store without it is never rebuilt for a version.
   */
  readModelVersion?(projection: string): Promise<number | undefined>;
  setReadModelVersion?(projection: string, version: number): Promise<void>;
  digest(): Promise<ReadModelDigest>;
  /**
   * Records a parked event, replacing an earlier record of the same one (a retry that failed
   * again). Inside `commit`'s work it joins the batch, so the record and the checkpoint moving
   * past the event commit together; outside, it is written alone.
   */
  park(event: ParkedEvent): Promise<void>;
  /** The events `projection` parked, in log order. */
  parked(projection: string): Promise<readonly ParkedEvent[]>;
  /** Forgets a parked event (retried or skipped); false when none was parked there. Joins a batch as `park`. */
  unpark(projection: string, position: bigint): Promise<boolean>;
}

/**
 * A projector folds events into its own read model, through that read model's store. `apply`
 * must leave the read model as it was when the event is older than what the store already holds
 * (writes guarded by the event position), so replaying any range changes nothing.
 */
export interface ReadModelProjection {
  readonly name: string;
  readonly store: ProjectionStore;
  /**
   * Whether `apply` would change anything for this event (by its stream and type alone). The
   * runner commits no transaction for events its projection ignores; it only moves the checkpoint.
   */
  handles?(event: RecordedEvent): boolean;
  /** Every type `handles` accepts: a catch-up reads only these from the log (see `selecting`). */
  readonly eventTypes?: ReadonlySet<string>;
  apply(event: RecordedEvent): Promise<void>;
  /**
   * Reads ahead, inside one batch's commit, what applying these very events will read, in as few
   * queries as the store allows; `apply` of them then reads none of it again. Any other event
   * (another batch's, one read again from the log) is applied as usual.
   */
  readAhead?(events: readonly RecordedEvent[]): Promise<void>;
}

/**
 * The events a projection folds, as data: their types and, where the type alone does not say,
 * their stream. A catch-up asks the event store for these types only, so a rebuild never reads
 * the events no read model folds (the id allocations are a third of the bench's log).
 */
export type EventSelection = {
  readonly types: ReadonlySet<string>;
  readonly streams?: (streamId: string) => boolean;
  /**
   * Where its type and stream leave it open, whether an event can change the read model at all
   * (a resource created with a link references no upload): one that cannot costs the projection
   * no transaction, only its checkpoint.
   */
  readonly changes?: (event: { readonly type: string; readonly data: unknown }) => boolean;
};

/** A projection's `handles` and `eventTypes`, both from its one selection, so they cannot disagree. */
export function selecting({
  types,
  streams,
  changes,
}: EventSelection): Required<Pick<ReadModelProjection, 'handles' | 'eventTypes'>> {
  return {
    eventTypes: types,
    handles: (event) => types.has(event.type) && (!streams || streams(event.streamId)) && (!changes || changes(event)),
  };
}

/** The types a catch-up of all these projections must read; undefined (every event) when one does not say. */
export function eventTypesOf(projections: readonly ReadModelProjection[]): ReadonlySet<string> | undefined {
  const types = new Set<string>();
  for (const projection of projections) {
    if (!projection.eventTypes) return undefined;
    for (const type of projection.eventTypes) types.add(type);
  }
  return types;
}

/**
 * A projection of the events it `selects`, each read as the domain event `E` it is (its stream
 * and type vouch for the shape). `apply` ignores any other event it is handed, so a projection
 * states its filter once.
 */
export function foldingProjection<E extends { readonly type: string; readonly data: unknown }>(projection: {
  readonly name: string;
  readonly store: ProjectionStore;
  readonly selects: EventSelection;
  readonly fold: (event: E, recorded: RecordedEvent) => Promise<void>;
  /** Reads what folding these events will read, in as few queries as the store allows (see ReadModelProjection). */
  readonly readAhead?: (events: readonly E[]) => Promise<void>;
}): ReadModelProjection {
  const { name, store, fold, readAhead } = projection;
  const { handles, eventTypes } = selecting(projection.selects);
  const eventOf = (recorded: RecordedEvent) => ({ type: recorded.type, data: recorded.data }) as E;
  return {
    name,
    store,
    handles,
    eventTypes,
    async apply(recorded: RecordedEvent): Promise<void> {
      if (!handles(recorded)) return;
      await fold(eventOf(recorded), recorded);
    },
    ...(readAhead && { readAhead: (events) => readAhead(events.filter(handles).map(eventOf)) }),
  };
}

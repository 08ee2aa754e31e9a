import type { EventStore } from '../ports/event-store';
import type { ProjectionStore } from './read-model-projection';

/**
 * A read model's checkpoint was counted in another event log than the one the event store
 * serves: the event store was pointed elsewhere, or recreated empty under the same address.
 * Its positions mean nothing here, so the read model is neither served nor reset in place (the
 * running services would answer from a half-empty model meanwhile): the process refuses to
 * start. `npm run cli -- rebuild` builds a new generation from this log beside it and switches.
 */
export class EventLogMismatchError extends Error {
  constructor(
    readonly projection: string,
    readonly recorded: string,
    readonly log: string,
  ) {
    super(
      `read model ${projection} was built from event log ${recorded}, but the event store is ${log}: ` +
        'refusing to serve it. Point the service back at that log, or build a new generation from this one ' +
        'with `npm run cli -- rebuild`',
    );
    this.name = 'EventLogMismatchError';
  }
}

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Before log ids were written into EventStoreDB, its identity was `esdb:<hosts>`. Such a mark
 * proves nothing either way, so it is taken over once by the id now in the log, unless the
 * checkpoint lies beyond the log's end (a recreated, emptier log).
 */
async function legacyMarkOfThisLog(
  events: EventStore,
  store: ProjectionStore,
  projection: string,
  recorded: string,
  log: string,
): Promise<boolean> {
  if (!recorded.startsWith('esdb:') || uuid.test(recorded.slice(5)) || !log.startsWith('esdb:')) return false;
  const [checkpoint, head] = await Promise.all([store.checkpoint(projection), events.headPosition()]);
  return checkpoint === undefined || (head !== undefined && checkpoint <= head);
}

/**
 * How the event log a read model's checkpoint records relates to the event store's: `same`,
 * `unrecorded` (a new read model, or one reset) or `legacy` (see above); EventLogMismatchError
 * otherwise.
 */
export async function verifyEventLog(
  events: EventStore,
  store: ProjectionStore,
  projection: string,
): Promise<'same' | 'unrecorded' | 'legacy'> {
  const [log, recorded] = await Promise.all([events.identity(), store.checkpointLog(projection)]);
  if (recorded === log) return 'same';
  if (recorded === undefined) return 'unrecorded';
  if (await legacyMarkOfThisLog(events, store, projection, recorded, log)) return 'legacy';
  throw new EventLogMismatchError(projection, recorded, log);
}

/** Verifies, then records the event store's log as the checkpoint's where none (or a legacy mark) is. */
export async function adoptEventLog(events: EventStore, store: ProjectionStore, projection: string): Promise<void> {
  if ((await verifyEventLog(events, store, projection)) === 'same') return;
  await store.setCheckpointLog(projection, await events.identity());
}

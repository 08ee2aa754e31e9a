import type { EventMetadata } from '../../src/domain/event';
import type { RecordedEvent } from '../../src/ports/event-store';
import { SqliteReadDb } from '../../src/infra/sqlite/sqlite-read-db';
import type { ReadModelStores } from '../../src/app/read-model-list';
import { openReadModels } from '../../src/app/read-model-list';
import type { ReadModelDigest, ReadModelProjection } from '../../src/projections/read-model-projection';

/**
 * Emmett's ProjectionSpecification: `given(past events).when(new events).then(check)`. The events
 * are folded, as the runner folds them (each batch applied inside the store's `commit` with the
 * batch's last position as checkpoint), into a fresh read model on SQLite `:memory:`, opened by the
 * service's own `openReadModels`. `then` checks the read model's answers through its store
 * port; then the SAME events are applied a second time, and the read model must be unchanged:
 * the same digest (the one the digest route compares) and the same answers to the check.
 */

/** An event as a test writes it; its metadata, revision and position are filled in. */
export type GivenEvent = {
  readonly streamId: string;
  readonly type: string;
  readonly data: unknown;
  readonly metadata?: EventMetadata;
};

/** `{type, data}` events (as the directory feed or a decider writes them) on one stream. */
export const onStream = (streamId: string, ...events: readonly { type: string; data: unknown }[]): GivenEvent[] =>
  events.map((event) => ({ streamId, type: event.type, data: event.data }));

const metadata: EventMetadata = {
  actor: { userId: 1, credential: 'session' },
  correlationId: 'projection-specification',
  at: '2025-01-01T00:00:00.000Z',
};

/** Global positions from 1 in the given order, revisions counted per stream. */
function recorded(events: readonly GivenEvent[]): RecordedEvent[] {
  const revisions = new Map<string, bigint>();
  return events.map((event, index) => {
    const revision = revisions.get(event.streamId) ?? 0n;
    revisions.set(event.streamId, revision + 1n);
    return { metadata, ...event, revision, position: BigInt(index + 1) };
  });
}

/** A read model, by its store's name in `ReadModelStores` (src/app/read-model-list.ts). */
type ReadModel = keyof ReadModelStores;

/** One batch as the runner commits it: applied in the store's transaction with its checkpoint. */
async function fold(projection: ReadModelProjection, batch: readonly RecordedEvent[]): Promise<void> {
  const last = batch.at(-1);
  if (!last) return;
  await projection.store.commit(projection.name, last.position, async () => {
    for (const event of batch) await projection.apply(event);
  });
}

type Check<Store> = (store: Store) => Promise<void> | void;

export const ProjectionSpecification = {
  for<Model extends ReadModel>(model: Model) {
    return (given: readonly GivenEvent[] = []) => ({
      when(events: readonly GivenEvent[]) {
        return {
          async then(check: Check<ReadModelStores[Model]>): Promise<void> {
            const read = SqliteReadDb.open(':memory:');
            try {
              const { stores, projections } = await openReadModels({ kind: 'sqlite', sqlite: read });
              const store = stores[model];
              // The projection that feeds this store: it commits through the store's own projection store.
              const projection = projections.find((p) => p.store === store.projectionStore);
              if (!projection) throw new Error(`no projection feeds the ${model} store`);
              const history = recorded([...given, ...events]);

              await fold(projection, history.slice(0, given.length));
              await fold(projection, history.slice(given.length));
              const once: ReadModelDigest = await projection.store.digest();
              await check(store);

              await fold(projection, history);
              expect(await projection.store.digest()).toEqual(once);
              await check(store);
            } finally {
              read.close();
            }
          },
        };
      },
    });
  },
};

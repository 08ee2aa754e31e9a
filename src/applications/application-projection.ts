import type { DirectoryEvent } from '../directory/directory-events';
import { DIRECTORY_STREAM } from '../directory/directory-events';
import type { RecordedEvent } from '../ports/event-store';
import { foldingProjection, type ReadModelProjection } from '../projections/read-model-projection';
import type { ApplicationStore } from './application-store';

const APPLICATION_EVENT_TYPES: ReadonlySet<DirectoryEvent['type']> = new Set([
  'ApplicationDefinitionUpserted',
  'ApplicationUpserted',
]);

/** Folds application definitions and applications from the directory feed; writes guarded by position. */
export function applicationProjection(store: ApplicationStore): ReadModelProjection {
  return foldingProjection({
    name: 'applications',
    store: store.projectionStore,
    selects: { types: APPLICATION_EVENT_TYPES, streams: (streamId) => streamId === DIRECTORY_STREAM },
    async fold(event: DirectoryEvent, recorded: RecordedEvent): Promise<void> {
      if (event.type === 'ApplicationDefinitionUpserted') await store.putDefinition(event.data, recorded.position);
      if (event.type === 'ApplicationUpserted') {
        await store.putApplication(
          { ...event.data, submittedAt: new Date(event.data.submittedAt).toISOString() },
          recorded.position,
        );
      }
    },
  });
}

import type { DirectoryEvent } from '../../domain/directory/directory-events';
import { DIRECTORY_STREAM } from '../../domain/directory/directory-events';
import type { RecordedEvent } from '../../infra/event-store/event-store';
import { foldingProjection, type ReadModelProjection } from '../read-model-projection';
import type { ApplicationStore } from './application-store';

/** Folds application definitions and applications from the directory feed; writes guarded by position. */
export function applicationProjection(store: ApplicationStore): ReadModelProjection {
  return foldingProjection({
    name: 'applications',
    store: store.projection,
    handles: (event) => event.streamId === DIRECTORY_STREAM && (event.type === 'ApplicationDefinitionUpserted' || event.type === 'ApplicationUpserted'),
    async fold(event: DirectoryEvent, recorded: RecordedEvent): Promise<void> {
      if (event.type === 'ApplicationDefinitionUpserted') await store.putDefinition(event.data, recorded.position);
      if (event.type === 'ApplicationUpserted') {
        await store.putApplication({ ...event.data, submittedAt: new Date(event.data.submittedAt).toISOString() }, recorded.position);
      }
    },
  });
}

import type { DirectoryEvent } from './directory-events';
import { DIRECTORY_EVENT_TYPES, DIRECTORY_STREAM } from './directory-events';
import type { RecordedEvent } from '../ports/event-store';
import { foldingProjection, type ReadModelProjection } from '../projections/read-model-projection';
import { directoryChange } from './directory-records';
import type { DirectoryStore } from './directory-store';

/** Folds the directory feed into the directory read model; each write is guarded by the event's position. */
export function directoryProjection(store: DirectoryStore): ReadModelProjection {
  return foldingProjection({
    name: 'directory',
    store: store.projectionStore,
    selects: { types: DIRECTORY_EVENT_TYPES, streams: (streamId) => streamId === DIRECTORY_STREAM },
    async fold(event: DirectoryEvent, recorded: RecordedEvent): Promise<void> {
      const change = directoryChange(event);
      if (change) await store.write(change, recorded.position);
    },
  });
}

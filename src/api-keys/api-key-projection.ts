import type { ApiKeyEventData } from './api-key-events';
import { API_KEY_EVENT_TYPES } from './api-key-events';
import type { RecordedEvent } from '../ports/event-store';
import { foldingProjection, type ReadModelProjection } from '../projections/read-model-projection';
import type { ApiKeyStore } from './api-key-store';

export const API_KEYS_PROJECTION = 'apikeys';

/** Folds the API-key events into the `apikeys` read model; every other event is ignored. */
export function apiKeyProjection(store: ApiKeyStore): ReadModelProjection {
  return foldingProjection({
    name: API_KEYS_PROJECTION,
    store: store.projectionStore,
    selects: { types: API_KEY_EVENT_TYPES },
    async fold(event: ApiKeyEventData, recorded: RecordedEvent): Promise<void> {
      switch (event.type) {
        case 'ApiKeyCreated': {
          const { id, keyId, userId, name, secretHash, createdAt, expiresAt, readOnly, ratePerHour } = event.data;
          await store.keyCreated(
            { id, keyId, userId, name, secretHash, createdAt, expiresAt, readOnly, ratePerHour },
            recorded.position,
          );
          return;
        }
        case 'ApiKeyRevoked':
          await store.keyRevoked(event.data.id, recorded.position);
          return;
        case 'ApiKeyRotated':
          await store.keyRotated(
            event.data.id,
            {
              secretHash: event.data.secretHash,
              graceSecretHash: event.data.previousSecretHash,
              graceUntil: event.data.previousSecretValidUntil,
            },
            recorded.position,
          );
          return;
        default: {
          const _exhaustive: never = event;
          throw new Error(`unknown API-key event ${JSON.stringify(_exhaustive)}`);
        }
      }
    },
  });
}

import type { ApiKeyEvent } from './api-key-events';
import { API_KEY_EVENT_TYPES } from './api-key-events';
import type { CollectionDeclaration, DocumentReadModel } from '../projections/document-store';
import type { ApiKey } from './api-key-store';
import { apiKeyCreatedV1ToV2 } from './api-key-created-upcasters';

export const API_KEYS = 'api_keys';

/** A key by its public keyId (authentication), and a user's keys by revocation, newest first (listing). */
const COLLECTIONS: readonly CollectionDeclaration[] = [
  {
    name: API_KEYS,
    indexes: {
      by_key_id: { equal: ['keyId'], order: [] },
      by_user: {
        equal: ['userId', 'revoked'],
        order: [
          ['createdAt', -1],
          ['id', -1],
        ],
      },
    },
  },
];

/**
 * The `apikeys` read model: one document per key (an ApiKey), by its id. Creation is a key's
 * first event, so a key found already is kept as it is; a revocation or a rotation of a key never
 * created changes nothing. The events reach the fold upcast (ApiKeyCreated version 1 gains its
 * scope and quota: src/api-keys/api-key-created-upcasters.ts).
 */
export const API_KEYS_READ_MODEL: DocumentReadModel<ApiKeyEvent> = {
  /**
   * Not 'apikeys': that checkpoint counted the rows of the table before the documents, which this
   * collection does not hold. Under a name of its own the projection finds no checkpoint in a read
   * database written before it and folds the log from its start into it before anything is served.
   */
  name: 'apikey-documents',
  canHandle: { types: API_KEY_EVENT_TYPES },
  collections: COLLECTIONS,
  documentsOf: (event) => [{ collection: API_KEYS, id: event.data.id }],
  evolve: (_collection, document, event) => {
    switch (event.type) {
      case 'ApiKeyCreated': {
        // The log's reader lifts a version-1 creation (src/app/versioned-event-store.ts); one folded
        // as stored, unlifted, gets the same scope and quota from the same upcaster.
        const data = event.data.readOnly === undefined ? apiKeyCreatedV1ToV2(event.data) : event.data;
        const { id, keyId, userId, name, secretHash, createdAt, expiresAt, readOnly, ratePerHour } = data;
        const key: ApiKey = {
          id,
          keyId,
          userId,
          name,
          secretHash,
          graceSecretHash: null,
          graceUntil: null,
          createdAt,
          expiresAt,
          revoked: false,
          readOnly,
          ratePerHour,
        };
        return document ?? key;
      }
      case 'ApiKeyRevoked':
        return document && { ...document, revoked: true };
      case 'ApiKeyRotated':
        return (
          document && {
            ...document,
            secretHash: event.data.secretHash,
            graceSecretHash: event.data.previousSecretHash,
            graceUntil: event.data.previousSecretValidUntil,
          }
        );
      default: {
        const _exhaustive: never = event;
        throw new Error(`unknown API-key event ${JSON.stringify(_exhaustive)}`);
      }
    }
  },
};

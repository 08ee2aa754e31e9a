/**
 * The API-keys projection, given / when / then over a fresh SQLite read model: the keys the store
 * answers after creation, rotation and revocation, and that applying them again changes nothing.
 */
import { apiKeyStreamId } from '../../src/api-keys/api-key-events';
import { ProjectionSpecification, onStream } from '../support/projection-specification';

const given = ProjectionSpecification.for('apiKeys');
const USER = 4;
const keys = (...events: { type: string; data: unknown }[]) => onStream(apiKeyStreamId(USER), ...events);

const createdKey = (id: number, createdAt: string) => ({
  type: 'ApiKeyCreated',
  data: {
    userId: USER,
    id,
    keyId: `key${id}`,
    name: `Key ${id}`,
    secretHash: `hash-${id}`,
    createdAt,
    expiresAt: '2026-01-01T00:00:00.000Z',
  },
});

describe('apikeys projection', () => {
  it('given nothing, when two keys are created, then both are found by keyId and listed newest first', () =>
    given()
      .when(keys(createdKey(1, '2025-01-01T00:00:00.000Z'), createdKey(2, '2025-01-02T00:00:00.000Z')))
      .then(async (store) => {
        expect(await store.byKeyId('key1')).toEqual({
          id: 1,
          keyId: 'key1',
          userId: USER,
          name: 'Key 1',
          secretHash: 'hash-1',
          graceSecretHash: null,
          graceUntil: null,
          createdAt: '2025-01-01T00:00:00.000Z',
          expiresAt: '2026-01-01T00:00:00.000Z',
          revoked: false,
          lastUsedAt: null,
          // Created without a scope or a quota (an event from before they existed): the defaults.
          readOnly: false,
          ratePerHour: null,
        });
        expect((await store.listForUser(USER)).map((k) => k.id)).toEqual([2, 1]);
      }));

  it('given a key, when it is rotated, then its new secret is stored and the old one kept for its grace', () =>
    given(keys(createdKey(1, '2025-01-01T00:00:00.000Z')))
      .when(
        keys({
          type: 'ApiKeyRotated',
          data: {
            userId: USER,
            id: 1,
            secretHash: 'hash-new',
            previousSecretHash: 'hash-1',
            previousSecretValidUntil: '2025-02-01T01:00:00.000Z',
            rotatedAt: '2025-02-01T00:00:00.000Z',
          },
        }),
      )
      .then(async (store) => {
        expect(await store.byKeyId('key1')).toMatchObject({
          secretHash: 'hash-new',
          graceSecretHash: 'hash-1',
          graceUntil: '2025-02-01T01:00:00.000Z',
        });
      }));

  it('given two keys, when one is revoked, then it is no longer listed but still found, revoked', () =>
    given(keys(createdKey(1, '2025-01-01T00:00:00.000Z'), createdKey(2, '2025-01-02T00:00:00.000Z')))
      .when(keys({ type: 'ApiKeyRevoked', data: { userId: USER, id: 1, revokedAt: '2025-03-01T00:00:00.000Z' } }))
      .then(async (store) => {
        expect((await store.listForUser(USER)).map((k) => k.id)).toEqual([2]);
        expect((await store.byKeyId('key1'))?.revoked).toBe(true);
      }));
});

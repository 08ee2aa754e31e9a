import type { Viewer } from '../../src/directory/viewer';
import type { ApiKeyCommand, ApiKeyDecisionContext, CreateApiKey } from '../../src/api-keys/api-key-decide';
import { apiKeyDecider, assertMayCreateApiKey } from '../../src/api-keys/api-key-decide';
import type { ApiKeyEventData } from '../../src/api-keys/api-key-events';
import { API_KEY_EVENT_TYPES, apiKeyStreamId } from '../../src/api-keys/api-key-events';
import type { DomainErrorKind } from '../../src/domain/errors';
import { DomainError } from '../../src/domain/errors';
import { DeciderSpecification } from '../support/decider-specification';

const USER = 3;
const NOW = '2025-03-01T12:00:00.000Z';
const context: ApiKeyDecisionContext = { now: NOW, cap: 3, ratePerHourLimit: 1000 };
const at = (iso: string, days: number) => new Date(Date.parse(iso) + days * 86_400_000).toISOString();

const createCommand = (id: number, extra: Partial<CreateApiKey['data']> = {}): CreateApiKey => ({
  type: 'CreateApiKey',
  data: {
    userId: USER,
    id,
    keyId: `svc_live_key${id}`,
    name: `key ${id}`,
    secretHash: `hash-${id}`,
    expiresInDays: 90,
    readOnly: false,
    ratePerHour: undefined,
    ...extra,
  },
  facts: context,
});
const created = (id: number, createdAt = NOW, days = 90): ApiKeyEventData => ({
  type: 'ApiKeyCreated',
  data: {
    userId: USER,
    id,
    keyId: `svc_live_key${id}`,
    name: `key ${id}`,
    secretHash: `hash-${id}`,
    createdAt,
    expiresAt: at(createdAt, days),
    readOnly: false,
    ratePerHour: 1000,
  },
});
const revoked = (id: number): ApiKeyEventData => ({
  type: 'ApiKeyRevoked',
  data: { userId: USER, id, revokedAt: NOW },
});
/** Key `id` rotated at NOW to `secretHash`, the one it replaces valid until `validUntil`. */
const rotated = (id: number, secretHash: string, previousSecretHash: string, validUntil: string): ApiKeyEventData => ({
  type: 'ApiKeyRotated',
  data: { userId: USER, id, secretHash, previousSecretHash, previousSecretValidUntil: validUntil, rotatedAt: NOW },
});

const given = DeciderSpecification.for(apiKeyDecider);
const refusal = (kind: DomainErrorKind) => (error: DomainError) => error.kind === kind;

describe('API-key decider', () => {
  describe('CreateApiKey', () => {
    it('given no keys, when a key is created, then ApiKeyCreated records the hash, createdAt now and expiresAt now + days', () => {
      given()
        .when(createCommand(1, { expiresInDays: 30 }))
        .then([
          {
            type: 'ApiKeyCreated',
            data: {
              userId: USER,
              id: 1,
              keyId: 'svc_live_key1',
              name: 'key 1',
              secretHash: 'hash-1',
              createdAt: NOW,
              expiresAt: at(NOW, 30),
              readOnly: false,
              ratePerHour: 1000,
            },
          },
        ]);
    });

    it('given a scope and a quota, when a key is created, then ApiKeyCreated records both', () => {
      given()
        .when(createCommand(1, { readOnly: true, ratePerHour: 3 }))
        .then(({ events }) => expect(events[0]?.data).toMatchObject({ readOnly: true, ratePerHour: 3 }));
    });

    it.each([0, 1001, 2.5])(
      'given a ratePerHour of %p, outside 1 to the service limit, when a key is created, then it is refused naming ratePerHour',
      (ratePerHour) => {
        given()
          .when(createCommand(1, { ratePerHour }))
          .thenThrows(
            DomainError,
            (error) => error.kind === 'validation' && error.errors.some((f) => f.field === 'ratePerHour'),
          );
      },
    );

    it('given the cap of active keys, when one more is created, then it is refused as a conflict', () => {
      given([created(1), created(2), created(3)])
        .when(createCommand(4))
        .thenThrows(DomainError, refusal('conflict'));
    });

    it('given the cap reached with revoked and expired keys among them, when one more is created, then it is allowed', () => {
      const longAgo = at(NOW, -100);

      given([created(1), created(2), revoked(2), created(3, longAgo, 90), created(4)])
        .when(createCommand(5))
        .then([created(5)]);
    });

    it('given a key that expires exactly now, when counting active keys, then it no longer counts', () => {
      given([created(1), created(2), created(3, at(NOW, -90), 90)])
        .when(createCommand(4))
        .then([created(4)]);
    });

    it('given an id that already exists, when created again, then it is a conflict', () => {
      given([created(1)])
        .when(createCommand(1))
        .thenThrows(DomainError, refusal('conflict'));
    });

    it.each([0, 1.5, -3])('given expiresInDays %p, when created, then it is a validation error', (days) => {
      given()
        .when(createCommand(1, { expiresInDays: days }))
        .thenThrows(DomainError, refusal('validation'));
    });

    it.each([1, 180])('given expiresInDays %p, when created, then the key lives exactly that long', (days) => {
      given()
        .when(createCommand(1, { expiresInDays: days }))
        .then([created(1, NOW, days)]);
    });

    it('given an invalid lifetime, when created, then the refusal names expiresInDays', () => {
      given()
        .when(createCommand(1, { expiresInDays: 0 }))
        .thenThrows(DomainError, (error) => error.errors.map((e) => e.field).join() === 'expiresInDays');
    });

    it('given the stream of another user, when a key is created in it, then it throws a plain Error (a caller bug)', () => {
      given([created(1)])
        .when(createCommand(2, { userId: USER + 1 }))
        .thenThrows(Error, (error) => !(error instanceof DomainError));
    });

    it('given more than 180 days, when created, then the lifetime is clamped to 180 days', () => {
      given()
        .when(createCommand(1, { expiresInDays: 400 }))
        .then([created(1, NOW, 180)]);
    });
  });

  describe('RevokeApiKey', () => {
    const revoke = (id: number): ApiKeyCommand => ({
      type: 'RevokeApiKey',
      data: { userId: USER, id },
      facts: context,
    });

    it('given an active key, when revoked, then ApiKeyRevoked', () => {
      given([created(1)])
        .when(revoke(1))
        .then([revoked(1)]);
    });

    it('given an expired key, when revoked, then ApiKeyRevoked (an expired key can still be revoked)', () => {
      given([created(1, at(NOW, -200), 90)])
        .when(revoke(1))
        .then([revoked(1)]);
    });

    it.each([
      ['an unknown key', [created(1)], 2],
      ['a key already revoked', [created(1), revoked(1)], 1],
    ])('given %s, when revoked, then not found', (_case, history, id) => {
      given(history).when(revoke(id)).thenThrows(DomainError, refusal('not_found'));
    });
  });

  describe('RotateApiKey', () => {
    const rotate = (id: number, graceHours = 24): ApiKeyCommand => ({
      type: 'RotateApiKey',
      data: { userId: USER, id, secretHash: 'hash-new', graceHours },
      facts: context,
    });

    it('given an active key, when rotated, then the old hash stays valid for the grace hours', () => {
      given([created(1)])
        .when(rotate(1, 48))
        .then([
          {
            type: 'ApiKeyRotated',
            data: {
              userId: USER,
              id: 1,
              secretHash: 'hash-new',
              previousSecretHash: 'hash-1',
              previousSecretValidUntil: '2025-03-03T12:00:00.000Z',
              rotatedAt: NOW,
            },
          },
        ]);
    });

    it('given a grace of 0 hours, when rotated, then the old hash is valid until now only', () => {
      given([created(1)])
        .when(rotate(1, 0))
        .then([rotated(1, 'hash-new', 'hash-1', NOW)]);
    });

    it('given a rotation or revocation of a key the stream does not hold, then the state is unchanged', () => {
      const state = [revoked(9), rotated(9, 'x', 'y', NOW)].reduce(apiKeyDecider.evolve, apiKeyDecider.initialState());
      expect(state).toEqual(apiKeyDecider.initialState());
    });

    it('given a rotated key, when rotated again, then the grace secret is the latest one', () => {
      given([created(1), rotated(1, 'hash-2nd', 'hash-1', NOW)])
        .when(rotate(1, 0))
        .then([rotated(1, 'hash-new', 'hash-2nd', NOW)]);
    });

    it('given a key expiring within the grace, when rotated, then the grace ends with the key', () => {
      const createdAt = at(NOW, -89.99);

      given([created(1, createdAt, 90)])
        .when(rotate(1, 168))
        .then([rotated(1, 'hash-new', 'hash-1', at(createdAt, 90))]);
    });

    it.each([169, -1, 1.5])('given a grace of %p hours, when rotated, then the refusal names graceHours', (hours) => {
      given([created(1)])
        .when(rotate(1, hours))
        .thenThrows(
          DomainError,
          (error) => error.kind === 'validation' && error.errors.map((e) => e.field).join() === 'graceHours',
        );
    });

    it.each([
      ['an unknown key', [], rotate(1), 'not_found'],
      ['a revoked key', [created(1), revoked(1)], rotate(1), 'not_found'],
      ['an expired key', [created(1, at(NOW, -100), 90)], rotate(1), 'conflict'],
      ['a grace over 168 hours', [created(1)], rotate(1, 169), 'validation'],
      ['a negative grace', [created(1)], rotate(1, -1), 'validation'],
      ['a grace in part hours', [created(1)], rotate(1, 1.5), 'validation'],
    ] as [string, ApiKeyEventData[], ApiKeyCommand, DomainErrorKind][])(
      'given %s, when rotated, then it is refused',
      (_case, history, command, kind) => {
        given(history).when(command).thenThrows(DomainError, refusal(kind));
      },
    );
  });

  describe('who may create', () => {
    const viewer = (memberships: [number, 'member' | 'admin', 'pending' | 'approved'][]): Viewer => ({
      userId: USER,
      communities: new Map(memberships.map(([c, role, status]) => [c, { role, status }])),
      projects: new Map(),
      circles: new Set(),
    });

    it('given an approved admin of one community, then creation is allowed', () => {
      expect(() =>
        assertMayCreateApiKey(
          viewer([
            [1, 'member', 'approved'],
            [2, 'admin', 'approved'],
          ]),
        ),
      ).not.toThrow();
    });

    it.each([
      ['no community', []],
      ['an approved member only', [[1, 'member', 'approved']]],
      ['a pending admin', [[1, 'admin', 'pending']]],
    ] as [string, [number, 'member' | 'admin', 'pending' | 'approved'][]][])(
      'given %s, then creation is forbidden',
      (_c, m) => {
        expect(() => assertMayCreateApiKey(viewer(m))).toThrow(expect.objectContaining({ kind: 'forbidden' }));
      },
    );
  });
});

describe('API key streams', () => {
  it('given a user, then their keys live on the stream apikeys-<userId>, with exactly the three key event types', () => {
    expect(apiKeyStreamId(USER)).toBe(`apikeys-${USER}`);
    expect([...API_KEY_EVENT_TYPES].sort()).toEqual(['ApiKeyCreated', 'ApiKeyRevoked', 'ApiKeyRotated']);
  });
});

import type { Caller } from '../../src/domain/auth/caller';
import { assertAccountMayAct, assertOwnLogin } from '../../src/domain/auth/caller';
import { DomainError, conflict, forbidden, notFound, validationError } from '../../src/domain/errors';
import { systemActor } from '../../src/domain/event';

const caller = (credential: Caller['actor']['credential'], impersonatorId?: number): Caller => ({
  userId: 3,
  name: 'Ada',
  status: 'active',
  platformRoles: [],
  actor: impersonatorId === undefined ? { userId: 3, credential } : { userId: 3, credential, impersonatorId },
});

describe('assertAccountMayAct', () => {
  it('given an active account, then it may act', () => {
    expect(() => assertAccountMayAct('active')).not.toThrow();
  });

  it.each(['inactive', 'banned'] as const)('given a %s account, then it is forbidden', (status) => {
    expect(() => assertAccountMayAct(status)).toThrow(expect.objectContaining({ kind: 'forbidden' }));
  });
});

describe('assertOwnLogin', () => {
  it("given the user's own bearer session, then it passes", () => {
    expect(() => assertOwnLogin(caller('session'))).not.toThrow();
  });

  it.each(['apiKey', 'system'] as const)('given a %s credential, then it is forbidden', (credential) => {
    expect(() => assertOwnLogin(caller(credential))).toThrow(expect.objectContaining({ kind: 'forbidden' }));
  });

  it('given a bearer session carrying an impersonator, then it is forbidden', () => {
    expect(() => assertOwnLogin(caller('session', 8))).toThrow(expect.objectContaining({ kind: 'forbidden' }));
  });
});

describe('domain errors', () => {
  it.each<[string, DomainError, string, string[]]>([
    ['validationError', validationError('name', 'too long'), 'validation', ['name']],
    ['forbidden', forbidden('no'), 'forbidden', []],
    ['notFound', notFound('gone'), 'not_found', []],
    ['conflict', conflict('taken'), 'conflict', []],
  ])('given %s, then a DomainError of its kind naming its fields', (_helper, error, kind, fields) => {
    expect(error).toBeInstanceOf(DomainError);
    expect(error.name).toBe('DomainError');
    expect(error.kind).toBe(kind);
    expect(error.errors.map((e) => e.field)).toEqual(fields);
  });

  it('given a validation error, then its field error carries the same explanation as the error', () => {
    const error = validationError('name', 'too long');
    expect(error.errors).toEqual([{ field: 'name', message: error.message }]);
  });
});

describe('systemActor', () => {
  it('given an operator tool acting for the platform, then the actor is user 0 with the system credential', () => {
    expect(systemActor).toEqual({ userId: 0, credential: 'system' });
  });
});

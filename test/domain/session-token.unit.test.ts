import {
  CLOCK_SKEW_S,
  IMPERSONATION_MAX_LIFETIME_S,
  SESSION_MAX_LIFETIME_S,
  checkSessionClaims,
  isNonAccessTokenKind,
} from '../../src/domain/auth/session-token';

const now = 1_750_000_000;
const day = 24 * 3600;
const claims = (overrides: Record<string, unknown> = {}) => ({ sub: '7', iat: now, exp: now + 3600, ...overrides });

describe('session token claims', () => {
  it.each([
    ['a fresh 7-day session', claims({ exp: now + 7 * day })],
    ['a session issued a day ago', claims({ iat: now - day, exp: now + 6 * day })],
    ['iat 30 s ahead (clock skew)', claims({ iat: now + 30, exp: now + 30 + 3600 })],
    ['nbf 30 s ahead (clock skew)', claims({ nbf: now + 30 })],
    ['nbf in the past', claims({ nbf: now - 10 })],
    ['a 1-hour impersonation', claims({ act: { sub: '3' }, exp: now + 3600 })],
  ])('given %s, then it is accepted', (_label, payload) => {
    expect(checkSessionClaims(payload, now).ok).toBe(true);
  });

  it.each([
    ['iat ten years ahead with exp = iat + 7 d', claims({ iat: now + 3650 * day, exp: now + 3650 * day + 7 * day })],
    ['iat two minutes ahead', claims({ iat: now + 120, exp: now + 3600 })],
    ['exp < iat with both in range', claims({ iat: now + 50, exp: now + 40 })],
    ['exp - now over 7 days, iat back-dated', claims({ iat: now - 2 * day, exp: now + 8 * day })],
    ['exp - iat over 7 days', claims({ iat: now - 2 * day, exp: now + 6 * day })],
    ['nbf two minutes ahead', claims({ nbf: now + 120 })],
    ['nbf not a number', claims({ nbf: 'soon' })],
    ['already expired', claims({ exp: now })],
    [
      'impersonation over 1 hour from now',
      claims({ act: { sub: '3' }, iat: now - 1800, exp: now + 2 * 3600 - 1800 + 1 }),
    ],
    ['impersonation with iat ahead', claims({ act: { sub: '3' }, iat: now + 600, exp: now + 600 + 3600 })],
    ['a non-decimal sub', claims({ sub: 'admin' })],
    ['act without a decimal sub', claims({ act: { sub: 'x' } })],
    ['token_use id (Cognito ID token)', claims({ token_use: 'id' })],
    ['token_use refresh', claims({ token_use: 'refresh' })],
    ['typ claim Refresh (Keycloak)', claims({ typ: 'Refresh' })],
    ['typ claim ID (Keycloak)', claims({ typ: 'ID' })],
    ['typ claim Offline', claims({ typ: 'Offline' })],
  ])('given %s, then it is refused', (_label, payload) => {
    expect(checkSessionClaims(payload, now).ok).toBe(false);
  });

  it.each(['id+jwt', 'refresh+jwt', 'ID'])('given a "%s" typ header, then it is refused', (typ) => {
    expect(checkSessionClaims(claims(), now, typ).ok).toBe(false);
  });

  it.each(['JWT', 'at+jwt', undefined])('given a "%s" typ header on an access token, then it is accepted', (typ) => {
    expect(checkSessionClaims(claims({ token_use: 'access', typ: 'Bearer' }), now, typ).ok).toBe(true);
  });

  describe('what an accepted token opens', () => {
    it('given a session token, then the session is of its subject', () => {
      // Strict: a session token carries no impersonator, not even an undefined one.
      expect(checkSessionClaims(claims({ sub: '1234567890123456' }), now)).toStrictEqual({
        ok: true,
        claims: { userId: 1234567890123456 },
      });
    });

    it('given an impersonation token, then the session is of its subject, acted by act.sub', () => {
      expect(checkSessionClaims(claims({ act: { sub: '3' } }), now)).toStrictEqual({
        ok: true,
        claims: { userId: 7, impersonatorId: 3 },
      });
    });
  });

  describe('the edges of each bound', () => {
    const SESSION = SESSION_MAX_LIFETIME_S;
    const IMPERSONATION = IMPERSONATION_MAX_LIFETIME_S;
    const acting = { act: { sub: '3' } };

    it.each([
      ['exp one second from now', claims({ exp: now + 1 })],
      ['iat exactly the skew ahead', claims({ iat: now + CLOCK_SKEW_S, exp: now + 3600 })],
      ['nbf exactly the skew ahead', claims({ nbf: now + CLOCK_SKEW_S })],
      ['exp = iat, a zero lifetime, not yet expired', claims({ iat: now + 30, exp: now + 30 })],
      [
        'a session of exactly 7 days issued the skew ahead',
        claims({ iat: now + CLOCK_SKEW_S, exp: now + CLOCK_SKEW_S + SESSION }),
      ],
      ['a session of exactly 7 days', claims({ iat: now, exp: now + SESSION })],
      [
        'an impersonation of exactly 1 hour issued the skew ahead',
        claims({ ...acting, iat: now + CLOCK_SKEW_S, exp: now + CLOCK_SKEW_S + IMPERSONATION }),
      ],
      ['an impersonation of exactly 1 hour', claims({ ...acting, iat: now, exp: now + IMPERSONATION })],
      ['a sub of 16 digits', claims({ sub: '9007199254740991' })],
    ])('given %s, then it is accepted', (_label, payload) => {
      expect(checkSessionClaims(payload, now).ok).toBe(true);
    });

    it.each([
      ['exp one second ago', claims({ iat: now - 3600, exp: now - 1 })],
      ['iat one second past the skew', claims({ iat: now + CLOCK_SKEW_S + 1, exp: now + 3600 })],
      ['nbf one second past the skew', claims({ nbf: now + CLOCK_SKEW_S + 1 })],
      ['exp one second before iat', claims({ iat: now + 30, exp: now + 29 })],
      [
        'a session one second over 7 days from now, the skew included',
        claims({ iat: now + CLOCK_SKEW_S, exp: now + CLOCK_SKEW_S + SESSION + 1 }),
      ],
      ['a session one second over 7 days from iat', claims({ iat: now - 1, exp: now + SESSION })],
      [
        'an impersonation one second over 1 hour from now, the skew included',
        claims({ ...acting, iat: now + CLOCK_SKEW_S, exp: now + CLOCK_SKEW_S + IMPERSONATION + 1 }),
      ],
      [
        'an impersonation one second over 1 hour from iat',
        claims({ ...acting, iat: now - 1, exp: now + IMPERSONATION }),
      ],
      ['a sub of 17 digits', claims({ sub: '12345678901234567' })],
      ['a sub with a leading zero', claims({ sub: '07' })],
      ['a sub 0', claims({ sub: '0' })],
      ['a sub with text after the digits', claims({ sub: '7 admin' })],
      ['a sub with text before the digits', claims({ sub: 'user7' })],
      ['a numeric sub', claims({ sub: 7 })],
      ['no iat', { sub: '7', exp: now + 3600 }],
      ['no exp', { sub: '7', iat: now }],
      ['an act that is null', claims({ act: null })],
      ['an act that is a string', claims({ act: '3' })],
      ['an act with a numeric sub', claims({ act: { sub: 3 } })],
      ['an act with a sub of 17 digits', claims({ act: { sub: '12345678901234567' } })],
    ])('given %s, then it is refused', (_label, payload) => {
      expect(checkSessionClaims(payload, now)).toMatchObject({ ok: false });
    });
  });

  describe('isNonAccessTokenKind', () => {
    it.each<[string, unknown, Record<string, unknown>]>([
      ['no marks at all', undefined, {}],
      ['token_use access', undefined, { token_use: 'access' }],
      ['a JWT typ header', 'JWT', {}],
      ['an at+jwt typ header', 'at+jwt', {}],
      ['a typ claim Bearer', undefined, { typ: 'Bearer' }],
      ['a typ claim that only starts like id', undefined, { typ: 'identity' }],
      ['a typ header that only contains id', 'valid', {}],
      ['a typ header that is not a string', 42, {}],
    ])('given %s, then it is an access token', (_label, headerTyp, payload) => {
      expect(isNonAccessTokenKind(headerTyp, payload)).toBe(false);
    });

    it.each<[string, unknown, Record<string, unknown>]>([
      ['token_use id', undefined, { token_use: 'id' }],
      ['token_use set to anything but access', undefined, { token_use: 'ACCESS' }],
      ['a typ claim id', undefined, { typ: 'id' }],
      ['a typ claim ID_token', undefined, { typ: 'ID_token' }],
      ['a typ claim id-token', undefined, { typ: 'id-token' }],
      ['a typ header id+jwt', 'id+jwt', {}],
      ['a typ header Refresh+JWT', 'Refresh+JWT', {}],
      ['a typ claim offline_access', undefined, { typ: 'offline_access' }],
      ['a typ claim that ends in refresh', undefined, { typ: 'x-refresh' }],
      ['a Bearer typ claim with a refresh typ header', 'refresh+jwt', { typ: 'Bearer' }],
      ['a JWT typ header with an ID typ claim', 'JWT', { typ: 'ID' }],
    ])('given %s, then it is not an access token', (_label, headerTyp, payload) => {
      expect(isNonAccessTokenKind(headerTyp, payload)).toBe(true);
    });
  });
});

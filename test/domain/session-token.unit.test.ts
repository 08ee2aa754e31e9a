import { checkSessionClaims } from '../../src/domain/auth/session-token';

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
});

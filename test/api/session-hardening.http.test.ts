import { randomBytes } from 'node:crypto';
import { mintSessionToken } from '../../src/infra/auth/session-verifier';
import { demo, demoDirectory } from '../support/demo-directory';
import { serverForSuite } from '../support/suite-server';
import { startTestServer } from '../support/test-server';

/** Bearer tokens the service must refuse (docs/api.md "Credentials"). */
const now = () => Math.floor(Date.now() / 1000);
const day = 24 * 3600;

const expectUnauthenticated = (res: { status: number; body: { type?: string }; headers: Headers }) => {
  expect(res.status).toBe(401);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.body.type).toBe('/problems/unauthenticated');
};

describe('bearer token lifetime and impersonation', () => {
  const server = serverForSuite();

  const secret = () => server.services.secrets.jwtSecret ?? '';
  const getcurrent = (token: string) => server.get('/api/user/getcurrent', { token });

  it.each([
    ['iat ten years ahead, exp = iat + 7 d', () => ({ issuedAt: now() + 3650 * day, ttlSeconds: 7 * day })],
    ['iat two minutes ahead', () => ({ issuedAt: now() + 120, ttlSeconds: 3600 })],
    ['exp before iat', () => ({ issuedAt: now() + 30, expiresAt: now() + 20 })],
    [
      'exp - now over 7 days with a back-dated iat',
      () => ({ issuedAt: now() - day, expiresAt: now() + 7 * day + 3600 }),
    ],
    ['nbf two minutes ahead', () => ({ notBefore: now() + 120 })],
    [
      'impersonation with iat an hour ahead',
      () => ({ impersonatorId: demo.users.admin1, issuedAt: now() + 3600, ttlSeconds: 3600 }),
    ],
    ['an ID token (token_use)', () => ({ claims: { token_use: 'id' } })],
    ['a refresh token (typ claim)', () => ({ claims: { typ: 'Refresh' } })],
    ['a refresh token (typ header)', () => ({ typ: 'refresh+jwt' })],
  ])('given %s, when it is used, then 401', async (_label, options) => {
    const token = await mintSessionToken(secret(), { userId: demo.users.team, ...options() });
    expectUnauthenticated(await getcurrent(token));
  });

  it('given a fresh 7-day session, when it is used, then it is accepted', async () => {
    const token = await mintSessionToken(secret(), { userId: demo.users.team, ttlSeconds: 7 * day });
    expect((await getcurrent(token)).status).toBe(200);
  });

  it.each([
    ['banned', demo.users.banned],
    ['inactive', demo.users.inactive],
    ['unknown', 999_999],
  ])('given an impersonator who is %s, when the token is used, then 401', async (_label, impersonatorId) => {
    const token = await server.token(demo.users.member1, { impersonatorId });
    expectUnauthenticated(await getcurrent(token));
  });

  it('given an active impersonator who is then banned, when the same token is used again, then 401', async () => {
    const agent = 880_001;
    const upsert = (status: string) =>
      server.directory([{ type: 'UserUpserted', data: { userId: agent, name: 'Support', status } }]);
    expect((await upsert('active')).status).toBe(200);
    const token = await server.token(demo.users.member1, { impersonatorId: agent });
    expect((await getcurrent(token)).status).toBe(200);

    expect((await upsert('banned')).status).toBe(200);

    expectUnauthenticated(await getcurrent(token));
  });
});

describe('bearer token audience and issuer', () => {
  const secret = randomBytes(32).toString('base64url');
  const audience = 'project-resources-api';
  const issuer = 'https://id.example.org/';
  const server = serverForSuite([demoDirectory.events], {
    AUTH_JWT_SECRET: secret,
    AUTH_JWT_AUDIENCE: audience,
    AUTH_JWT_ISSUER: issuer,
  });

  const getcurrent = async (options: { audience?: string; issuer?: string }) =>
    server.get('/api/user/getcurrent', {
      token: await mintSessionToken(secret, { userId: demo.users.team, ...options }),
    });

  it('given the configured audience and issuer, then the token is accepted', async () => {
    expect((await getcurrent({ audience, issuer })).status).toBe(200);
  });

  it.each([
    ['no audience', { issuer }],
    ['another client’s audience', { audience: 'mobile-app', issuer }],
    ['no issuer', { audience }],
    ['another issuer', { audience, issuer: 'https://evil.example.org/' }],
  ])('given a token with %s, then 401', async (_label, options) => {
    expectUnauthenticated(await getcurrent(options));
  });
});

describe('a bearer token remembered as verified', () => {
  it('given a token accepted once (and so remembered), when the clock passes its exp, then the next request is 401', async () => {
    // The verified-token cache keeps a token's claims between requests: it must not outlive `exp`.
    let at = Date.parse('2026-06-01T00:00:00Z');
    const server = await startTestServer({}, { clock: () => new Date(at) });
    try {
      await server.directory(demoDirectory.events);
      const token = await server.token(demo.users.team, { ttlSeconds: 3600 });
      expect((await server.get('/api/user/getcurrent', { token })).status).toBe(200);

      at += 3600 * 1000 + 61_000; // past exp and the 60 s of clock skew the verifier allows

      expectUnauthenticated(await server.get('/api/user/getcurrent', { token }));
    } finally {
      await server.close();
    }
  });
});

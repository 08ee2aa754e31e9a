import { randomBytes } from 'node:crypto';
import { ConfigError, loadConfig } from '../../src/config/config';

const strong = () => randomBytes(36).toString('base64url');

function refusal(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected loadConfig to refuse');
}

describe('production secrets', () => {
  it('given generated secrets, when NODE_ENV=production, then the configuration loads', () => {
    const config = loadConfig({ NODE_ENV: 'production', AUTH_JWT_SECRET: strong(), DIRECTORY_SYNC_TOKEN: strong() });
    expect(config.NODE_ENV).toBe('production');
  });

  it('given a 64-character hex secret (openssl rand -hex 32), then production accepts it', () => {
    const hex = randomBytes(32).toString('hex');
    expect(loadConfig({ NODE_ENV: 'production', AUTH_JWT_SECRET: hex, DIRECTORY_SYNC_TOKEN: strong() }).NODE_ENV).toBe(
      'production',
    );
  });

  it.each([
    ['the old compose default', 'change-me-change-me-change-me-change-me'],
    ['the old compose directory default', 'change-me-too-change-me-too-change-me'],
    ['a changeme variant', 'CHANGEME_9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c'],
    ['a word "secret"', 'my-super-secret-jwt-key-for-the-service-2024'],
    ['a word "password"', 'Password1234567890Password1234567890'],
    ['32 times a', 'a'.repeat(32)],
    ['40 times x', 'x'.repeat(40)],
    ['a short repeated pattern', 'abcabcabcabcabcabcabcabcabcabcabc'],
    ['few distinct characters', '0101010122223333010101012222333301'],
  ])('given %s as AUTH_JWT_SECRET, when NODE_ENV=production, then loading fails naming it', (_label, value) => {
    const error = refusal({ NODE_ENV: 'production', AUTH_JWT_SECRET: value, DIRECTORY_SYNC_TOKEN: strong() });
    expect(error.variables).toEqual(['AUTH_JWT_SECRET']);
  });

  it('given a weak DIRECTORY_SYNC_TOKEN, when NODE_ENV=production, then loading fails naming it', () => {
    const error = refusal({ NODE_ENV: 'production', AUTH_JWT_SECRET: strong(), DIRECTORY_SYNC_TOKEN: 'b'.repeat(48) });
    expect(error.variables).toEqual(['DIRECTORY_SYNC_TOKEN']);
  });

  it('given a weak secret outside production, then it is accepted (tests and local runs)', () => {
    expect(loadConfig({ NODE_ENV: 'development', AUTH_JWT_SECRET: 'a'.repeat(32) }).AUTH_JWT_SECRET).toBe(
      'a'.repeat(32),
    );
  });
});

describe('identity provider tokens', () => {
  it.each([
    [{}, ['AUTH_JWT_AUDIENCE', 'AUTH_JWT_ISSUER']],
    [{ AUTH_JWT_AUDIENCE: 'resources-api' }, ['AUTH_JWT_ISSUER']],
    [{ AUTH_JWT_ISSUER: 'https://id.example.org/' }, ['AUTH_JWT_AUDIENCE']],
  ])('given AUTH_JWKS_URL with %j, then loading fails naming what is missing', (extra, missing) => {
    const error = refusal({ AUTH_JWKS_URL: 'https://id.example.org/jwks.json', ...extra });
    expect(error.variables).toEqual(missing);
  });

  it('given AUTH_JWKS_URL with an audience and an issuer, then it loads', () => {
    const config = loadConfig({
      AUTH_JWKS_URL: 'https://id.example.org/jwks.json',
      AUTH_JWT_AUDIENCE: 'resources-api',
      AUTH_JWT_ISSUER: 'https://id.example.org/',
    });
    expect(config).toMatchObject({ AUTH_JWT_AUDIENCE: 'resources-api', AUTH_JWT_ISSUER: 'https://id.example.org/' });
  });
});

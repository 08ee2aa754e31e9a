import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from './config';
import { makePrivateDir } from './private-files';

export type Secrets = { jwtSecret?: string; jwksUrl?: string; directoryToken: string };

type DevSecretsFile = { jwtSecret: string; directoryToken: string };

/**
 * Outside production a missing secret is generated once into DATA_DIR/dev-secrets.json (mode
 * 0600), so a fresh clone runs without set-up and restarts keep the same tokens valid.
 * loadConfig already refused to start production without explicit secrets.
 */
export function resolveSecrets(config: Config): Secrets {
  const needsJwt = !config.AUTH_JWT_SECRET && !config.AUTH_JWKS_URL;
  if (!needsJwt && config.DIRECTORY_SYNC_TOKEN) {
    return {
      jwtSecret: config.AUTH_JWT_SECRET,
      jwksUrl: config.AUTH_JWKS_URL,
      directoryToken: config.DIRECTORY_SYNC_TOKEN,
    };
  }
  if (config.NODE_ENV === 'production') throw new Error('production requires explicit secrets');
  const dev = readOrCreateDevSecrets(config.DATA_DIR);
  return {
    jwtSecret: config.AUTH_JWT_SECRET ?? (config.AUTH_JWKS_URL ? undefined : dev.jwtSecret),
    jwksUrl: config.AUTH_JWKS_URL,
    directoryToken: config.DIRECTORY_SYNC_TOKEN ?? dev.directoryToken,
  };
}

/**
 * Raised where a tool must sign with the server's development secret and DATA_DIR holds none:
 * making a second secret there would mint tokens the running server refuses ("bad signature").
 */
export class NoDevSecretsError extends Error {
  constructor(readonly dataDir: string) {
    super(
      `no development secret in ${dataDir}: the server writes one to DATA_DIR/dev-secrets.json when it first ` +
        'starts, and tokens must be signed with it. Run this with the DATA_DIR the server uses (or its ' +
        'AUTH_JWT_SECRET), or start the server once first.',
    );
    this.name = 'NoDevSecretsError';
  }
}

/**
 * The secret a tool signs session tokens with for a running server (dev-token): AUTH_JWT_SECRET, or
 * the one the server generated in DATA_DIR, never a new one (NoDevSecretsError); undefined when an
 * identity provider (AUTH_JWKS_URL) issues the tokens.
 */
export function serverSigningSecret(config: Config): string | undefined {
  if (config.AUTH_JWT_SECRET) return config.AUTH_JWT_SECRET;
  if (config.AUTH_JWKS_URL) return undefined;
  const file = devSecretsFile(config.DATA_DIR);
  if (!fs.existsSync(file)) throw new NoDevSecretsError(path.resolve(config.DATA_DIR));
  return readDevSecrets(file).jwtSecret;
}

const devSecretsFile = (dataDir: string): string => path.join(dataDir, 'dev-secrets.json');
const readDevSecrets = (file: string): DevSecretsFile => JSON.parse(fs.readFileSync(file, 'utf8')) as DevSecretsFile;

function readOrCreateDevSecrets(dataDir: string): DevSecretsFile {
  const file = devSecretsFile(dataDir);
  if (fs.existsSync(file)) return readDevSecrets(file);
  makePrivateDir(dataDir);
  const secrets: DevSecretsFile = {
    jwtSecret: randomBytes(32).toString('base64url'),
    directoryToken: randomBytes(32).toString('base64url'),
  };
  try {
    fs.writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600, flag: 'wx' });
  } catch (error) {
    // Another process (the CLI next to a starting server) wrote it first: use theirs.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return readDevSecrets(file);
    throw error;
  }
  return secrets;
}

import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from './config';

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

function readOrCreateDevSecrets(dataDir: string): DevSecretsFile {
  const file = path.join(dataDir, 'dev-secrets.json');
  if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8')) as DevSecretsFile;
  fs.mkdirSync(dataDir, { recursive: true });
  const secrets: DevSecretsFile = {
    jwtSecret: randomBytes(32).toString('base64url'),
    directoryToken: randomBytes(32).toString('base64url'),
  };
  try {
    fs.writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600, flag: 'wx' });
  } catch (error) {
    // Another process (the CLI next to a starting server) wrote it first: use theirs.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST')
      return JSON.parse(fs.readFileSync(file, 'utf8')) as DevSecretsFile;
    throw error;
  }
  return secrets;
}

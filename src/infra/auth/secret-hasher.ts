import argon2 from 'argon2';
import type { SecretHasher } from '../../ports/secret-hasher';

/**
 * argon2id with OWASP's minimum parameters (19 MiB, t=2, p=1): the one-way hash of an API key's
 * secret. Only the hash is ever stored (in the ApiKeyCreated/ApiKeyRotated events and the read
 * model); the secret itself exists only in the creation answer and the client's hands.
 */
export const ARGON2_OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const argon2Hasher: SecretHasher = {
  hash: (secret) => argon2.hash(secret, ARGON2_OPTIONS),
  async verify(hash, secret) {
    try {
      return await argon2.verify(hash, secret);
    } catch {
      return false;
    }
  },
};

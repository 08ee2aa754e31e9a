/** The one-way hash of an API key's secret (argon2id in src/infra/auth/secret-hasher.ts). */
export interface SecretHasher {
  hash(secret: string): Promise<string>;
  /** False for a wrong secret and for a malformed hash; never throws for either. */
  verify(hash: string, secret: string): Promise<boolean>;
}

/**
 * Whether a configured secret is fit for production: a value copied from an example
 * file, or one a person typed, can be guessed, and anyone who guesses AUTH_JWT_SECRET signs a
 * session for any user. Outside production the same values are allowed so tests stay readable.
 */

/** Words that only appear in secrets nobody generated. Compared without case or separators. */
const PLACEHOLDER_WORDS = [
  'changeme',
  'replaceme',
  'secret',
  'password',
  'passw0rd',
  'example',
  'placeholder',
  'dummy',
  'insecure',
  'default',
  'yoursecret',
];

/** Fewer distinct characters than this is a typed or repeated value, not a generated one. */
export const MIN_DISTINCT_CHARS = 10;
/** Shannon entropy per character; random base64 scores about 5, random hex about 3.8. */
export const MIN_BITS_PER_CHAR = 3;

export type SecretWeakness = 'placeholder' | 'low-entropy';

export function secretWeakness(secret: string): SecretWeakness | undefined {
  const folded = secret.toLowerCase().replace(/[^a-z0-9]/g, '');
  if (PLACEHOLDER_WORDS.some((word) => folded.includes(word))) return 'placeholder';
  const counts = new Map<string, number>();
  for (const char of secret) counts.set(char, (counts.get(char) ?? 0) + 1);
  if (counts.size < MIN_DISTINCT_CHARS) return 'low-entropy';
  const length = [...secret].length;
  let bits = 0;
  for (const count of counts.values()) {
    const p = count / length;
    bits -= p * Math.log2(p);
  }
  return bits < MIN_BITS_PER_CHAR ? 'low-entropy' : undefined;
}

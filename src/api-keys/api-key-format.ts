import { crc32 } from 'node:zlib';

/**
 * The API key format (docs/api.md "Credentials"), as pure functions:
 *
 *   svc_live_<16 base62>.<43 base62><6 base62>
 *   '------- keyId ----' '-- secret ---------'
 *
 * - keyId: the public part, `svc_live_` + 16 random base62 characters (~95 bits, so ids are
 *   unique without coordination and cannot be enumerated).
 * - secret: 43 random base62 characters (43 × log2 62 = 256.03 bits), then a 6-character base62
 *   CRC32 of everything before it (`keyId.random`), as GitHub's tokens do: a mistyped or
 *   truncated key is refused before any lookup or hashing, and a secret scanner can validate a
 *   candidate offline.
 *
 * Randomness comes in through `randomBytes`, so the functions stay pure and testable.
 */

export const API_KEY_PREFIX = 'svc_live_';
export const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const KEY_ID_RANDOM_LENGTH = 16;
export const SECRET_RANDOM_LENGTH = 43;
export const CHECKSUM_LENGTH = 6;

const KEY_PATTERN = new RegExp(
  `^(${API_KEY_PREFIX}[0-9A-Za-z]{${KEY_ID_RANDOM_LENGTH}})\\.([0-9A-Za-z]{${SECRET_RANDOM_LENGTH}})([0-9A-Za-z]{${CHECKSUM_LENGTH}})$`,
);

export type RandomBytes = (size: number) => Uint8Array;

/**
 * `length` uniformly random base62 characters. Bytes of 248 and above are dropped (248 = 4 × 62),
 * so `byte % 62` carries no modulo bias.
 */
export function randomBase62(length: number, randomBytes: RandomBytes): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length - out.length + 8)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

/** A non-negative integer below 62^width in exactly `width` base62 digits. */
export function base62Fixed(value: number, width: number): string {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError('base62: value must be a non-negative integer');
  let rest = value;
  let out = '';
  for (let i = 0; i < width; i++) {
    out = BASE62[rest % 62] + out;
    rest = Math.floor(rest / 62);
  }
  if (rest !== 0) throw new RangeError(`base62: ${value} does not fit in ${width} digits`);
  return out;
}

/** The 6-character base62 CRC32 of `text` (62^6 > 2^32, so every CRC fits). */
export function checksumOf(text: string): string {
  return base62Fixed(crc32(text), CHECKSUM_LENGTH);
}

export function newKeyId(randomBytes: RandomBytes): string {
  return API_KEY_PREFIX + randomBase62(KEY_ID_RANDOM_LENGTH, randomBytes);
}

/** A fresh secret for `keyId`, its checksum included. */
export function newSecret(keyId: string, randomBytes: RandomBytes): string {
  const random = randomBase62(SECRET_RANDOM_LENGTH, randomBytes);
  return random + checksumOf(`${keyId}.${random}`);
}

export const formatApiKey = (keyId: string, secret: string): string => `${keyId}.${secret}`;

export type ParsedApiKey =
  | { readonly ok: true; readonly keyId: string; readonly secret: string }
  | { readonly ok: false; readonly reason: 'malformed' | 'checksum' };

/** Splits a presented key and checks its shape and checksum; nothing else is consulted. */
export function parseApiKey(text: string): ParsedApiKey {
  const match = KEY_PATTERN.exec(text);
  if (!match) return { ok: false, reason: 'malformed' };
  const [, keyId = '', random = '', checksum = ''] = match;
  if (!constantTimeEqualStrings(checksumOf(`${keyId}.${random}`), checksum)) return { ok: false, reason: 'checksum' };
  return { ok: true, keyId, secret: random + checksum };
}

/** Compares two short ASCII strings without stopping at the first difference. */
function constantTimeEqualStrings(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import {
  API_KEY_PREFIX,
  BASE62,
  base62Fixed,
  checksumOf,
  formatApiKey,
  newKeyId,
  newSecret,
  parseApiKey,
  randomBase62,
} from '../../src/api-keys/api-key-format';

const freshKey = () => {
  const keyId = newKeyId(randomBytes);
  return { keyId, secret: newSecret(keyId, randomBytes) };
};

describe('API key format', () => {
  describe('given a freshly made key', () => {
    it('when formatted, then it reads svc_live_<16 base62>.<49 base62> and parses back to its parts', () => {
      const { keyId, secret } = freshKey();
      const key = formatApiKey(keyId, secret);

      expect(key).toMatch(/^svc_live_[0-9A-Za-z]{16}\.[0-9A-Za-z]{49}$/);
      expect(parseApiKey(key)).toEqual({ ok: true, keyId, secret });
      expect(keyId.startsWith(API_KEY_PREFIX)).toBe(true);
    });

    it('when its secret is checked, then the last 6 characters are the base62 CRC32 of everything before them', () => {
      const { keyId, secret } = freshKey();
      const body = `${keyId}.${secret.slice(0, -6)}`;

      expect(secret.slice(-6)).toBe(base62Fixed(crc32(body), 6));
    });

    it('when many secrets are made, then they differ, and each carries at least 256 random bits: 43 characters drawn from all 62', () => {
      // when
      const secrets = Array.from({ length: 200 }, () => freshKey().secret);
      // then
      expect(new Set(secrets).size).toBe(200);
      const randomParts = secrets.map((secret) => secret.slice(0, -6)); // the last 6 are the checksum
      const lengths = new Set(randomParts.map((part) => part.length));
      const alphabet = new Set(randomParts.join(''));
      // 200 x 43 characters: each of the 62 is missing with a probability below 1e-30
      expect(alphabet.size).toBe(62);
      expect(lengths.size).toBe(1);
      const bits = Math.min(...lengths) * Math.log2(alphabet.size);
      expect(bits).toBeGreaterThanOrEqual(256);
    });
  });

  describe('given a damaged key', () => {
    const { keyId, secret } = freshKey();
    const key = formatApiKey(keyId, secret);
    const flip = (text: string, at: number) => {
      const c = text[at] === 'a' ? 'b' : 'a';
      return text.slice(0, at) + c + text.slice(at + 1);
    };

    it.each([
      ['one character of the secret mistyped', flip(key, key.length - 10)],
      ['one character of the key id mistyped', flip(key, API_KEY_PREFIX.length + 2)],
      ['the checksum mistyped', flip(key, key.length - 1)],
    ])('when %s, then it is refused for its checksum', (_case, damaged) => {
      expect(parseApiKey(damaged)).toEqual({ ok: false, reason: 'checksum' });
    });

    it.each([
      ['truncated', key.slice(0, -1)],
      ['extended', `${key}A`],
      ['without the dot', key.replace('.', '')],
      ['with another prefix', key.replace('svc_live_', 'svc_test_')],
      ['empty', ''],
      ['with a non-base62 character', `${key.slice(0, -2)}-${key.slice(-1)}`],
    ])('when %s, then it is refused as malformed', (_case, damaged) => {
      expect(parseApiKey(damaged)).toEqual({ ok: false, reason: 'malformed' });
    });
  });

  describe('base62 helpers', () => {
    it('given fixed random bytes, when drawing characters, then bytes of 248 and above are skipped', () => {
      const bytes = [250, 0, 61, 248, 62, 255, 247];
      let i = 0;
      const source = (n: number) => Uint8Array.from({ length: n }, () => bytes[i++ % bytes.length] ?? 0);

      expect(randomBase62(4, source)).toBe(`${BASE62[0]}${BASE62[61]}${BASE62[0]}${BASE62[247 % 62]}`);
    });

    it('given the largest CRC32, when encoded, then it fits in 6 digits, and a value too large throws a RangeError', () => {
      expect(base62Fixed(0xffffffff, 6)).toHaveLength(6);
      expect(() => base62Fixed(62 ** 6, 6)).toThrow(RangeError);
      expect(checksumOf('')).toBe('000000');
    });

    it.each([1.5, -1, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53])(
      'given %p, when encoded, then it throws a RangeError (not a non-negative safe integer)',
      (value) => {
        expect(() => base62Fixed(value, 6)).toThrow(RangeError);
      },
    );

    it('given small values, when encoded in a fixed width, then they are base62 digits padded with zeros', () => {
      expect(base62Fixed(0, 3)).toBe('000');
      expect(base62Fixed(61, 3)).toBe('00z');
      expect(base62Fixed(62, 3)).toBe('010');
      expect(base62Fixed(62 ** 3 - 1, 3)).toBe('zzz');
    });
  });
});

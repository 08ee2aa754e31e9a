import { createHash } from 'node:crypto';
import { eventHash, GENESIS } from '../../src/audit/log-hash';

/**
 * What the hash chain hashes (docs/architecture.md "A tamper-evident log"), pinned:
 * SHA-256 over the UTF-8 bytes of
 * `${previous hex}\n${JSON.stringify([streamId, revision, type])}\n${data}\n${metadata}`.
 * Logs already written carry these hashes, so a faster eventHash must hash the very same bytes:
 * the known answers below were computed by the first eventHash (one joined string, hashed whole).
 */
type Case = [previous: string, streamId: string, revision: bigint, type: string, data: string, metadata: string];

const cases: [name: string, input: Case, known: string][] = [
  [
    'the first event of a chain, plain ASCII',
    [
      GENESIS,
      's-1',
      0n,
      'Happened',
      '{"n":0}',
      '{"actor":{"userId":1,"credential":"session"},"correlationId":"c","at":"2025-03-01T00:00:00.000Z"}',
    ],
    'ddef66abff7d2a62a05039e834984f7f3ac2ecb3d799b1a883c0457a6d9134ec',
  ],
  [
    'a stream id and type that JSON escapes, non-ASCII text, a revision past 2^53',
    [
      '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
      'resource-"7"\\\n\t\u0001',
      1152921504606846976n,
      'Typé ✓ 😀',
      '{"name":"Café 😀 \\u0000 \\"q\\"","n":-1.5e+300}',
      '{}',
    ],
    'ad5a8479873528db197c5bb4161a6a0fbd339b24fd0256342813169ee9173055',
  ],
  [
    'lone surrogates (escaped in the identity, replaced in data), U+2028, DEL',
    [
      '00'.repeat(32),
      'lone-\ud800-surrogate',
      3n,
      'T\u2028',
      '{"s":"lone \ud83d here, paired 😀"}',
      '{"m":"\u007f\u0085"}',
    ],
    '1bc1341e773f4264813b2b424afd100935fa1b3258d9447e91f062e3359be658',
  ],
  [
    'a stream id over 64 characters, a type with DEL, a revision of 2^53 + 1, Latin-1 data',
    ['ab'.repeat(32), `${'stream-'.repeat(12)}x`, 9007199254740993n, 'Type\u007f', '{"a":"ÿ"}', '{"b":[]}'],
    '4125a67f621a17d49b8d0a4bc21207d8b5eacd4f62c30285dd96d78cb168e859',
  ],
  [
    'an event of some hundred kilobytes',
    [
      'ff'.repeat(32),
      'big',
      42n,
      'Big',
      JSON.stringify({ text: 'é😀x'.repeat(20_000) }),
      JSON.stringify({ at: 'z'.repeat(5000) }),
    ],
    'ae50ed55285bf9ac0d90cb90a3675b6336290c9fe6d0202f388ee3d7c1ce089b',
  ],
];

const definition = ([previous, streamId, revision, type, data, metadata]: Case): string =>
  createHash('sha256')
    .update(
      Buffer.from(
        `${previous}\n${JSON.stringify([streamId, revision.toString(), type])}\n${data}\n${metadata}`,
        'utf8',
      ),
    )
    .digest('hex');

describe('the hash chain: what one event hash covers', () => {
  it.each(cases)('given %s, when hashed, then the known answer of the first eventHash', (_name, input, known) => {
    expect(eventHash(...input)).toBe(known);
    expect(definition(input)).toBe(known);
  });

  it('given the cases hashed in turn and again in another order, when compared, then each answer stands alone', () => {
    // eventHash may reuse a buffer between calls: no call may leak into the next
    const forward = cases.map(([, input]) => eventHash(...input));
    const backward = [...cases]
      .reverse()
      .map(([, input]) => eventHash(...input))
      .reverse();
    expect(backward).toEqual(forward);
    expect(forward).toEqual(cases.map(([, , known]) => known));
  });
});

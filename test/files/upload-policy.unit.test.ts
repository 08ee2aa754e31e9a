import { parseRange } from '../../src/api/http-range';
import { checkDeclared, checkLeadingBytes, contentDisposition, sanitiseFileName } from '../../src/domain/files/upload-policy';
import { SAMPLES, samples } from '../support/file-samples';

describe('sanitiseFileName', () => {
  it.each<[string, string]>([
    ['report.pdf', 'report.pdf'],
    ['../../etc/passwd.txt', '_.._etc_passwd.txt'],
    ['a\\b.txt', 'a_b.txt'],
    ['bad\u0000\u0001\u001f\u007fname.txt', 'badname.txt'],
    ['invoice\u202Egnp.exe.txt', 'invoicegnp.exe.txt'],
    ['x\u2066y\u2069.txt', 'xy.txt'],
    ['.hidden.png', 'hidden.png'],
    ['.png', 'png'],
    ['  spaced   out  .txt', 'spaced out .txt'],
  ])('given %j, then %j', (raw, expected) => {
    expect(sanitiseFileName(raw)).toBe(expected);
  });

  it('given a very long name, then at most 120 characters, keeping the extension', () => {
    const name = sanitiseFileName(`${'é'.repeat(500)}.docx`);
    expect([...name].length).toBe(120);
    expect(name.endsWith('.docx')).toBe(true);
  });
});

describe('checkDeclared and checkLeadingBytes', () => {
  it.each(Object.entries(SAMPLES))('a real .%s with its type passes both', (extension, [type, make]) => {
    expect(checkDeclared(`a.${extension}`, type).refused).toBe(false);
    expect(checkLeadingBytes(`a.${extension}`, make()).refused).toBe(false);
  });

  it.each<[string, string]>([
    ['a.png', 'application/pdf'],
    ['a.pdf', 'image/png'],
    ['a.exe', 'application/octet-stream'],
    ['a', 'text/plain'],
    ['a.txt', 'text/html'],
  ])('%s declared as %s is refused', (name, type) => {
    expect(checkDeclared(name, type).refused).toBe(true);
  });

  it.each<[string, () => Buffer]>([
    ['a.png', samples.exe],
    ['a.csv', samples.elf],
    ['a.txt', samples.html],
    ['a.xml', () => Buffer.from('<html><script>x</script></html>')],
    ['a.yaml', () => Buffer.from('#!/usr/bin/env node\n')],
    ['a.png', samples.pdf],
    ['a.csv', samples.png],
    ['a.docx', samples.png],
  ])('%s whose bytes contradict it is refused', (name, make) => {
    expect(checkLeadingBytes(name, make()).refused).toBe(true);
  });
});

describe('contentDisposition (RFC 6266 / 5987)', () => {
  it('an ASCII fallback and the exact UTF-8 name', () => {
    expect(contentDisposition('naïve "quote" 50%.pdf')).toBe(
      `attachment; filename="na_ve _quote_ 50_.pdf"; filename*=UTF-8''na%C3%AFve%20%22quote%22%2050%25.pdf`,
    );
  });
});

describe('parseRange', () => {
  it.each<[string | undefined, number, ReturnType<typeof parseRange>]>([
    [undefined, 10, { kind: 'whole' }],
    ['bytes=0-4', 10, { kind: 'partial', start: 0, end: 4 }],
    ['bytes=5-', 10, { kind: 'partial', start: 5, end: 9 }],
    ['bytes=-3', 10, { kind: 'partial', start: 7, end: 9 }],
    ['bytes=-30', 10, { kind: 'partial', start: 0, end: 9 }],
    ['bytes=8-100', 10, { kind: 'partial', start: 8, end: 9 }],
    ['bytes=10-', 10, { kind: 'unsatisfiable' }],
    ['bytes=-0', 10, { kind: 'unsatisfiable' }],
    ['bytes=0-', 0, { kind: 'unsatisfiable' }],
    ['bytes=4-2', 10, { kind: 'whole' }],
    ['bytes=0-1,3-4', 10, { kind: 'whole' }],
    ['pages=1', 10, { kind: 'whole' }],
  ])('Range %j on %d bytes', (header, size, expected) => {
    expect(parseRange(header, size)).toEqual(expected);
  });
});

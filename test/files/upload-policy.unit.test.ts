import { parseRange } from '../../src/files/http-range';
import type { RefusalKind } from '../../src/files/upload-policy';
import { checkDeclared, checkLeadingBytes, contentDisposition, sanitiseFileName } from '../../src/files/upload-policy';
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

  it.each<[string, string, RefusalKind]>([
    ['a.png', 'application/pdf', 'declared-type'],
    ['a.pdf', 'image/png', 'declared-type'],
    ['a.exe', 'application/octet-stream', 'extension'],
    ['a', 'text/plain', 'extension'],
    ['a.txt', 'text/html', 'declared-type'],
  ])('%s declared as %s is refused for its %s', (name, type, kind) => {
    expect(checkDeclared(name, type)).toMatchObject({ refused: true, kind });
  });

  it.each<[string, () => Buffer, RefusalKind]>([
    ['a.png', samples.exe, 'executable'],
    ['a.csv', samples.elf, 'executable'],
    ['a.txt', samples.html, 'html'],
    ['a.xml', () => Buffer.from('<html><script>x</script></html>'), 'html'],
    ['a.yaml', () => Buffer.from('#!/usr/bin/env node\n'), 'script'],
    ['a.png', samples.pdf, 'format'],
    ['a.csv', samples.png, 'format'],
    ['a.docx', samples.png, 'format'],
  ])('%s whose bytes contradict it is refused', (name, make, kind) => {
    expect(checkLeadingBytes(name, make())).toMatchObject({ refused: true, kind });
  });
});

describe('checkLeadingBytes: text that a browser would run as a page or a script', () => {
  // Every HTML marker and script start the policy knows, each written the ways that evade a naive
  // check: leading white space, a UTF-8 byte order mark, mixed case, and all three together.
  const payloads: [string, RefusalKind][] = [
    ['<!DOCTYPE html><html><body>x</body></html>', 'html'],
    ['<html><body>x</body></html>', 'html'],
    ['<script>alert(document.cookie)</script>', 'html'],
    ['<body onload="alert(1)">', 'html'],
    ['<iframe src="https://example.org"></iframe>', 'html'],
    ['<svg onload="alert(1)"></svg>', 'html'],
    ['<head><meta http-equiv="refresh" content="0;url=https://example.org"></head>', 'html'],
    ['#!/bin/sh\necho pwned\n', 'script'],
  ];
  const BOM = '\xef\xbb\xbf';
  const mixedCase = (text: string) =>
    text.replace(/[a-z]/gi, (c, i: number) => (i % 2 === 0 ? c.toUpperCase() : c.toLowerCase()));
  const variants: [string, (payload: string) => string][] = [
    ['as is', (p) => p],
    ['after a space', (p) => ` ${p}`],
    ['after tabs and newlines', (p) => `\t\r\n \n${p}`],
    ['after a BOM', (p) => BOM + p],
    ['in mixed case', mixedCase],
    ['after a BOM and white space, in mixed case', (p) => `${BOM} \n${mixedCase(p)}`],
  ];
  const cases = ['txt', 'csv', 'xml', 'yaml'].flatMap((extension) =>
    payloads.flatMap(([payload, kind]) =>
      variants.map(([how, write]) => [extension, payload.slice(0, 14), how, write(payload), kind] as const),
    ),
  );

  it('covers every marker in every variant for every text extension', () => {
    expect(cases).toHaveLength(4 * payloads.length * variants.length);
  });

  it.each(cases)('a .%s starting %j, %s, is refused as %s', (extension, _start, _how, text, kind) => {
    expect(checkLeadingBytes(`a.${extension}`, Buffer.from(text, 'latin1'))).toMatchObject({ refused: true, kind });
  });

  it.each([
    ['a .txt that mentions <svg> later on', 'a.txt', 'Draw it with <svg> and <script> tags.'],
    ['a .txt saved with a BOM', 'a.txt', `${BOM}Hello`],
    ['a .csv saved with a BOM (as spreadsheets export UTF-8 CSV)', 'a.csv', `${BOM}id,name\n1,Ada\n`],
    ['a .csv whose first cell is a hash', 'a.csv', '#,name\n1,Ada\n'],
    ['a .yaml starting with a comment', 'a.yaml', '# settings\nkey: value\n'],
    ['a .xml with its declaration after a BOM', 'a.xml', `${BOM}<?xml version="1.0"?><note>x</note>`],
  ])('%s is accepted', (_what, name, text) => {
    expect(checkLeadingBytes(name, Buffer.from(text, 'latin1'))).toEqual({ refused: false });
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

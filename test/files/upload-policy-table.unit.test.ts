import type { RefusalKind } from '../../src/files/upload-policy';
import {
  ACCEPTED_EXTENSIONS,
  DEFAULT_FOLDER,
  FOLDER_PATTERN,
  checkDeclared,
  checkLeadingBytes,
  contentDisposition,
  extensionOf,
  parseUploadPath,
  sanitiseFileName,
  servedContentType,
} from '../../src/files/upload-policy';
import { ALL_DECLARED, POLICY, TEXT_EXTENSIONS } from './upload-policy-table';

const EXTENSIONS = Object.keys(POLICY);
const ascii = (text: string) => Buffer.from(text, 'latin1');
const hex = (text: string) => Buffer.from(text.replace(/\s/g, ''), 'hex');

describe('the accepted extensions', () => {
  it('given the policy table, then exactly its extensions are accepted, listed in order', () => {
    expect(ACCEPTED_EXTENSIONS).toEqual([...EXTENSIONS].sort());
  });
});

describe('checkDeclared: the declared content type must fit the extension', () => {
  const sorted = (types: readonly string[]) => [...types].sort();

  it('given the table, then every declared type of it is known', () => {
    expect(ALL_DECLARED.length).toBeGreaterThan(EXTENSIONS.length);
    expect(EXTENSIONS.every((extension) => POLICY[extension]!.declared.every((t) => ALL_DECLARED.includes(t)))).toBe(
      true,
    );
  });

  it.each(EXTENSIONS)('given a .%s, then of all the types some extension takes, exactly its row fits', (extension) => {
    const accepted = ALL_DECLARED.filter((type) => !checkDeclared(`a.${extension}`, type).refused);
    expect(sorted(accepted)).toEqual(sorted(POLICY[extension]!.declared));
  });

  it.each(EXTENSIONS)('given a .%s, then the others are refused for their declared type', (extension) => {
    const kinds = ALL_DECLARED.filter((type) => !POLICY[extension]!.declared.includes(type)).map(
      (type) => checkDeclared(`a.${extension}`, type) as { kind?: string },
    );
    expect(kinds.length).toBe(ALL_DECLARED.length - POLICY[extension]!.declared.length);
    expect(new Set(kinds.map((verdict) => verdict.kind))).toEqual(new Set(['declared-type']));
  });

  it.each(EXTENSIONS)('given a .%s declared in upper case with parameters, then its row still fits', (extension) => {
    const verdicts = POLICY[extension]!.declared.map((type) =>
      checkDeclared(`A.${extension.toUpperCase()}`, ` ${type.toUpperCase()} ; charset=UTF-8`),
    );
    expect(verdicts).toEqual(POLICY[extension]!.declared.map(() => ({ refused: false })));
  });

  it.each(EXTENSIONS)('given a .%s declared as application/octet-stream, then it is accepted', (extension) => {
    expect(checkDeclared(`a.${extension}`, 'application/octet-stream')).toEqual({ refused: false });
  });

  it.each(EXTENSIONS)('given a .%s declared with no type, then it is refused for its declared type', (extension) => {
    expect(checkDeclared(`a.${extension}`, '')).toMatchObject({ refused: true, kind: 'declared-type' });
  });

  it.each(['a.exe', 'a.html', 'a.svg', 'a.js', 'a', 'a.', '.png'])(
    'given %j, then it is refused for its extension',
    (name) => {
      expect(checkDeclared(name, 'application/octet-stream')).toMatchObject({ refused: true, kind: 'extension' });
    },
  );
});

describe('servedContentType: the download type comes from the extension only', () => {
  it.each(EXTENSIONS)('given a stored .%s, then it is served as the first type of its row', (extension) => {
    const first = POLICY[extension]!.declared[0];
    const expected = TEXT_EXTENSIONS.includes(extension) ? `${first}; charset=utf-8` : first;
    expect(servedContentType(`Report.${extension.toUpperCase()}`)).toBe(expected);
  });

  it('given a name with no accepted extension, then it is served as application/octet-stream', () => {
    expect(servedContentType('notes.exe')).toBe('application/octet-stream');
    expect(servedContentType('notes')).toBe('application/octet-stream');
  });
});

describe('checkLeadingBytes: executables are refused whatever the extension', () => {
  const executables: [string, Buffer][] = [
    ['a Mach-O 32-bit (big-endian)', hex('FEEDFACE 00000000')],
    ['a Mach-O 64-bit (big-endian)', hex('FEEDFACF 00000000')],
    ['a Mach-O 32-bit (little-endian)', hex('CEFAEDFE 00000000')],
    ['a Mach-O 64-bit (little-endian)', hex('CFFAEDFE 00000000')],
    ['a Mach-O universal binary or Java class', hex('CAFEBABE 00000000')],
    ['a Windows executable', ascii('MZ')],
    ['an ELF executable', hex('7F454C46')],
  ];
  const cases = ['png', 'txt', 'pdf', 'csv'].flatMap((extension) =>
    executables.map(([what, bytes]) => [extension, what, bytes] as const),
  );

  it.each(cases)('given a .%s that is %s, then it is refused as an executable', (extension, _what, bytes) => {
    expect(checkLeadingBytes(`a.${extension}`, bytes)).toMatchObject({ refused: true, kind: 'executable' });
  });

  it.each<[string, Buffer]>([
    ['a Mach-O magic and nothing else', hex('FEEDFACE')],
    ['a Java class magic and nothing else', hex('CAFEBABE')],
    ['an ELF magic and nothing else', hex('7F454C46')],
  ])('given a .txt of %s, then it is refused as an executable', (_what, bytes) => {
    expect(checkLeadingBytes('a.txt', bytes)).toMatchObject({ refused: true, kind: 'executable' });
  });

  it.each<[string, Buffer]>([
    ['no byte', Buffer.alloc(0)],
    ['one byte', ascii('a')],
    ['three bytes', ascii('abc')],
    ['the first three bytes of a Mach-O magic', hex('FEEDFA')],
  ])('given a .txt of %s, then it is accepted', (_what, bytes) => {
    expect(checkLeadingBytes('a.txt', bytes)).toEqual({ refused: false });
  });
});

describe('checkLeadingBytes: a byte order mark is only three exact bytes', () => {
  // EF BB BF is the UTF-8 BOM; a text starting with two of its bytes and then something else does
  // not start with a BOM, so nothing is unwrapped and what follows is not read as the start.
  it.each<[string, Buffer]>([
    ['EF BB then "<<html>"', Buffer.concat([hex('EFBB'), ascii('<<html>')])],
    ['EF then "X" BF then "<html>"', Buffer.concat([hex('EF'), ascii('X'), hex('BF'), ascii('<html>')])],
    ['"X" BB BF then "<html>"', Buffer.concat([ascii('X'), hex('BBBF'), ascii('<html>')])],
  ])('given a .txt starting %s, then it is accepted', (_what, bytes) => {
    expect(checkLeadingBytes('a.txt', bytes)).toEqual({ refused: false });
  });

  it('given a .txt starting with a BOM then "<html>", then it is refused as HTML', () => {
    expect(checkLeadingBytes('a.txt', Buffer.concat([hex('EFBBBF'), ascii('<html>')]))).toMatchObject({
      refused: true,
      kind: 'html',
    });
  });
});

describe('checkLeadingBytes: a binary format whose bytes are something else', () => {
  it.each<[string, string, Buffer, RefusalKind]>([
    ['a.png', 'an HTML page', ascii('<!DOCTYPE html><html><body>x</body></html>'), 'html'],
    ['a.pdf', 'an SVG after white space', ascii('  <svg onload="alert(1)"></svg>'), 'html'],
    ['a.png', 'plain text', ascii('just some words'), 'format'],
    ['a.docx', 'empty', Buffer.alloc(0), 'format'],
  ])('given %s that is %s, then it is refused as %s', (name, _what, bytes, kind) => {
    expect(checkLeadingBytes(name, bytes)).toMatchObject({ refused: true, kind });
  });

  it('given a name whose extension is not accepted, then it is refused for its extension', () => {
    expect(checkLeadingBytes('a.exe', ascii('hello'))).toMatchObject({ refused: true, kind: 'extension' });
  });
});

describe('extensionOf', () => {
  it.each<[string, string]>([
    ['report.pdf', 'pdf'],
    ['Report.PDF', 'pdf'],
    ['archive.tar.gz', 'gz'],
    ['a.b', 'b'],
    ['report', ''],
    ['report.', ''],
    ['.png', ''],
    ['', ''],
  ])('given %j, then %j', (name, extension) => {
    expect(extensionOf(name)).toBe(extension);
  });
});

describe('sanitiseFileName: edges', () => {
  it.each<[string, string]>([
    ['report.pdf. ', 'report.pdf'],
    ['report.pdf...', 'report.pdf'],
    ['report  \t.txt', 'report .txt'],
    ['...', 'file'],
    ['. .', 'file'],
    ['\u0000\u0001', 'file'],
    ['.', 'file'],
    ['Notes.TXT', 'Notes.TXT'],
  ])('given %j, then %j', (raw, expected) => {
    expect(sanitiseFileName(raw)).toBe(expected);
  });

  it('given a name of exactly 120 characters, then it is kept as it is', () => {
    const raw = `${'a'.repeat(115)} .pdf`;
    expect(raw).toHaveLength(120);
    expect(sanitiseFileName(raw)).toBe(raw);
  });

  it('given a name of 121 characters, then it is cut to 120 keeping the extension', () => {
    expect(sanitiseFileName(`${'a'.repeat(117)}.pdf`)).toBe(`${'a'.repeat(116)}.pdf`);
  });

  it('given a long name cut where a word ends, then the white space before the extension goes too', () => {
    const raw = `${'word '.repeat(40)}end.docx`;
    // 115 characters before ".docx": 23 times "word ", the last space dropped.
    expect(sanitiseFileName(raw)).toBe(`${'word '.repeat(22)}word.docx`);
  });

  it('given a long name cut where a dot is, then the dots before the extension go too', () => {
    const raw = `${'a'.repeat(114)}...${'b'.repeat(20)}.pdf`;
    expect(sanitiseFileName(raw)).toBe(`${'a'.repeat(114)}.pdf`);
  });

  it('given a long name with no extension, then at most 120 characters and no dot added', () => {
    expect(sanitiseFileName('n'.repeat(200))).toBe('n'.repeat(120));
  });
});

describe('the upload folder', () => {
  it.each(['resource_files', 'a', 'A-z_0-9', 'f'.repeat(64)])('given %j, then it is a valid folder', (folder) => {
    expect(FOLDER_PATTERN.test(folder)).toBe(true);
  });

  it.each(['', 'f'.repeat(65), 'a/b', '../x', 'a b', 'x.y', ' a', 'a!', 'é'])(
    'given %j, then it is not a folder',
    (folder) => {
      expect(FOLDER_PATTERN.test(folder)).toBe(false);
    },
  );

  it('given no folder in the upload, then the default folder is itself a valid folder', () => {
    expect(DEFAULT_FOLDER).toBe('resource_files');
    expect(FOLDER_PATTERN.test(DEFAULT_FOLDER)).toBe(true);
  });
});

describe('parseUploadPath', () => {
  it.each<[string, { folder: string; fileId: string; name: string }]>([
    ['resource_files/abc-123/report.pdf', { folder: 'resource_files', fileId: 'abc-123', name: 'report.pdf' }],
    ['a/b/c', { folder: 'a', fileId: 'b', name: 'c' }],
    [
      `${'f'.repeat(64)}/${'i'.repeat(64)}/${'n'.repeat(255)}`,
      {
        folder: 'f'.repeat(64),
        fileId: 'i'.repeat(64),
        name: 'n'.repeat(255),
      },
    ],
    ['x/y/my notes (1).txt', { folder: 'x', fileId: 'y', name: 'my notes (1).txt' }],
    ['x/y/...', { folder: 'x', fileId: 'y', name: '...' }],
  ])('given %j, then its parts', (value, parts) => {
    expect(parseUploadPath(value)).toEqual(parts);
  });

  it.each([
    '',
    'a/b',
    'a/b/c/d',
    'a/b/',
    '/b/c',
    'a//c',
    'a/b/.',
    'a/b/..',
    'a/b/c\\d',
    'a/b/c\u0000',
    'a.b/c/d',
    'a/b.c/d',
    `${'f'.repeat(65)}/b/c`,
    `a/${'i'.repeat(65)}/c`,
    `a/b/${'n'.repeat(256)}`,
    'https://example.org/a/b/c',
  ])('given %j, then it is not an upload path', (value) => {
    expect(parseUploadPath(value)).toBeNull();
  });
});

describe('contentDisposition: the characters encodeURIComponent leaves', () => {
  it("given a name with ' ( ) *, then they are percent-encoded in upper-case hex", () => {
    expect(contentDisposition("it's (1)*.pdf")).toBe(
      `attachment; filename="it's (1)*.pdf"; filename*=UTF-8''it%27s%20%281%29%2A.pdf`,
    );
  });
});

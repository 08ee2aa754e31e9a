import { filetypeinfo } from 'magic-bytes.js';
import { checkLeadingBytes } from '../../src/files/upload-policy';
import { ALL_SIGNATURES, POLICY, TEXT_EXTENSIONS } from './upload-policy-table';

// Which names magic-bytes.js gives a content is its business; the policy's is which names confirm
// which extension. Here the library is a stand-in that names the content as each test says, so
// every name of every family is tried, including names the library shares with another (mkv, mka
// and mks have one signature) or gives to samples hard to build byte by byte (ogm, spx, vob).
jest.mock('magic-bytes.js', () => ({ filetypeinfo: jest.fn() }));
const library = jest.mocked(filetypeinfo);
const namesTheContent = (...typenames: string[]) =>
  library.mockReturnValue(typenames.map((typename) => ({ typename, mime: undefined, extension: undefined })));

/** Content that is neither an executable, nor a script, nor an HTML page. */
const CONTENT = Buffer.from('0123456789abcdef', 'latin1');
const BINARY = Object.keys(POLICY).filter((extension) => !TEXT_EXTENSIONS.includes(extension));

beforeEach(() => library.mockReset());

describe('checkLeadingBytes: the names that confirm a binary extension', () => {
  it('given the table, then every binary extension has a family and every text one none', () => {
    expect(BINARY.every((extension) => POLICY[extension]!.signatures.length > 0)).toBe(true);
    expect(TEXT_EXTENSIONS.every((extension) => POLICY[extension]!.signatures.length === 0)).toBe(true);
    expect(BINARY.length + TEXT_EXTENSIONS.length).toBe(Object.keys(POLICY).length);
  });

  it.each(BINARY)('given a .%s, then of all the names some family has, exactly its family confirms it', (extension) => {
    const confirming = ALL_SIGNATURES.filter((name) => {
      namesTheContent(name);
      return !checkLeadingBytes(`a.${extension}`, CONTENT).refused;
    });
    expect([...confirming].sort()).toEqual([...POLICY[extension]!.signatures].sort());
  });

  it.each(BINARY)('given a .%s named otherwise or not at all, then it is refused for its format', (extension) => {
    const others = ALL_SIGNATURES.filter((name) => !POLICY[extension]!.signatures.includes(name));
    const verdicts = [...others.map((name) => [name]), []].map((names) => {
      namesTheContent(...names);
      return checkLeadingBytes(`a.${extension}`, CONTENT);
    });
    expect(verdicts).toHaveLength(others.length + 1);
    expect(verdicts).toEqual(verdicts.map(() => expect.objectContaining({ refused: true, kind: 'format' })));
  });

  it.each(BINARY)('given a .%s whose family name comes second and in capitals, then it is accepted', (extension) => {
    const family = POLICY[extension]!.signatures;
    const verdicts = family.map((name) => {
      namesTheContent('unknown-format', name.toUpperCase());
      return checkLeadingBytes(`a.${extension}`, CONTENT);
    });
    expect(verdicts).toEqual(family.map(() => ({ refused: false })));
  });
});

describe('checkLeadingBytes: the names that contradict a text extension', () => {
  it.each(TEXT_EXTENSIONS)('given a .%s the library names xml only, then it is accepted', (extension) => {
    namesTheContent('XML');
    expect(checkLeadingBytes(`a.${extension}`, CONTENT)).toEqual({ refused: false });
  });

  it.each(TEXT_EXTENSIONS)('given a .%s the library names nothing, then it is accepted', (extension) => {
    namesTheContent();
    expect(checkLeadingBytes(`a.${extension}`, CONTENT)).toEqual({ refused: false });
  });

  it.each(TEXT_EXTENSIONS)('given a .%s the library names any binary format, then it is refused', (extension) => {
    const verdicts = ALL_SIGNATURES.map((name) => {
      namesTheContent('xml', name);
      return checkLeadingBytes(`a.${extension}`, CONTENT);
    });
    expect(verdicts).toEqual(ALL_SIGNATURES.map(() => expect.objectContaining({ refused: true, kind: 'format' })));
  });

  it('given a .txt saved with a byte order mark, then the library reads the bytes after it', () => {
    namesTheContent();
    checkLeadingBytes('a.txt', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), CONTENT]));
    expect(library).toHaveBeenCalledTimes(1);
    expect(Buffer.from(library.mock.calls[0]![0] as Uint8Array)).toEqual(CONTENT);
  });
});

import { csvField, csvText } from '../../src/audit/csv-encoding';
import { parseCsv } from '../support/csv-records';

describe('CSV encoding (RFC 4180)', () => {
  it('given plain values, then they are written as they are, every record ended by CRLF', () => {
    expect(
      csvText(
        ['a', 'b'],
        [
          [1, 'x'],
          [true, null],
        ],
      ),
    ).toBe('a,b\r\n1,x\r\ntrue,\r\n');
  });

  it.each([
    ['a comma', 'a,b', '"a,b"'],
    ['a quote', 'say "hi"', '"say ""hi"""'],
    ['a line feed', 'one\ntwo', '"one\ntwo"'],
    ['a carriage return', 'one\rtwo', '"one\rtwo"'],
  ])('given %s, then the field is quoted with its quotes doubled', (_what, value, written) => {
    expect(csvField(value)).toBe(written);
  });

  it('given any text, then parsing the written records gives it back', () => {
    const rows = [
      ['=1+1', 'a "b", c\r\nd', ''],
      ['é ü 名前', ' lead', 'trail '],
    ];
    expect(parseCsv(csvText(['x', 'y', 'z'], rows))).toEqual([['x', 'y', 'z'], ...rows]);
  });
});

/**
 * RFC 4180 text: CRLF after every record, a field quoted when it holds a comma, a quote, CR or LF,
 * its quotes doubled. Hand-written rather than a dependency: these dozen lines are the whole
 * format, and the answers are built in memory (one page, one resource, one person), so a
 * streaming library would bring nothing but another package to keep.
 */
export type CsvCell = string | number | boolean | null | undefined;

const NEEDS_QUOTES = /[",\r\n]/;

export function csvField(value: CsvCell): string {
  const text = value === null || value === undefined ? '' : String(value);
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvText(header: readonly string[], rows: readonly (readonly CsvCell[])[]): string {
  return [header, ...rows].map((row) => `${row.map(csvField).join(',')}\r\n`).join('');
}

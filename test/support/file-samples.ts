/**
 * A minimal real sample of every accepted upload type, built here byte by byte: just the header
 * each format starts with (what a signature check reads), padded with some body bytes.
 */
const hex = (s: string): Buffer => Buffer.from(s.replace(/\s/g, ''), 'hex');
const ascii = (s: string): Buffer => Buffer.from(s, 'latin1');
const body = (head: Buffer, size = 256): Buffer =>
  Buffer.concat([head, Buffer.alloc(Math.max(0, size - head.length), 0x20)]);

const png = () => body(hex('89504E470D0A1A0A 0000000D 49484452 00000001 00000001 0806000000 1F15C489'));
const jpeg = () => body(hex('FFD8FFE0 0010 4A464946 00 0101 0000 0001 0001 0000'));
const zip = (entry: string) =>
  body(Buffer.concat([hex('504B0304 1400 0000 0800 0000 0000 00000000 00000000 00000000'), ascii(entry)]));
const ole2 = () => body(hex('D0CF11E0A1B11AE1 0000000000000000 0000000000000000 3E000300FEFF0900'), 512);
const asf = () => body(hex('3026B2758E66CF11A6D900AA0062CE6C'));
const ogg = () =>
  body(
    Buffer.concat([ascii('OggS'), hex('00 02 0000000000000000 01000000 00000000 00000000 01 1E'), ascii('\x01vorbis')]),
  );
const ebml = () => body(hex('1A45DFA3 9F 4286 81 01 42F7 81 01 42F2 81 04 42F3 81 08 4282 84 7765626D'));
const mpegPs = () => body(hex('000001BA 4400040004 01 0189C3 F8'));
const ftyp = () => body(Buffer.concat([hex('00000018'), ascii('ftypisom'), hex('00000200'), ascii('isomiso2')]));

/** extension → [content type a browser would declare, bytes]. */
export const SAMPLES: Record<string, [string, () => Buffer]> = {
  csv: ['text/csv', () => ascii('name,amount\nkiosk,12\n')],
  txt: ['text/plain', () => ascii('Solar kiosk notes\n')],
  xml: ['application/xml', () => ascii('<?xml version="1.0" encoding="UTF-8"?>\n<kiosk id="1"/>\n')],
  yaml: ['application/yaml', () => ascii('kiosk:\n  panels: 4\n')],
  asf: ['video/x-ms-asf', asf],
  wma: ['audio/x-ms-wma', asf],
  wmv: ['video/x-ms-wmv', asf],
  bmp: ['image/bmp', () => body(hex('424D 3A000000 0000 0000 36000000 28000000 01000000 01000000 0100 1800'))],
  gif: [
    'image/gif',
    () =>
      body(Buffer.concat([ascii('GIF89a'), hex('0100 0100 80 00 00 000000 FFFFFF 2C00000000010001000002024401003B')])),
  ],
  ico: ['image/x-icon', () => body(hex('0000 0100 0100 10 10 00 00 0100 2000 68040000 16000000'))],
  jpg: ['image/jpeg', jpeg],
  jpeg: ['image/jpeg', jpeg],
  jfif: ['image/jpeg', jpeg],
  png: ['image/png', png],
  psd: [
    'image/vnd.adobe.photoshop',
    () => body(Buffer.concat([ascii('8BPS'), hex('0001 000000000000 0003 00000001 00000001 0008 0003')])),
  ],
  tif: ['image/tiff', () => body(hex('49492A00 08000000'))],
  tiff: ['image/tiff', () => body(hex('4D4D002A 00000008'))],
  webp: ['image/webp', () => body(Buffer.concat([ascii('RIFF'), hex('F8000000'), ascii('WEBPVP8 ')]))],
  pdf: ['application/pdf', () => body(ascii('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n'))],
  doc: ['application/msword', ole2],
  xls: ['application/vnd.ms-excel', ole2],
  ppt: ['application/vnd.ms-powerpoint', ole2],
  msg: ['application/vnd.ms-outlook', ole2],
  docx: ['application/vnd.openxmlformats-officedocument.wordprocessingml.document', () => zip('[Content_Types].xml')],
  xlsx: ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', () => zip('[Content_Types].xml')],
  pptx: ['application/vnd.openxmlformats-officedocument.presentationml.presentation', () => zip('[Content_Types].xml')],
  odt: ['application/vnd.oasis.opendocument.text', () => zip('mimetypeapplication/vnd.oasis.opendocument.text')],
  ods: [
    'application/vnd.oasis.opendocument.spreadsheet',
    () => zip('mimetypeapplication/vnd.oasis.opendocument.spreadsheet'),
  ],
  odp: [
    'application/vnd.oasis.opendocument.presentation',
    () => zip('mimetypeapplication/vnd.oasis.opendocument.presentation'),
  ],
  flac: ['audio/flac', () => body(Buffer.concat([ascii('fLaC'), hex('00000022 1000 1000')]))],
  mid: ['audio/midi', () => body(Buffer.concat([ascii('MThd'), hex('00000006 0000 0001 0060'), ascii('MTrk')]))],
  midi: ['audio/midi', () => body(Buffer.concat([ascii('MThd'), hex('00000006 0001 0002 01E0'), ascii('MTrk')]))],
  mp3: ['audio/mpeg', () => body(Buffer.concat([ascii('ID3'), hex('0300 00 00000000'), hex('FFFB9064')]))],
  oga: ['audio/ogg', ogg],
  ogg: ['audio/ogg', ogg],
  ogv: ['video/ogg', ogg],
  mkv: ['video/x-matroska', ebml],
  webm: ['video/webm', ebml],
  mp4: ['video/mp4', ftyp],
  mpeg: ['video/mpeg', mpegPs],
  mpg: ['video/mpeg', mpegPs],
  woff: ['font/woff', () => body(Buffer.concat([ascii('wOFF'), hex('00010000 000000F0 000A 0000')]))],
  woff2: ['font/woff2', () => body(Buffer.concat([ascii('wOF2'), hex('00010000 000000F0 000A 0000')]))],
};

export const samples = {
  png,
  pdf: () => SAMPLES.pdf?.[1]() ?? Buffer.alloc(0),
  /** A Windows executable's first bytes. */
  exe: () =>
    body(
      Buffer.concat([
        ascii('MZ'),
        hex('90000300000004000000FFFF0000B8000000'),
        ascii('This program cannot be run in DOS mode.'),
      ]),
    ),
  elf: () => body(hex('7F454C46 02 01 01 00 0000000000000000 0200 3E00')),
  html: () => ascii('<!DOCTYPE html><html><body><script>alert(document.cookie)</script></body></html>'),
};

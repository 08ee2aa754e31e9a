/**
 * The upload policy as a table, written out here rather than read from the code: for every accepted
 * extension, the declared content types that fit it (the first is the one served on download) and
 * the magic-bytes.js type names that confirm its leading bytes (none: a text format). The unit tests
 * walk every entry, so a type or a signature dropped from (or added to) the policy fails one of them.
 */
export type PolicyRow = { readonly declared: readonly string[]; readonly signatures: readonly string[] };

const ZIP = ['zip', 'docx', 'xlsx', 'pptx', 'odt', 'ods', 'odp'];
const OLE2 = ['doc', 'xls', 'ppt', 'msg'];
const ASF = ['asf', 'wma', 'wmv'];
const OGG = ['ogg', 'ogx', 'oga', 'ogv', 'ogm', 'opus', 'spx'];
const MPEG_PS = ['mpg', 'mpeg', 'm2p', 'vob'];
const EBML = ['mkv', 'webm', 'mka', 'mks'];
const JPEG = ['jpg', 'jpeg', 'jfif'];
const TIFF = ['tif', 'tiff'];
const JPEG_TYPES = ['image/jpeg', 'image/pjpeg'];
const MIDI_TYPES = ['audio/midi', 'audio/x-midi'];
const PHOTOSHOP = [
  'image/vnd.adobe.photoshop',
  'application/x-photoshop',
  'image/x-photoshop',
  'application/photoshop',
];
const OOXML = 'application/vnd.openxmlformats-officedocument';

export const POLICY: Readonly<Record<string, PolicyRow>> = {
  csv: { declared: ['text/csv', 'text/plain', 'application/csv', 'application/vnd.ms-excel'], signatures: [] },
  txt: { declared: ['text/plain'], signatures: [] },
  xml: { declared: ['application/xml', 'text/xml'], signatures: [] },
  yaml: {
    declared: ['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml', 'text/plain'],
    signatures: [],
  },
  asf: { declared: ['video/x-ms-asf', 'application/vnd.ms-asf'], signatures: ASF },
  wma: { declared: ['audio/x-ms-wma'], signatures: ASF },
  wmv: { declared: ['video/x-ms-wmv', 'video/x-ms-asf'], signatures: ASF },
  bmp: { declared: ['image/bmp', 'image/x-bmp', 'image/x-ms-bmp'], signatures: ['bmp'] },
  gif: { declared: ['image/gif'], signatures: ['gif'] },
  ico: { declared: ['image/x-icon', 'image/vnd.microsoft.icon'], signatures: ['ico'] },
  jpg: { declared: JPEG_TYPES, signatures: JPEG },
  jpeg: { declared: JPEG_TYPES, signatures: JPEG },
  jfif: { declared: JPEG_TYPES, signatures: JPEG },
  png: { declared: ['image/png'], signatures: ['png', 'apng'] },
  psd: { declared: PHOTOSHOP, signatures: ['psd'] },
  tif: { declared: ['image/tiff'], signatures: TIFF },
  tiff: { declared: ['image/tiff'], signatures: TIFF },
  webp: { declared: ['image/webp'], signatures: ['webp'] },
  pdf: { declared: ['application/pdf'], signatures: ['pdf'] },
  doc: { declared: ['application/msword'], signatures: OLE2 },
  xls: { declared: ['application/vnd.ms-excel'], signatures: OLE2 },
  ppt: { declared: ['application/vnd.ms-powerpoint'], signatures: OLE2 },
  msg: { declared: ['application/vnd.ms-outlook'], signatures: OLE2 },
  docx: { declared: [`${OOXML}.wordprocessingml.document`], signatures: ZIP },
  xlsx: { declared: [`${OOXML}.spreadsheetml.sheet`], signatures: ZIP },
  pptx: { declared: [`${OOXML}.presentationml.presentation`], signatures: ZIP },
  odt: { declared: ['application/vnd.oasis.opendocument.text'], signatures: ZIP },
  ods: { declared: ['application/vnd.oasis.opendocument.spreadsheet'], signatures: ZIP },
  odp: { declared: ['application/vnd.oasis.opendocument.presentation'], signatures: ZIP },
  flac: { declared: ['audio/flac', 'audio/x-flac'], signatures: ['flac'] },
  mid: { declared: MIDI_TYPES, signatures: ['mid', 'midi'] },
  midi: { declared: MIDI_TYPES, signatures: ['mid', 'midi'] },
  mp3: { declared: ['audio/mpeg', 'audio/mp3'], signatures: ['mp3'] },
  oga: { declared: ['audio/ogg'], signatures: OGG },
  ogg: { declared: ['audio/ogg', 'application/ogg', 'video/ogg'], signatures: OGG },
  ogv: { declared: ['video/ogg'], signatures: OGG },
  mkv: { declared: ['video/x-matroska', 'video/matroska'], signatures: EBML },
  webm: { declared: ['video/webm', 'audio/webm'], signatures: EBML },
  mp4: { declared: ['video/mp4', 'audio/mp4', 'application/mp4'], signatures: ['mp4', 'm4v', 'm4a', 'mov', '3gp'] },
  mpeg: { declared: ['video/mpeg'], signatures: MPEG_PS },
  mpg: { declared: ['video/mpeg'], signatures: MPEG_PS },
  woff: { declared: ['font/woff', 'application/font-woff'], signatures: ['woff'] },
  woff2: { declared: ['font/woff2', 'application/font-woff2'], signatures: ['woff2'] },
};

export const TEXT_EXTENSIONS = ['csv', 'txt', 'xml', 'yaml'];

/** Every declared type and every signature name some extension accepts: what the others must refuse. */
export const ALL_DECLARED = [...new Set(Object.values(POLICY).flatMap((row) => row.declared))];
export const ALL_SIGNATURES = [...new Set(Object.values(POLICY).flatMap((row) => row.signatures))];

import { filetypeinfo } from 'magic-bytes.js';

/**
 * What the upload endpoint accepts (docs/api.md "POST /api/File/Upload", docs/api.md "Upload"): the
 * extension list, the content types that fit each extension, and the leading bytes that must not
 * contradict it. Pure: bytes and strings in, a verdict out.
 */

/** A signature family: the magic-bytes.js type names that confirm the extension. Empty: text, no signature. */
type Rule = { readonly mime: readonly string[]; readonly signatures: readonly string[] };

const ZIP = ['zip', 'docx', 'xlsx', 'pptx', 'odt', 'ods', 'odp'];
const OLE2 = ['doc', 'xls', 'ppt', 'msg'];
const ASF = ['asf', 'wma', 'wmv'];
const OGG = ['ogg', 'ogx', 'oga', 'ogv', 'ogm', 'opus', 'spx'];
const MPEG_PS = ['mpg', 'mpeg', 'm2p', 'vob'];
const EBML = ['mkv', 'webm', 'mka', 'mks'];
const JPEG = ['jpg', 'jpeg', 'jfif'];
const TIFF = ['tif', 'tiff'];

/**
 * Extension → the declared part content types that fit it (the first is the one served on
 * download) and the signature family. `application/octet-stream` fits every extension: browsers
 * and tools send it for types they do not know (.msg, .yaml, .mkv); the bytes are checked anyway and
 * the download's Content-Type comes from this table, never from the client.
 */
export const ACCEPTED: Readonly<Record<string, Rule>> = {
  csv: { mime: ['text/csv', 'text/plain', 'application/csv', 'application/vnd.ms-excel'], signatures: [] },
  txt: { mime: ['text/plain'], signatures: [] },
  xml: { mime: ['application/xml', 'text/xml'], signatures: [] },
  yaml: { mime: ['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml', 'text/plain'], signatures: [] },
  asf: { mime: ['video/x-ms-asf', 'application/vnd.ms-asf'], signatures: ASF },
  wma: { mime: ['audio/x-ms-wma'], signatures: ASF },
  wmv: { mime: ['video/x-ms-wmv', 'video/x-ms-asf'], signatures: ASF },
  bmp: { mime: ['image/bmp', 'image/x-bmp', 'image/x-ms-bmp'], signatures: ['bmp'] },
  gif: { mime: ['image/gif'], signatures: ['gif'] },
  ico: { mime: ['image/x-icon', 'image/vnd.microsoft.icon'], signatures: ['ico'] },
  jpg: { mime: ['image/jpeg', 'image/pjpeg'], signatures: JPEG },
  jpeg: { mime: ['image/jpeg', 'image/pjpeg'], signatures: JPEG },
  jfif: { mime: ['image/jpeg', 'image/pjpeg'], signatures: JPEG },
  png: { mime: ['image/png'], signatures: ['png', 'apng'] },
  psd: {
    mime: ['image/vnd.adobe.photoshop', 'application/x-photoshop', 'image/x-photoshop', 'application/photoshop'],
    signatures: ['psd'],
  },
  tif: { mime: ['image/tiff'], signatures: TIFF },
  tiff: { mime: ['image/tiff'], signatures: TIFF },
  webp: { mime: ['image/webp'], signatures: ['webp'] },
  pdf: { mime: ['application/pdf'], signatures: ['pdf'] },
  doc: { mime: ['application/msword'], signatures: OLE2 },
  xls: { mime: ['application/vnd.ms-excel'], signatures: OLE2 },
  ppt: { mime: ['application/vnd.ms-powerpoint'], signatures: OLE2 },
  msg: { mime: ['application/vnd.ms-outlook'], signatures: OLE2 },
  docx: { mime: ['application/vnd.openxmlformats-officedocument.wordprocessingml.document'], signatures: ZIP },
  xlsx: { mime: ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'], signatures: ZIP },
  pptx: { mime: ['application/vnd.openxmlformats-officedocument.presentationml.presentation'], signatures: ZIP },
  odt: { mime: ['application/vnd.oasis.opendocument.text'], signatures: ZIP },
  ods: { mime: ['application/vnd.oasis.opendocument.spreadsheet'], signatures: ZIP },
  odp: { mime: ['application/vnd.oasis.opendocument.presentation'], signatures: ZIP },
  flac: { mime: ['audio/flac', 'audio/x-flac'], signatures: ['flac'] },
  mid: { mime: ['audio/midi', 'audio/x-midi'], signatures: ['mid', 'midi'] },
  midi: { mime: ['audio/midi', 'audio/x-midi'], signatures: ['mid', 'midi'] },
  mp3: { mime: ['audio/mpeg', 'audio/mp3'], signatures: ['mp3'] },
  oga: { mime: ['audio/ogg'], signatures: OGG },
  ogg: { mime: ['audio/ogg', 'application/ogg', 'video/ogg'], signatures: OGG },
  ogv: { mime: ['video/ogg'], signatures: OGG },
  mkv: { mime: ['video/x-matroska', 'video/matroska'], signatures: EBML },
  webm: { mime: ['video/webm', 'audio/webm'], signatures: EBML },
  mp4: { mime: ['video/mp4', 'audio/mp4', 'application/mp4'], signatures: ['mp4', 'm4v', 'm4a', 'mov', '3gp'] },
  mpeg: { mime: ['video/mpeg'], signatures: MPEG_PS },
  mpg: { mime: ['video/mpeg'], signatures: MPEG_PS },
  woff: { mime: ['font/woff', 'application/font-woff'], signatures: ['woff'] },
  woff2: { mime: ['font/woff2', 'application/font-woff2'], signatures: ['woff2'] },
};

export const ACCEPTED_EXTENSIONS: readonly string[] = Object.keys(ACCEPTED).sort();

const GENERIC_MIME = 'application/octet-stream';
const TEXT = new Set(['csv', 'txt', 'xml', 'yaml']);

/** docs/api.md: the folder form field. */
export const FOLDER_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
export const DEFAULT_FOLDER = 'resource_files';
export const MAX_NAME_LENGTH = 120;

/**
 * What an upload was refused for: its name or declared type (`extension`, `declared-type`), or
 * what its leading bytes show (`executable`, `script`, `html`, `format`: another format or none).
 */
export type RefusalKind = 'extension' | 'declared-type' | 'executable' | 'script' | 'html' | 'format';
/** Why an upload is refused: the contract's 500 `/problems/upload-refused`, with `reason` as its detail. */
export type Refusal = { readonly refused: true; readonly kind: RefusalKind; readonly reason: string };
export type Verdict = { readonly refused: false } | Refusal;
const ok: Verdict = { refused: false };
const refuse = (kind: RefusalKind, reason: string): Refusal => ({ refused: true, kind, reason });

/** The lower-cased extension of a file name; '' when none. */
export function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? '' : name.slice(dot + 1).toLowerCase();
}

/**
 * The stored file name: no control characters, no path separators or characters that are unsafe
 * in file names or markup (`<>:"/\|?*`), no bidi overrides or isolates (U+202A–U+202E,
 * U+2066–U+2069; a "gnp.exe" shown as "exe.png"), no leading dots or spaces, at most 120
 * characters keeping the extension. Unicode letters stay (NFC).
 */
export function sanitiseFileName(raw: string): string {
  const extension = extensionOf(raw);
  let name = raw
    .normalize('NFC')
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]/g, '')
    .replace(/[<>:"/\\|?*]/g, '_')
    .replace(/^[.\s]+/, '')
    .replace(/[.\s]+$/, '')
    .replace(/\s+/g, ' ');
  const suffix = extension === '' ? '' : `.${extension}`;
  if (name === '') name = `file${suffix}`;
  if ([...name].length > MAX_NAME_LENGTH) {
    const stem = [...name].slice(0, MAX_NAME_LENGTH - suffix.length).join('');
    name = `${stem.replace(/[.\s]+$/, '')}${suffix}`;
  }
  return name;
}

/** The extension is listed and the declared content type fits it. Checked before any byte is read. */
export function checkDeclared(fileName: string, declaredType: string): Verdict {
  const extension = extensionOf(fileName);
  const rule = ACCEPTED[extension];
  if (!rule)
    return refuse(
      'extension',
      extension === '' ? 'the file has no extension' : `the extension .${extension} is not accepted`,
    );
  const type = declaredType.split(';', 1)[0]?.trim().toLowerCase() ?? '';
  if (type !== GENERIC_MIME && !rule.mime.includes(type)) {
    return refuse('declared-type', `the content type ${type || '(none)'} does not fit a .${extension} file`);
  }
  return ok;
}

/** How many leading bytes the signature check reads before deciding (or fewer, for a smaller file). */
export const SNIFF_BYTES = 4100;

const startsWith = (bytes: Uint8Array, text: string): boolean =>
  [...text].every((c, i) => bytes[i] === c.charCodeAt(0));

/** Executables: refused whatever the extension says. */
function executableKind(bytes: Uint8Array): string | null {
  if (startsWith(bytes, 'MZ')) return 'a Windows executable';
  if (startsWith(bytes, '\x7fELF')) return 'an ELF executable';
  if (
    [0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe, 0xcafebabe].includes(
      bytes.length >= 4 ? Buffer.from(bytes.subarray(0, 4)).readUInt32BE(0) : -1,
    )
  ) {
    return 'a Mach-O executable or Java class';
  }
  return null;
}

const HTML_MARKERS = ['<!doctype html', '<html', '<script', '<body', '<iframe', '<svg', '<head'];

/** The bytes after a UTF-8 byte order mark, if they start with one. */
const withoutBom = (bytes: Uint8Array): Uint8Array =>
  bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes;

/** How the content starts as text: after a BOM and white space, lower-cased. */
const textStart = (bytes: Uint8Array): string =>
  Buffer.from(withoutBom(bytes).subarray(0, 1024)).toString('latin1').trimStart().toLowerCase();

/** Whether text starts like an HTML page: browsers would run it. */
const looksLikeHtml = (bytes: Uint8Array): boolean =>
  HTML_MARKERS.some((marker) => textStart(bytes).startsWith(marker));

/** Whether text starts like a script (a shebang line), even after a BOM or white space. */
const looksLikeScript = (bytes: Uint8Array): boolean => textStart(bytes).startsWith('#!');

/**
 * The leading bytes must not contradict the extension: a format with a signature must show one
 * of its family's (magic-bytes.js); a text format (csv, txt, xml, yaml) must not look like an
 * executable, a script, an HTML page or any binary format the library recognises.
 */
export function checkLeadingBytes(fileName: string, leading: Uint8Array): Verdict {
  const extension = extensionOf(fileName);
  const rule = ACCEPTED[extension];
  if (!rule) return refuse('extension', `the extension .${extension} is not accepted`);
  const executable = executableKind(leading);
  if (executable) return refuse('executable', `the content is ${executable}, not a .${extension} file`);
  if (looksLikeScript(leading)) return refuse('script', `the content is a script, not a .${extension} file`);
  if (TEXT.has(extension)) {
    if (looksLikeHtml(leading)) return refuse('html', `the content is an HTML page, not a .${extension} file`);
    // A UTF-8 BOM is text (it is how many editors save CSV and text files), not a signature.
    const binary = filetypeinfo(withoutBom(leading))
      .map((guess) => guess.typename.toLowerCase())
      .filter((name) => name !== 'xml');
    if (binary.length > 0) return refuse('format', `the content is a ${binary[0]} file, not a .${extension} file`);
    return ok;
  }
  const detected = filetypeinfo(leading).map((guess) => guess.typename.toLowerCase());
  if (detected.some((name) => rule.signatures.includes(name))) return ok;
  if (looksLikeHtml(leading)) return refuse('html', `the content is an HTML page, not a .${extension} file`);
  return refuse(
    'format',
    detected.length > 0
      ? `the content is a ${detected[0]} file, not a .${extension} file`
      : `the content does not start like a .${extension} file`,
  );
}

/** The Content-Type a stored file is served with, from its extension (never from the uploader). */
export function servedContentType(fileName: string): string {
  const extension = extensionOf(fileName);
  const mime = ACCEPTED[extension]?.mime[0] ?? GENERIC_MIME;
  return TEXT.has(extension) ? `${mime}; charset=utf-8` : mime;
}

/** A stored upload path: `folder/<random id>/<sanitised name>`. */
export type UploadPath = { readonly folder: string; readonly fileId: string; readonly name: string };

const UPLOAD_PATH = /^([A-Za-z0-9_-]{1,64})\/([A-Za-z0-9_-]{1,64})\/([^/\\\0]{1,255})$/;

/** Whether a string has the shape of a path the upload endpoint returns (not whether it exists). */
export function parseUploadPath(value: string): UploadPath | null {
  const match = UPLOAD_PATH.exec(value);
  if (!match) return null;
  const [, folder = '', fileId = '', name = ''] = match;
  if (name === '.' || name === '..') return null;
  return { folder, fileId, name };
}

/**
 * RFC 6266 / RFC 5987: an ASCII fallback (quotes, backslashes and non-ASCII replaced) and the
 * exact name percent-encoded as UTF-8.
 */
export function contentDisposition(fileName: string): string {
  const fallback = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\%]/g, '_');
  const encoded = encodeURIComponent(fileName).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

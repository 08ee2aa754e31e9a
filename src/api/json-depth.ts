import { DomainError } from '../domain/errors';

/**
 * How deep a JSON body may nest: far past any request of the API (a privacy block's circles nest
 * four deep), and short of what a recursive walk of the parsed body (a request's fingerprint, a
 * schema's) could go down without running out of stack.
 */
export const MAX_JSON_DEPTH = 64;

const [QUOTE, BACKSLASH, OPEN_ARRAY, OPEN_OBJECT, CLOSE_ARRAY, CLOSE_OBJECT] = [0x22, 0x5c, 0x5b, 0x7b, 0x5d, 0x7d];

/**
 * The JSON body parser's `verify`: refuses a body that nests deeper than MAX_JSON_DEPTH, read from
 * its bytes before it is parsed (a string's brackets do not count; no byte of a multi-byte UTF-8
 * character is a bracket or a quote).
 */
export function refuseDeepJson(_req: unknown, _res: unknown, body: Buffer): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < body.length; i += 1) {
    const byte = body[i];
    if (inString) {
      if (byte === BACKSLASH) i += 1;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) inString = true;
    else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
      depth += 1;
      if (depth > MAX_JSON_DEPTH)
        throw new DomainError('validation', `the JSON body nests deeper than ${MAX_JSON_DEPTH} levels`);
    } else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) depth -= 1;
  }
}

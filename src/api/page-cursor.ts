import { createHash, createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { validationError } from '../domain/errors';

/**
 * The opaque `cursor` of the lists (docs/api.md "Paginated endpoints"): base64url JSON of the last
 * item's sort key and a hash of the query it belongs to, then a dot and an HMAC-SHA-256 of that
 * text. Signed so that a client cannot point a cursor at a place the query never reached, and tied
 * to its query so that a cursor of one list is refused by another.
 */
export type PageCursors = {
  /** The cursor after an item with sort key `key` in the list `query` names. */
  seal(query: unknown, key: readonly (string | number | boolean)[]): string;
  /** The sort key a cursor holds; a 400 naming `cursor` if it is malformed, tampered with or of another query. */
  open(cursor: string, query: unknown): (string | number)[];
};

/** Longest cursor accepted: a key of a date and an id, and a hash, come to about 150 characters. */
export const MAX_CURSOR_LENGTH = 512;

const VERSION = 1;

/**
 * The cursors' key, derived from a server secret with HKDF, so that no new secret has to be
 * configured and no other use of that secret can produce a valid cursor. Every process sharing the
 * secret accepts the others' cursors; rotating the secret ends the cursors then in use.
 */
export function pageCursors(secret: string): PageCursors {
  const key = Buffer.from(hkdfSync('sha256', secret, 'page-cursor', `cursor v${VERSION}`, 32));
  const mac = (text: string) => createHmac('sha256', key).update(text).digest();
  const identity = (query: unknown) =>
    createHash('sha256').update(JSON.stringify(query)).digest('base64url').slice(0, 22);
  const refuse = (why: string) => validationError('cursor', `cursor ${why}; start again without one`);
  return {
    seal(query, sortKey) {
      const body = Buffer.from(JSON.stringify({ v: VERSION, q: identity(query), k: sortKey })).toString('base64url');
      return `${body}.${mac(body).toString('base64url')}`;
    },
    open(cursor, query) {
      const [body, signature, extra] = cursor.split('.');
      if (body === undefined || signature === undefined || extra !== undefined) throw refuse('is malformed');
      const expected = mac(body);
      const given = Buffer.from(signature, 'base64url');
      if (given.length !== expected.length || !timingSafeEqual(given, expected))
        throw refuse('is not one this service issued');
      const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as {
        v?: unknown;
        q?: unknown;
        k?: unknown;
      };
      if (payload.v !== VERSION) throw refuse('is of an older version');
      if (payload.q !== identity(query)) throw refuse('belongs to another query (its filters or order differ)');
      if (!Array.isArray(payload.k) || !payload.k.every((v) => typeof v === 'string' || Number.isSafeInteger(v)))
        throw refuse('is malformed');
      return payload.k as (string | number)[];
    },
  };
}

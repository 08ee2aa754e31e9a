import { LRUCache } from 'lru-cache';

/**
 * The JSON text of answers that depend only on their key (who asks, what they ask) and on some
 * scopes of the read models (the directory, one view). A client polling a list between two
 * writes to that view gets the same text each time; a write elsewhere keeps it.
 */
export interface AnswerMemo {
  /**
   * The text `compute` gives for `key` as `scopes` stand now, computed at most once per state of
   * them: a string, or its UTF-8 bytes (what the HTTP layer sends, kept off the JavaScript heap).
   */
  json<T extends JsonAnswerText>(key: string, scopes: readonly string[], compute: () => Promise<T>): Promise<T>;
}

/** An answer's JSON, as text or as its UTF-8 bytes; measured in characters or bytes alike. */
export type JsonAnswerText = string | Buffer;

/** Where the read models have no cheap version to key on (MongoDB): every answer is computed. */
export const computedEachTime: AnswerMemo = {
  json: <T extends JsonAnswerText>(_key: string, _scopes: readonly string[], compute: () => Promise<T>) => compute(),
};

/** About a hundred pages of 20 records. */
const MAX_CHARS = 1_000_000;
/**
 * How recently a key must have been asked once for its next ask to keep its text: among the last
 * this many keys asked and not kept. A text is worth keeping only if it is asked again before
 * the memo's least recently asked texts go, and the memo holds about a hundred list pages: a key
 * asked again only after thousands of others (5,000 callers each polling their first page, 550
 * callers paging at random) would go before its next ask, after pushing out one that would not.
 * With a window of 20,000 keys, such traffic kept a 14 KB text on almost every request, and each
 * went again a moment later: garbage for the collector, no answer served (docs/benchmarks.md "What the
 * figures decided").
 */
const ASKED_ONCE_WINDOW = 512;

/**
 * Keyed on the versions of the scopes an answer depends on (the read database's change feed:
 * SqliteChangeFeed, PostgresChangeFeed), which move with
 * every commit that changes them, this process's or another's: a text is never served past a
 * change. A text is kept from the second time its key is asked, if that is soon after the first
 * (ASKED_ONCE_WINDOW): under varied traffic (many callers, many pages) most keys are asked
 * seldom, and keeping each of them only to push out another cost memory and garbage collection
 * for no answer served. Past `maxChars` the least recently asked texts go first (lru-cache, sized
 * in characters): many callers polling their lists keep the most asked ones.
 */
export class VersionedAnswerMemo implements AnswerMemo {
  private readonly texts: LRUCache<string, { readonly version: string; readonly text: JsonAnswerText }>;
  /** Keys asked once lately (the last `askedOnceWindow`), whose texts are kept when asked again. */
  private readonly askedOnce: LRUCache<string, true>;

  /** `versionOf`: null while a write transaction is open on the connection (or with READ_MEMO=off). */
  constructor(
    private readonly versionOf: (scope: string) => string | null,
    private readonly maxChars = MAX_CHARS,
    askedOnceWindow = ASKED_ONCE_WINDOW,
  ) {
    this.texts = new LRUCache({ maxSize: maxChars, sizeCalculation: (entry) => Math.max(1, entry.text.length) });
    this.askedOnce = new LRUCache({ max: askedOnceWindow });
  }

  private versions(scopes: readonly string[]): string | null {
    let joined = '';
    for (const scope of scopes) {
      const version = this.versionOf(scope);
      if (version === null) return null;
      joined += `${version}|`;
    }
    return joined;
  }

  async json<T extends JsonAnswerText>(key: string, scopes: readonly string[], compute: () => Promise<T>): Promise<T> {
    const version = this.versions(scopes);
    const remembered = this.texts.get(key);
    // A key names one route's answers, which are all of one kind (text or bytes).
    if (remembered !== undefined && version !== null && remembered.version === version) return remembered.text as T;
    const text = await compute();
    // Computing awaits: a text read while its scopes moved may mix two states, so it is
    // answered (as any read in flight is) but not kept.
    if (version === null || this.versions(scopes) !== version || text.length > this.maxChars) return text;
    if (remembered === undefined && !this.askedOnce.delete(key)) {
      this.askedOnce.set(key, true);
      return text;
    }
    this.texts.set(key, { version, text });
    return text;
  }
}

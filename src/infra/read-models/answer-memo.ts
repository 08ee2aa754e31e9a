/**
 * The JSON text of answers that depend only on their key (who asks, what they ask) and on the
 * read models. With their rows already remembered (ReadSnapshotMemo), building a list's records
 * and serialising them cost a list request more than anything else the service does for it; a
 * client polling a list between two writes gets the same text each time.
 */
export interface AnswerMemo {
  /** The text `compute` gives for `key` as the read models stand now, computed at most once per state. */
  json(key: string, compute: () => Promise<string>): Promise<string>;
}

/** Where the read models have no cheap version to key on (MongoDB): every answer is computed. */
export const computedEachTime: AnswerMemo = {
  json: (_key, compute) => compute(),
};

/** About two hundred pages of 20 records. */
const MAX_CHARS = 2_000_000;

/**
 * Keyed on the version of the SQLite read database (SqliteReadDb.version), which moves with every
 * commit of this process and every noticed commit of another: a text is never served past a change.
 * Past `maxChars` the least recently asked texts go first: many callers polling their lists keep
 * the most asked ones remembered rather than all of them dropped at once.
 */
export class VersionedAnswerMemo implements AnswerMemo {
  private version: string | null = null;
  /** In order of last use, oldest first (a Map iterates in insertion order). */
  private readonly texts = new Map<string, string>();
  private chars = 0;

  /** `currentVersion`: null while a write transaction is open on the connection. */
  constructor(
    private readonly currentVersion: () => string | null,
    private readonly maxChars = MAX_CHARS,
  ) {}

  async json(key: string, compute: () => Promise<string>): Promise<string> {
    const version = this.currentVersion();
    if (version !== null && version === this.version) {
      const hit = this.texts.get(key);
      if (hit !== undefined) {
        this.texts.delete(key);
        this.texts.set(key, hit);
        return hit;
      }
    }
    const text = await compute();
    // Computing awaits: a text read while the read models moved may mix two states, so it is
    // answered (as any read in flight is) but not kept.
    if (version === null || this.currentVersion() !== version) return text;
    if (version !== this.version) {
      this.texts.clear();
      this.chars = 0;
      this.version = version;
    }
    if (text.length > this.maxChars) return text;
    const previous = this.texts.get(key);
    if (previous !== undefined) {
      this.texts.delete(key);
      this.chars -= previous.length;
    }
    for (const [oldest, old] of this.texts) {
      if (this.chars + text.length <= this.maxChars) break;
      this.texts.delete(oldest);
      this.chars -= old.length;
    }
    this.texts.set(key, text);
    this.chars += text.length;
    return text;
  }
}

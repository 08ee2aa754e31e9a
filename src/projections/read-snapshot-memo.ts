import { KeptByVersion } from './kept-by-version';

/**
 * Answers of one SQLite or PostgreSQL read database, each remembered until the scope it was read from changes:
 * a resource's stored state and views, which GetResourcePrivacy and the commands ask again and
 * again (the directory's facts are kept by DirectoryReader, whatever READ_MEMO says). A scope's
 * version (SqliteChangeFeed) moves with every commit that changed it, this process's or
 * another's, so an answer is never served past a change, and a commit elsewhere (a save in
 * another project) leaves it standing. Inside a write transaction nothing is kept: the
 * rows read there may still be rolled back.
 *
 * Least recently used first out, kept by lru-cache: a Map reordered on every hit (delete, then
 * set again) cost 2 µs a lookup with 5,000 callers' rows in it, against 0.09 µs here (the Map's
 * holes made it rehash over and over; docs/benchmarks.md "What the figures decided").
 */
export class ReadSnapshotMemo {
  private readonly answers: KeptByVersion<string, unknown>;

  /**
   * `versionOf`: null while a write transaction is open on this connection (or with READ_MEMO=off).
   * `maxEntries`: two for each resource asked about (its state, its views).
   */
  constructor(
    private readonly versionOf: (scope: string) => string | null,
    maxEntries = 12_000,
  ) {
    this.answers = new KeptByVersion(maxEntries);
  }

  /** `key` names the answer among all scopes' answers; it stands while `scope` does not change. */
  get<T>(scope: string, key: string, read: () => T): T {
    const { version, remembered } = this.recall(scope, key);
    if (remembered !== undefined) return remembered as T;
    const value = read();
    if (version !== null) this.answers.set(key, version, value);
    return value;
  }

  /**
   * As `get`, for a read that waits on the database: the answer is kept under the version the
   * scope had before the read began, so a change the read may have missed makes it unreachable at
   * once. A failed read keeps nothing.
   */
  async getAsync<T>(scope: string, key: string, read: () => Promise<T>): Promise<T> {
    const { version, remembered } = this.recall(scope, key);
    if (remembered !== undefined) return remembered as T;
    const value = await read();
    if (version !== null) this.answers.set(key, version, value);
    return value;
  }

  /** The scope's version now (null: nothing may be kept) and what is kept for `key` under it. */
  private recall(scope: string, key: string): { version: string | null; remembered: unknown } {
    const version = this.versionOf(scope);
    return { version, remembered: version === null ? undefined : this.answers.get(key, version) };
  }
}

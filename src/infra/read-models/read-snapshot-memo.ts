/**
 * Answers of one SQLite read database, remembered until the database changes. A list request
 * asks the same few rows (the caller, their memberships, the project, the community, the page)
 * thousands of times a second between two writes; reading them again costs more than the rest of
 * the request. The database's version (SqliteReadDb.version) moves with every change committed
 * by this connection or any other process's, so an answer is never served past a change, and a
 * write's read-your-writes wait holds as before. Inside a write transaction nothing is kept: the
 * rows read there may still be rolled back.
 */
export class ReadSnapshotMemo {
  private version: string | null = null;
  private readonly answers = new Map<string, unknown>();

  /** `version`: null while a write transaction is open on this connection. */
  constructor(
    private readonly currentVersion: () => string | null,
    private readonly maxEntries = 20_000,
  ) {}

  get<T>(key: string, read: () => T): T {
    const version = this.currentVersion();
    if (version === null) return read();
    if (version !== this.version) {
      this.answers.clear();
      this.version = version;
    }
    if (this.answers.has(key)) return this.answers.get(key) as T;
    const answer = read();
    // A bound, not an eviction policy: between two writes the working set is small.
    if (this.answers.size >= this.maxEntries) this.answers.clear();
    this.answers.set(key, answer);
    return answer;
  }
}

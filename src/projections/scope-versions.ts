/** Every scope changed at once (a read model reset, or a reader too far behind its feed). */
export const EVERY_SCOPE = '*';

/**
 * Scopes whose version is held at most: every resource saved is one. Past this, every version
 * moves at once (the epoch), which forgets what is remembered once, but keeps memory bounded.
 */
const MAX_VERSIONS = 100_000;

/** Versions made by one process: two read databases opened in it never hand out the same one. */
let instances = 0;

/**
 * The version of each scope of one read database as this process knows it, moved by every change
 * its change feed applies (src/infra/sqlite/sqlite-change-feed.ts, src/infra/postgres/postgres-change-feed.ts).
 * Remembered answers are keyed on these versions: a change to a scope makes every answer read
 * from it unreachable.
 */
export class ScopeVersions {
  /** Each changed scope's version, as `version` answers it (a string built once per change, not per ask). */
  private readonly versions = new Map<string, string>();
  private readonly instance = ++instances;
  private epoch = 0;
  /** The version of every scope that has not changed since the last epoch. */
  private unchanged = `${this.instance}.0.0`;
  /** Changes applied: each one's number is the version of the scope it changed. */
  private changes = 0;

  version(scope: string): string {
    return this.versions.get(scope) ?? this.unchanged;
  }

  /** `scope` changed (EVERY_SCOPE: all of them). */
  changed(scope: string): void {
    if (scope === EVERY_SCOPE || this.versions.size >= MAX_VERSIONS) {
      this.epoch += 1;
      this.unchanged = `${this.instance}.${this.epoch}.0`;
      this.versions.clear();
    } else {
      this.changes += 1;
      this.versions.set(scope, `${this.instance}.${this.epoch}.${this.changes}`);
    }
  }
}

import type Database from 'better-sqlite3';
import { EVERY_SCOPE, ScopeVersions } from '../../projections/scope-versions';
import { changesOfRows, TouchedScopes, type ScopeChange } from '../../projections/scope-changes';
/** Past this many rows behind, a reader forgets everything rather than reading them all. */
const CATCH_UP_ROWS = 5_000;
/** The feed keeps about this many rows; a reader that fell further behind forgets everything. */
const KEPT_ROWS = 50_000;
const PRUNE_EVERY_COMMITS = 1_000;

const schema = `
  create table if not exists read_changes (
    seq integer primary key autoincrement,
    scope text not null,
    item integer
  ) strict;
`;

type Row = { seq: number; scope: string; item: number | null };

/**
 * What each commit to the embedded read models changed, named by scope (`directory`, a view with
 * the resources it changed in it, a resource), written in the commit's own transaction and read by
 * every process that shares the database. Remembered answers are kept per scope, so a commit
 * forgets only what it could have changed: a save in project 50 leaves project 1's answers and the
 * directory's standing, and another process's commit is applied the same way as this one's.
 */
export class SqliteChangeFeed {
  /** Scopes the open transaction changed; null items: the whole scope. */
  private readonly touched = new TouchedScopes();
  private readonly versions = new ScopeVersions();
  /** The last feed row applied here. */
  private seen: number;
  /** The last row the open transaction wrote: `seen` once it commits. */
  private recorded = 0;
  private commits = 0;
  private readonly listeners: ((change: ScopeChange) => void)[] = [];
  private readonly s;

  constructor(
    private readonly db: Database.Database,
    /** A generation being bulk-loaded is read by nobody: its writes need no feed. */
    private readonly silent: () => boolean,
  ) {
    db.exec(schema);
    this.s = {
      since: db.prepare<[number, number], Row>(
        'select seq, scope, item from read_changes where seq > ? order by seq limit ?',
      ),
      last: db.prepare<[], number | null>('select max(seq) from read_changes').pluck(),
      insert: db.prepare<[string, number | null]>('insert into read_changes (scope, item) values (?, ?)'),
      prune: db.prepare<[number]>('delete from read_changes where seq <= ?'),
    };
    this.seen = this.s.last.get() ?? 0;
  }

  /** Tells `listener` of every change applied here, this process's and others'. */
  onChange(listener: (change: ScopeChange) => void): void {
    this.listeners.push(listener);
  }

  /**
   * A write changed `scope` (or its `item`). Inside a transaction it is recorded at commit; a
   * write made outside one (a store used on its own) is recorded at once.
   */
  touch(scope: string, item?: number): void {
    if (this.silent()) return;
    this.touched.touch(scope, item);
    if (!this.db.inTransaction) {
      this.db.transaction(() => this.record())();
      this.committed();
    }
  }

  /** Inside the committing transaction: what it changed goes into the feed, after what others committed before it. */
  record(): void {
    if (this.touched.size === 0) return;
    this.catchUp();
    for (const { scope, item } of this.touched.rows())
      this.recorded = Number(this.s.insert.run(scope, item).lastInsertRowid);
    if (++this.commits % PRUNE_EVERY_COMMITS === 0) this.s.prune.run((this.s.last.get() ?? 0) - KEPT_ROWS);
  }

  /** The transaction committed: its changes count here at once (other processes read them from the feed). */
  committed(): void {
    if (this.touched.size === 0) return;
    // Its own rows follow every row read before it (the transaction held the write lock).
    this.seen = this.recorded;
    const changes = this.touched.changes();
    this.touched.clear();
    for (const change of changes) this.apply(change);
  }

  /** The transaction was rolled back: nothing it touched changed. */
  rolledBack(): void {
    this.touched.clear();
  }

  /** Applies what other processes committed since the last look (their rows in the feed). */
  catchUp(): void {
    const rows = this.s.since.all(this.seen, CATCH_UP_ROWS + 1);
    if (rows.length === 0) return;
    const first = rows[0] as Row;
    if (rows.length > CATCH_UP_ROWS || first.seq !== this.seen + 1) {
      // Rows were pruned before they were read here, or too many wait: forget everything.
      this.seen = this.s.last.get() ?? this.seen;
      this.apply({ scope: EVERY_SCOPE, items: null });
      return;
    }
    this.seen = (rows[rows.length - 1] as Row).seq;
    for (const change of changesOfRows(rows)) this.apply(change);
  }

  /** Everything remembered from this database is forgotten (e.g. a read model was reset). */
  forgetEverything(): void {
    this.apply({ scope: EVERY_SCOPE, items: null });
  }

  /** Moves whenever `scope` changes; null inside a write transaction, whose rows are not settled yet. */
  version(scope: string): string | null {
    if (this.db.inTransaction) return null;
    return this.versions.version(scope);
  }

  private apply(change: ScopeChange): void {
    this.versions.changed(change.scope);
    for (const listener of this.listeners) listener(change);
  }
}

import type pg from 'pg';
import { EVERY_SCOPE, ScopeVersions } from '../../projections/scope-versions';
import { changesOfRows, type ChangeRow, type ScopeChange, type TouchedScopes } from '../../projections/scope-changes';
import { SharedLooks } from '../../projections/shared-looks';

/** Two keys of pg_advisory_xact_lock: this constant for a generation's feed, and the schema's hash. */
const FEED_LOCK_CLASS = 0x70_72_66_64; // 'prfd'
/** Past this many rows behind, a reader forgets everything rather than reading them all. */
const CATCH_UP_ROWS = 5_000;
/** The feed keeps about this many rows; a reader that fell further behind forgets everything. */
const KEPT_ROWS = 50_000;
/** Rows are pruned as the numbers cross each multiple of this, by whichever commit crosses it. */
const PRUNE_EVERY_ROWS = 10_000;

/**
 * The feed's table, in the generation's schema beside the read models it speaks of: a row per
 * changed scope, or per changed item of a scope (a view's resources, which the view index places
 * one by one). Tables made before items were recorded gain the column.
 */
export const CHANGE_FEED_DDL = `create table if not exists read_changes (
  seq bigint primary key,
  scope text collate "C" not null,
  item bigint
);
alter table read_changes add column if not exists item bigint`;

type FeedRow = { seq: string; scope: string; item: string | null; last: string };

type Query = (text: string, values?: readonly unknown[]) => Promise<pg.QueryResult>;

/**
 * What each commit to one generation of the PostgreSQL read models changed, named by scope
 * (src/projections/read-scopes.ts), written in the commit's own transaction and read by every
 * process that serves the generation: the PostgreSQL counterpart of SqliteChangeFeed, on which
 * remembered answers are kept per scope.
 *
 * A commit's rows are numbered under a transaction-scoped advisory lock, each after the highest
 * number committed, and the lock is held until the commit is visible to every reader: the numbers
 * run without gaps in commit order, however many connections commit to the read models at once. A
 * reader that saw number n has seen every row up to n, and a row missing after it can only have
 * been pruned, which makes it forget everything.
 *
 * A process applies its own commits when they commit, and everyone's when it looks (`sync`): each
 * request looks once as it starts, so an answer remembered is never served past a change
 * committed before the request (docs/operations.md "Read models, roles and rebuilds").
 */
export class PostgresChangeFeed {
  private readonly versions = new ScopeVersions();
  private readonly listeners: ((change: ScopeChange) => void)[] = [];
  /** The last row applied here; null until the first look. */
  private seen: number | null = null;
  private readonly looks = new SharedLooks(() => this.look());

  constructor(
    private readonly schema: string,
    private readonly query: Query,
  ) {}

  /** Tells `listener` of every change applied here, this process's and others'. */
  onChange(listener: (change: ScopeChange) => void): void {
    this.listeners.push(listener);
  }

  /** Moves whenever `scope` changes, this process's commit or another's (as last looked). */
  version(scope: string): string {
    return this.versions.version(scope);
  }

  /**
   * The statements that say what a transaction changed, to be sent as its last ones: its changes
   * are numbered after every commit before it, under a lock released with the commit. None when it
   * changed nothing.
   */
  statements(touched: TouchedScopes): { readonly text: string; readonly values: unknown[] }[] {
    if (touched.size === 0) return [];
    const rows = touched.rows();
    return [
      { text: 'select pg_advisory_xact_lock($1, hashtext($2))', values: [FEED_LOCK_CLASS, this.schema] },
      // A statement of its own after the lock: its snapshot holds every commit that released it.
      // Each commit that passes a multiple of PRUNE_EVERY_ROWS drops the rows older than KEPT_ROWS.
      {
        text: `with written as (
             insert into read_changes (seq, scope, item)
             select last.seq + t.n, t.scope, t.item
             from (select coalesce(max(seq), 0) as seq from read_changes) last,
               unnest($1::text[], $2::bigint[]) with ordinality as t(scope, item, n)
             returning seq
           ), head as (select max(seq) as last from written)
           delete from read_changes
           where seq <= (select last from head) - $3::bigint
             and (select last / $4::bigint <> (last - $5::bigint) / $4::bigint from head)`,
        values: [rows.map((row) => row.scope), rows.map((row) => row.item), KEPT_ROWS, PRUNE_EVERY_ROWS, rows.length],
      },
    ];
  }

  /** The transaction committed: what it changed counts here at once (others read it from the feed). */
  committed(touched: TouchedScopes): void {
    for (const change of touched.changes()) this.apply(change);
  }

  /** Everything remembered from this generation is forgotten. */
  forgetEverything(): void {
    this.apply({ scope: EVERY_SCOPE, items: null });
  }

  private apply(change: ScopeChange): void {
    this.versions.changed(change.scope);
    for (const listener of this.listeners) listener(change);
  }

  /**
   * Resolves once a look that began after this call applied every change committed before it;
   * rejects if that look failed (the database is unreachable). Asks made while a look runs share
   * the one after it: one query however many requests start at once.
   */
  sync(): Promise<void> {
    return this.looks.sync();
  }

  private async look(): Promise<void> {
    if (this.seen === null) {
      const { rows } = await this.query('select coalesce(max(seq), 0) as last from read_changes');
      // What was remembered before the first look (nothing, or this process's own reads) is not trusted.
      this.seen ??= Number((rows[0] as { last: string }).last);
      this.forgetEverything();
      return;
    }
    const from = this.seen;
    const { rows } = await this.query(
      `select c.seq, c.scope, c.item, (select max(seq) from read_changes) as last
       from (select seq, scope, item from read_changes where seq > $1 order by seq limit $2) c order by c.seq`,
      [from, CATCH_UP_ROWS + 1],
    );
    this.applyRows(from, rows as FeedRow[]);
  }

  /** Rows read past `from`, in order. */
  private applyRows(from: number, rows: readonly FeedRow[]): void {
    const first = rows[0];
    if (!first || this.seen === null) return;
    if (rows.length > CATCH_UP_ROWS || Number(first.seq) !== from + 1) {
      // Rows were pruned before they were read here, or too many wait: forget everything.
      this.seen = Math.max(this.seen, Number(first.last));
      this.forgetEverything();
      return;
    }
    const fresh: ChangeRow[] = [];
    for (const row of rows) {
      const seq = Number(row.seq);
      if (seq <= this.seen) continue;
      fresh.push({ scope: row.scope, item: row.item === null ? null : Number(row.item) });
      this.seen = seq;
    }
    for (const change of changesOfRows(fresh)) this.apply(change);
  }
}

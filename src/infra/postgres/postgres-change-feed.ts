import type pg from 'pg';
import { EVERY_SCOPE, ScopeVersions } from '../scope-versions';

/** Two keys of pg_advisory_xact_lock: this constant for a generation's feed, and the schema's hash. */
const FEED_LOCK_CLASS = 0x70_72_66_64; // 'prfd'
/** Past this many rows behind, a reader forgets everything rather than reading them all. */
const CATCH_UP_ROWS = 5_000;
/** The feed keeps about this many rows; a reader that fell further behind forgets everything. */
const KEPT_ROWS = 50_000;
/** Rows are pruned as the numbers cross each multiple of this, by whichever commit crosses it. */
const PRUNE_EVERY_ROWS = 10_000;

/** The feed's table, in the generation's schema beside the read models it speaks of. */
export const CHANGE_FEED_DDL = `create table if not exists read_changes (
  seq bigint primary key,
  scope text collate "C" not null
)`;

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
  /** The last row applied here; null until the first look. */
  private seen: number | null = null;
  /** The look being made, and the one queued behind it for whoever asked after it began. */
  private running: Promise<void> | null = null;
  private queued: Promise<void> | null = null;

  constructor(
    private readonly schema: string,
    private readonly query: Query,
  ) {}

  /** Moves whenever `scope` changes, this process's commit or another's (as last looked). */
  version(scope: string): string {
    return this.versions.version(scope);
  }

  /**
   * Inside the committing transaction, on its connection, as its last statements: its changes are
   * numbered after every commit before it. The lock is released with the commit.
   */
  async record(client: pg.PoolClient, scopes: ReadonlySet<string>): Promise<void> {
    if (scopes.size === 0) return;
    await client.query('select pg_advisory_xact_lock($1, hashtext($2))', [FEED_LOCK_CLASS, this.schema]);
    // A statement of its own after the lock: its snapshot holds every commit that released it.
    const { rows } = await client.query<{ last: string }>(
      `with written as (
         insert into read_changes (seq, scope)
         select last.seq + t.n, t.scope
         from (select coalesce(max(seq), 0) as seq from read_changes) last,
           unnest($1::text[]) with ordinality as t(scope, n)
         returning seq
       ) select max(seq) as last from written`,
      [[...scopes]],
    );
    const last = Number(rows[0]?.last);
    if (Math.floor(last / PRUNE_EVERY_ROWS) !== Math.floor((last - scopes.size) / PRUNE_EVERY_ROWS))
      await client.query('delete from read_changes where seq <= $1', [last - KEPT_ROWS]);
  }

  /** The transaction committed: what it changed counts here at once (others read it from the feed). */
  committed(scopes: ReadonlySet<string>): void {
    for (const scope of scopes) this.versions.changed(scope);
  }

  /** Everything remembered from this generation is forgotten. */
  forgetEverything(): void {
    this.versions.changed(EVERY_SCOPE);
  }

  /**
   * Resolves once a look that began after this call applied every change committed before it;
   * rejects if that look failed (the database is unreachable). Asks made while a look runs share
   * the one after it: one query however many requests start at once.
   */
  sync(): Promise<void> {
    if (!this.running) {
      const look = this.look().finally(() => {
        this.running = null;
      });
      this.running = look;
      return look;
    }
    this.queued ??= this.running
      .catch(() => undefined)
      .then(() => {
        this.queued = null;
        return this.sync();
      });
    return this.queued;
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
      `select c.seq, c.scope, (select max(seq) from read_changes) as last
       from (select seq, scope from read_changes where seq > $1 order by seq limit $2) c order by c.seq`,
      [from, CATCH_UP_ROWS + 1],
    );
    this.apply(from, rows as { seq: string; scope: string; last: string }[]);
  }

  /** Rows read past `from`, in order. */
  private apply(from: number, rows: readonly { seq: string; scope: string; last: string }[]): void {
    const first = rows[0];
    if (!first || this.seen === null) return;
    if (rows.length > CATCH_UP_ROWS || Number(first.seq) !== from + 1) {
      // Rows were pruned before they were read here, or too many wait: forget everything.
      this.seen = Math.max(this.seen, Number(first.last));
      this.forgetEverything();
      return;
    }
    for (const row of rows) {
      const seq = Number(row.seq);
      if (seq <= this.seen) continue;
      this.versions.changed(row.scope);
      this.seen = seq;
    }
  }
}

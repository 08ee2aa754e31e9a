import type pg from 'pg';
import type { ResourceViewRecord } from '../../resources/resource-view-store';
import { readScope } from '../../projections/read-scopes';
import type { ScopeChange } from '../../projections/scope-changes';
import { ViewIndex, type IndexedView, type ViewIndexRow } from '../../resources/view-index';

type Query = <R extends pg.QueryResultRow>(text: string, values?: readonly unknown[]) => Promise<pg.QueryResult<R>>;

type IndexRow = { resource_id: string; post_date: string; paragraph: string; audience_key: string };

const indexRow = (row: IndexRow): ViewIndexRow => [
  Number(row.resource_id),
  row.post_date,
  Number(row.paragraph),
  row.audience_key,
];

/**
 * The PostgreSQL read model's view index (src/resources/view-index.ts): each process serving lists
 * holds the views it lists, in list order, kept in step by the change feed, which names each
 * resource a commit moved in or out of a view. Its reads are asynchronous, so one view is read at
 * a time: a request that finds a view being read waits for that read, and then places what
 * changed since, which includes everything the feed showed before the request began.
 */
export class PostgresViewIndex {
  private readonly index = new ViewIndex();
  /** The read under way per view, whole or of its changed rows. */
  private readonly reading = new Map<string, Promise<IndexedView>>();

  constructor(
    private readonly query: Query,
    private readonly table: string,
  ) {}

  changed(change: ScopeChange): void {
    this.index.changed(change);
  }

  /** One view in list order, with every change the feed has shown placed. */
  async view(viewKey: string, projectId: number): Promise<IndexedView> {
    const scope = readScope.view(viewKey, projectId);
    for (;;) {
      const running = this.reading.get(scope);
      if (running) {
        await running.catch(() => undefined);
        continue;
      }
      const held = this.index.held(scope);
      if (held && held.changed.size === 0) return held;
      const read = held ? this.refresh(held) : this.load(scope, viewKey, projectId);
      this.reading.set(scope, read);
      try {
        return await read;
      } finally {
        if (this.reading.get(scope) === read) this.reading.delete(scope);
      }
    }
  }

  /** The documents of `ids` (a page of `view`), kept on their entries or read and kept there. */
  async docs(view: IndexedView, ids: readonly number[]): Promise<ResourceViewRecord[]> {
    const kept = this.index.keptDocsOf(view, ids);
    const missing = ids.filter((_, i) => kept[i] === null);
    const read = new Map<number, ResourceViewRecord>();
    if (missing.length > 0) {
      const { rows } = await this.query<{ resource_id: string; doc: string }>(this.docsStatement, [
        view.viewKey,
        view.projectId,
        missing,
      ]);
      for (const row of rows) {
        const id = Number(row.resource_id);
        const doc = JSON.parse(row.doc) as ResourceViewRecord;
        read.set(id, doc);
        this.index.keep(view, id, doc);
      }
    }
    return ids.flatMap((id, i) => {
      const doc = kept[i] ?? read.get(id);
      return doc ? [doc] : [];
    });
  }

  /** The statement a page's documents are read by (for the plans operators are shown). */
  get docsStatement(): string {
    return `select resource_id, doc from ${this.table} where view_key = $1 and project_id = $2 and resource_id = any($3::bigint[])`;
  }

  private async load(scope: string, viewKey: string, projectId: number): Promise<IndexedView> {
    this.index.loadingView(scope);
    try {
      const { rows } = await this.query<IndexRow>(
        `select resource_id, post_date, paragraph, audience_key from ${this.table}
         where view_key = $1 and project_id = $2`,
        [viewKey, projectId],
      );
      return this.index.hold(scope, rows.map(indexRow));
    } catch (error) {
      this.index.notLoaded(scope);
      throw error;
    }
  }

  /** Places the rows changed since the view was last read, with their documents, which a first page usually shows. */
  private async refresh(view: IndexedView): Promise<IndexedView> {
    const ids = this.index.takeChanged(view);
    let rows: (IndexRow & { doc: string })[];
    try {
      ({ rows } = await this.query<IndexRow & { doc: string }>(
        `select resource_id, post_date, paragraph, audience_key, doc from ${this.table}
         where view_key = $1 and project_id = $2 and resource_id = any($3::bigint[])`,
        [view.viewKey, view.projectId, ids],
      ));
    } catch (error) {
      // Read again by the next request: nothing the feed showed is lost.
      for (const id of ids) view.changed.add(id);
      throw error;
    }
    const byId = new Map(rows.map((row) => [Number(row.resource_id), row]));
    this.index.place(
      view,
      ids.map((id) => {
        const row = byId.get(id);
        return [id, row && indexRow(row)] as const;
      }),
    );
    for (const [id, row] of byId) this.index.keep(view, id, JSON.parse(row.doc) as ResourceViewRecord);
    return view;
  }
}

import type Database from 'better-sqlite3';
import type { ResourceViewRecord } from '../../resources/resource-view-store';
import { readScope } from '../../projections/read-scopes';
import type { ScopeChange } from '../../projections/scope-changes';
import { ViewIndex, type IndexedView, type ViewIndexRow } from '../../resources/view-index';

/**
 * The embedded read model's view index (src/resources/view-index.ts), read from SQLite: a view is
 * loaded through `res_views_in_view`, which holds all a list needs to place a row (never its
 * document), and a changed row by its primary key, both synchronously.
 */
export class SqliteViewIndex {
  private readonly index = new ViewIndex();
  private statements:
    | {
        load: Database.Statement<[string, number], ViewIndexRow>;
        row: Database.Statement<[number, string, number], ViewIndexRow>;
      }
    | undefined;

  /** Prepared when first needed: a generation being bulk-loaded builds the view index only at its end. */
  private get s() {
    this.statements ??= {
      load: this.db
        .prepare<[string, number], ViewIndexRow>(
          `select resource_id, post_date, paragraph_id, audience_key from res_views indexed by res_views_in_view
           where view_key = ? and project_id = ?`,
        )
        .raw(true),
      row: this.db
        .prepare<[number, string, number], ViewIndexRow>(
          'select resource_id, post_date, paragraph_id, audience_key from res_views where ' +
            'resource_id = ? and view_key = ? and project_id = ?',
        )
        .raw(true),
    };
    return this.statements;
  }

  constructor(private readonly db: Database.Database) {}

  changed(change: ScopeChange): void {
    this.index.changed(change);
  }

  /** One view in list order, its changed rows placed. */
  view(viewKey: string, projectId: number): IndexedView {
    const scope = readScope.view(viewKey, projectId);
    const held = this.index.held(scope);
    if (!held) return this.index.hold(scope, this.s.load.all(viewKey, projectId));
    if (held.changed.size > 0)
      this.index.place(
        held,
        this.index.takeChanged(held).map((id) => [id, this.s.row.get(id, viewKey, projectId)] as const),
      );
    return held;
  }

  /** The documents of `ids` (a page of `view`), from their entries, or read with `read` and kept there. */
  docs(
    view: IndexedView,
    ids: readonly number[],
    read: (id: number) => ResourceViewRecord | null,
  ): ResourceViewRecord[] {
    const kept = this.index.keptDocsOf(view, ids);
    const docs: ResourceViewRecord[] = [];
    ids.forEach((id, i) => {
      let doc = kept[i] ?? null;
      if (doc === null) {
        doc = read(id);
        if (doc !== null) this.index.keep(view, id, doc);
      }
      if (doc !== null) docs.push(doc);
    });
    return docs;
  }
}

/** Past this many items of one scope in one commit, the commit says the whole scope changed. */
const ITEMS_PER_SCOPE = 1_000;

/** A change seen in a change feed: `items` null when the whole scope changed. */
export type ScopeChange = { readonly scope: string; readonly items: readonly number[] | null };

/** One row of a change feed: a scope, and the item of it that changed (null: all of it). */
export type ChangeRow = { readonly scope: string; readonly item: number | null };

/**
 * The scopes one transaction changed, and which of their items (a view's resources), as the
 * embedded and the PostgreSQL change feeds record them: a scope touched without an item, or with
 * too many, changed whole.
 */
export class TouchedScopes {
  private readonly touched = new Map<string, Set<number> | null>();

  get size(): number {
    return this.touched.size;
  }

  touch(scope: string, item?: number): void {
    const items = this.touched.get(scope);
    if (item === undefined || items === null || (items && items.size >= ITEMS_PER_SCOPE)) this.touched.set(scope, null);
    else if (items) items.add(item);
    else this.touched.set(scope, new Set([item]));
  }

  /** The feed rows that say what changed: one per item, or one for a whole scope. */
  rows(): ChangeRow[] {
    return [...this.touched].flatMap(([scope, items]): ChangeRow[] =>
      items === null ? [{ scope, item: null }] : [...items].map((item) => ({ scope, item })),
    );
  }

  changes(): ScopeChange[] {
    return [...this.touched].map(([scope, items]) => ({ scope, items: items && [...items] }));
  }

  clear(): void {
    this.touched.clear();
  }
}

/** Feed rows read in order, as one change per scope (a row without an item: the whole scope). */
export function changesOfRows(rows: Iterable<ChangeRow>): ScopeChange[] {
  const changes = new Map<string, number[] | null>();
  for (const row of rows) {
    const items = changes.get(row.scope);
    if (row.item === null) changes.set(row.scope, null);
    else if (items) items.push(row.item);
    else if (items === undefined) changes.set(row.scope, [row.item]);
  }
  return [...changes].map(([scope, items]) => ({ scope, items }));
}

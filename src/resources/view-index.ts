import type { Audience, ResourceViewRecord, ViewPageKey, ViewPageQuery } from './resource-view-store';
import { admittedKeys, isAfter } from './resource-view-store';
import { readScope, viewOfScope } from '../projections/read-scopes';
import type { ScopeChange } from '../projections/scope-changes';
import { EVERY_SCOPE } from '../projections/scope-versions';

/** What a list needs of a view row to place it: its id, its date, its paragraph (0: none), its audience set. */
export type ViewIndexRow = readonly [id: number, postDate: string, paragraphId: number, audienceKey: string];

/**
 * What a list needs of a view row to place it, and, once a page has shown it, its document: a
 * row that changes is a new entry, so a kept document is never stale.
 */
type Entry = {
  readonly id: number;
  readonly postDate: string;
  readonly paragraphId: number;
  readonly audienceKey: string;
  doc?: ResourceViewRecord | undefined;
};

/** The rows of all indexed views kept in memory at most: about 100 bytes each. */
const MAX_ENTRIES = 300_000;
/** Admitted id lists kept per view: one per kind of caller, order and paragraph asked. */
const MAX_ADMITTED_LISTS = 64;
/** Documents kept on their entries at most, the most recently read: a few MB, the pages being asked. */
const MAX_KEPT_DOCS = 5_000;

/** orderBy 1: postDate descending, then id descending. */
const recentFirst = (a: Entry, b: Entry): number =>
  a.postDate === b.postDate ? b.id - a.id : a.postDate < b.postDate ? 1 : -1;
const idOrder = (a: Entry, b: Entry): number => a.id - b.id;

/** Where `entry` goes in `sorted` (the first place not before it). */
function placeOf(sorted: readonly Entry[], entry: Entry, compare: (a: Entry, b: Entry) => number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compare(sorted[middle] as Entry, entry) < 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The ids one kind of caller sees in one order (and paragraph), kept in step with the view's rows. */
type Admitted = {
  readonly ids: number[];
  /** The audience sets that admit them; null: every row (a community's admins). */
  readonly wanted: ReadonlySet<string> | null;
  readonly paragraphId: number | null;
  readonly compare: (a: Entry, b: Entry) => number;
};

const admitsEntry = (list: Admitted, entry: Entry): boolean =>
  (list.wanted === null || list.wanted.has(entry.audienceKey)) &&
  (list.paragraphId === null || entry.paragraphId === list.paragraphId);

const entryOf = (row: ViewIndexRow | undefined): Entry | null =>
  row ? { id: row[0], postDate: row[1], paragraphId: row[2], audienceKey: row[3] } : null;

/**
 * One view's rows in both list orders, with how many rows each audience set holds, and the ids
 * each kind of caller sees in each order, built when first asked. Changes reach it as the ids of
 * the rows that changed (from the change feed) and are placed, when it is next read, in both
 * orders and in every list of admitted ids: a save moves one row, it never rebuilds the view.
 */
export class IndexedView {
  readonly byId: Entry[] = [];
  readonly byRecent: Entry[] = [];
  readonly rows = new Map<number, Entry>();
  /** Rows per audience set: which sets a caller is admitted to is asked of these few keys, not of every row. */
  readonly audiences = new Map<string, number>();
  /** Rows changed since the view was last read. */
  readonly changed = new Set<number>();
  private readonly admitted = new Map<string, Admitted>();

  constructor(
    readonly viewKey: string,
    readonly projectId: number,
    entries: Entry[],
  ) {
    for (const entry of entries) this.add(entry, false);
    this.byId.push(...entries);
    this.byId.sort(idOrder);
    this.byRecent.push(...entries);
    this.byRecent.sort(recentFirst);
  }

  get size(): number {
    return this.rows.size;
  }

  private add(entry: Entry, place: boolean): void {
    this.rows.set(entry.id, entry);
    this.audiences.set(entry.audienceKey, (this.audiences.get(entry.audienceKey) ?? 0) + 1);
    if (!place) return;
    this.byId.splice(placeOf(this.byId, entry, idOrder), 0, entry);
    this.byRecent.splice(placeOf(this.byRecent, entry, recentFirst), 0, entry);
  }

  private remove(id: number): void {
    const entry = this.rows.get(id);
    if (!entry) return;
    this.rows.delete(id);
    const left = (this.audiences.get(entry.audienceKey) ?? 1) - 1;
    if (left > 0) this.audiences.set(entry.audienceKey, left);
    else this.audiences.delete(entry.audienceKey);
    this.byId.splice(placeOf(this.byId, entry, idOrder), 1);
    this.byRecent.splice(placeOf(this.byRecent, entry, recentFirst), 1);
  }

  /** Places a changed row as it is now (`entry` null: it left the view). */
  replace(id: number, entry: Entry | null): void {
    const old = this.rows.get(id);
    if (old)
      for (const list of this.admitted.values())
        if (admitsEntry(list, old)) list.ids.splice(this.placeIn(list, old), 1);
    this.remove(id);
    if (!entry) return;
    this.add(entry, true);
    for (const list of this.admitted.values())
      if (admitsEntry(list, entry)) list.ids.splice(this.placeIn(list, entry), 0, entry.id);
  }

  /** Where `entry` is, or goes, among a list's ids (in the list's order). */
  private placeIn(list: Admitted, entry: Entry): number {
    let low = 0;
    let high = list.ids.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (list.compare(this.rows.get(list.ids[middle] as number) as Entry, entry) < 0) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** The audience sets of the view that admit a caller: what a search of the view filters its rows by. */
  admittedAudiences(audience: Audience): string[] {
    return admittedKeys(audience, this.audiences.keys());
  }

  /**
   * The ids of the rows a caller with `audience` sees, in `orderBy`, within one paragraph or all:
   * the count is their number, a page a slice of them. Callers admitted to the same audience sets
   * of this view share one list.
   */
  private admittedIds(audience: Audience, orderBy: 0 | 1, paragraphId: number | null): readonly number[] {
    const keys = audience.kind === 'everything' ? null : admittedKeys(audience, this.audiences.keys());
    const signature = `${orderBy}|${paragraphId ?? ''}|${keys === null ? '*' : keys.sort().join('\n')}`;
    let list = this.admitted.get(signature);
    if (!list) {
      list = {
        ids: [],
        wanted: keys === null ? null : new Set(keys),
        paragraphId,
        compare: orderBy === 0 ? idOrder : recentFirst,
      };
      for (const entry of orderBy === 0 ? this.byId : this.byRecent)
        if (admitsEntry(list, entry)) list.ids.push(entry.id);
      if (this.admitted.size >= MAX_ADMITTED_LISTS) this.admitted.clear();
      this.admitted.set(signature, list);
    }
    return list.ids;
  }

  /**
   * A page of the view as a caller sees it: the number of rows they see and the ids of the page's
   * rows (after `q.after`, if any, then `skip` and `take`), in the list's order.
   */
  page(q: ViewPageQuery): { count: number; ids: readonly number[] } {
    const ids = this.admittedIds(q.audience, q.orderBy, q.paragraphId);
    const from = q.skip + (q.after ? this.startAfter(q.orderBy, ids, q.after) : 0);
    return { count: ids.length, ids: ids.slice(from, from + q.take) };
  }

  /**
   * Where the rows after `key` begin among `ids`, a list admittedIds just answered for this view
   * and order: a binary search, so a keyset page costs what an offset page does.
   */
  private startAfter(orderBy: 0 | 1, ids: readonly number[], key: ViewPageKey): number {
    let low = 0;
    let high = ids.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const entry = this.rows.get(ids[middle] as number);
      if (entry && !isAfter(orderBy, key, { resourceId: entry.id, postDate: entry.postDate })) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}

/**
 * The views of the resources read model in list order, in memory, for the databases that keep it
 * (embedded, PostgreSQL): a list reads the ids of its page from here (however deep the page,
 * however large the view) and only those rows' documents from the database. Views are loaded when
 * first listed, kept in step through the change feed (`changed`), and the least recently listed
 * go when more than MAX_ENTRIES rows are held. How rows are read is the adapter's: it asks `held`
 * for a view, reads the rows `takeChanged` names and `place`s them, or reads a whole view and
 * `hold`s it.
 */
export class ViewIndex {
  /** In order of last use, oldest first. */
  private readonly views = new Map<string, IndexedView>();
  private entries = 0;
  /** Views being read whole, with the changes that reached them meanwhile (null: the whole view changed). */
  private readonly loading = new Map<string, Set<number> | null>();
  /** Entries holding their document, oldest first (a Set iterates in insertion order). */
  private readonly keptDocs = new Set<Entry>();

  /** Feed changes: a changed row is placed again when its view is next read; a whole view or everything, reloaded. */
  changed(change: ScopeChange): void {
    if (change.scope === EVERY_SCOPE) {
      this.views.clear();
      this.entries = 0;
      this.keptDocs.clear();
      for (const scope of this.loading.keys()) this.loading.set(scope, null);
      return;
    }
    if (!viewOfScope(change.scope)) return;
    const loading = this.loading.get(change.scope);
    if (loading) {
      if (change.items === null) this.loading.set(change.scope, null);
      else for (const id of change.items) loading.add(id);
    }
    const view = this.views.get(change.scope);
    if (!view) return;
    if (change.items === null) this.drop(change.scope, view);
    else for (const id of change.items) view.changed.add(id);
  }

  /** The view held for `scope`, now the most recently used; undefined when it is not held. */
  held(scope: string): IndexedView | undefined {
    const view = this.views.get(scope);
    if (view) {
      this.views.delete(scope);
      this.views.set(scope, view);
    }
    return view;
  }

  /** The rows of `view` changed since it was last placed: the caller reads them and `place`s them. */
  takeChanged(view: IndexedView): number[] {
    const ids = [...view.changed];
    view.changed.clear();
    return ids;
  }

  /** Places changed rows as they are now (`row` undefined: the row left the view). */
  place(view: IndexedView, rows: Iterable<readonly [id: number, row: ViewIndexRow | undefined]>): void {
    const before = view.size;
    for (const [id, row] of rows) {
      const old = view.rows.get(id);
      if (old) this.keptDocs.delete(old);
      view.replace(id, entryOf(row));
    }
    if (this.isHeld(view)) this.entries += view.size - before;
  }

  /** Whether `view` is the one held for its scope (not dropped, nor read for one answer only). */
  private isHeld(view: IndexedView): boolean {
    return this.views.get(readScope.view(view.viewKey, view.projectId)) === view;
  }

  /**
   * A view about to be read whole in `scope`: the changes reaching it until `hold` are kept, so
   * that rows read before them are read again. Needed where the read is asynchronous.
   */
  loadingView(scope: string): void {
    if (!this.loading.has(scope)) this.loading.set(scope, new Set());
  }

  /**
   * A view read whole: held from now on, the least recently used dropped past the bound. Rows
   * that changed while it was read are marked to be read again; if the whole view changed
   * meanwhile, it answers the read it was made for and is not held.
   */
  hold(scope: string, rows: readonly ViewIndexRow[]): IndexedView {
    const target = viewOfScope(scope);
    if (!target) throw new Error(`${scope} is not a view`);
    const view = new IndexedView(
      target.viewKey,
      target.projectId,
      rows.map((row) => entryOf(row) as Entry),
    );
    const loading = this.loading.get(scope);
    this.loading.delete(scope);
    if (loading === null) return view;
    for (const id of loading ?? []) view.changed.add(id);
    const old = this.views.get(scope);
    if (old) this.drop(scope, old);
    this.views.set(scope, view);
    this.entries += view.size;
    for (const [oldest, old] of this.views) {
      if (this.entries <= MAX_ENTRIES || oldest === scope) break;
      this.drop(oldest, old);
    }
    return view;
  }

  /** A whole read that failed: nothing is held of it. */
  notLoaded(scope: string): void {
    this.loading.delete(scope);
  }

  /** The documents kept for `ids` of `view`, null where none is kept. */
  keptDocsOf(view: IndexedView, ids: readonly number[]): (ResourceViewRecord | null)[] {
    return ids.map((id) => view.rows.get(id)?.doc ?? null);
  }

  /**
   * A document read for a row of `view`: kept on its entry while the row stands and the view is
   * held, within MAX_KEPT_DOCS. A view dropped while its documents were read keeps none.
   */
  keep(view: IndexedView, id: number, doc: ResourceViewRecord): void {
    const entry = view.rows.get(id);
    if (!entry || !this.isHeld(view)) return;
    entry.doc = doc;
    this.keptDocs.add(entry);
    if (this.keptDocs.size <= MAX_KEPT_DOCS) return;
    const oldest = this.keptDocs.values().next().value as Entry;
    oldest.doc = undefined;
    this.keptDocs.delete(oldest);
  }

  private drop(scope: string, view: IndexedView): void {
    this.views.delete(scope);
    this.entries -= view.size;
    for (const entry of view.rows.values()) if (entry.doc) this.keptDocs.delete(entry);
  }
}

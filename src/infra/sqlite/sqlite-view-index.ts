import type Database from 'better-sqlite3';
import type { Audience, ResourceViewRecord, ViewPageKey } from '../../resources/resource-view-store';
import { admittedKeys, isAfter } from '../../resources/resource-view-store';
import { readScope, viewOfScope } from '../../projections/read-scopes';
import type { ScopeChange } from './sqlite-change-feed';
import { EVERY_SCOPE } from '../scope-versions';

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

/**
 * One view's rows in both list orders, with how many rows each audience set holds, and the ids
 * each kind of caller sees in each order, built when first asked. Changes reach it as the ids of
 * the rows that changed (from the change feed) and are placed, when it is next read, in both
 * orders and in every list of admitted ids: a save moves one row, it never rebuilds the view.
 */
class ViewOrder {
  readonly byId: Entry[] = [];
  readonly byRecent: Entry[] = [];
  readonly rows = new Map<number, Entry>();
  /** Rows per audience set: which sets a caller is admitted to is asked of these few keys, not of every row. */
  readonly audiences = new Map<string, number>();
  /** Rows changed since the view was last read. */
  readonly changed = new Set<number>();
  private readonly admitted = new Map<string, Admitted>();

  constructor(entries: Entry[]) {
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

  /**
   * The ids of the rows a caller with `audience` sees, in `orderBy`, within one paragraph or all.
   * Callers admitted to the same audience sets of this view share one list.
   */
  admittedIds(audience: Audience, orderBy: 0 | 1, paragraphId: number | null): readonly number[] {
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
}

type Row = [id: number, postDate: string, paragraphId: number, audienceKey: string];

/**
 * The views of the embedded resources read model in list order, in memory: a list reads the ids
 * of its page from here (however deep the page, however large the view) and only those rows'
 * documents from SQLite. Views are loaded when first listed, kept in step through the change feed,
 * and the least recently listed go when more than MAX_ENTRIES rows are held.
 */
export class SqliteViewIndex {
  /** In order of last use, oldest first. */
  private readonly views = new Map<string, ViewOrder>();
  private entries = 0;
  private statements:
    | { load: Database.Statement<[string, number], Row>; row: Database.Statement<[number, string, number], Row> }
    | undefined;

  /** Prepared when first needed: a generation being bulk-loaded builds the view index only at its end. */
  private get s() {
    this.statements ??= {
      load: this.db
        .prepare<[string, number], Row>(
          `select resource_id, post_date, paragraph_id, audience_key from res_views indexed by res_views_in_view
           where view_key = ? and project_id = ?`,
        )
        .raw(true),
      row: this.db
        .prepare<[number, string, number], Row>(
          'select resource_id, post_date, paragraph_id, audience_key from res_views where ' +
            'resource_id = ? and view_key = ? and project_id = ?',
        )
        .raw(true),
    };
    return this.statements;
  }

  constructor(private readonly db: Database.Database) {}

  /** The audience sets of a view that admit a caller: what a search of the view filters its rows by. */
  admittedAudiences(viewKey: string, projectId: number, audience: Audience): string[] {
    return admittedKeys(audience, this.view(viewKey, projectId).audiences.keys());
  }

  /** Feed changes: a changed row is placed again when its view is next read; a whole view or everything, reloaded. */
  changed(change: ScopeChange): void {
    if (change.scope === EVERY_SCOPE) {
      this.views.clear();
      this.entries = 0;
      this.keptDocs.clear();
      return;
    }
    if (!viewOfScope(change.scope)) return;
    const view = this.views.get(change.scope);
    if (!view) return;
    if (change.items === null) this.drop(change.scope, view);
    else for (const id of change.items) view.changed.add(id);
  }

  /** Entries holding their document, oldest first (a Set iterates in insertion order). */
  private readonly keptDocs = new Set<Entry>();

  /**
   * The documents of `ids` (a page of a view, just asked of `admittedIds`), from their entries, or
   * read with `read` and kept there.
   */
  docs(
    viewKey: string,
    projectId: number,
    ids: readonly number[],
    read: (id: number) => ResourceViewRecord | null,
  ): ResourceViewRecord[] {
    const view = this.views.get(readScope.view(viewKey, projectId));
    const docs: ResourceViewRecord[] = [];
    for (const id of ids) {
      const entry = view?.rows.get(id);
      let doc = entry?.doc ?? null;
      if (doc === null) {
        doc = read(id);
        if (doc !== null && entry) this.keep(entry, doc);
      }
      if (doc !== null) docs.push(doc);
    }
    return docs;
  }

  private keep(entry: Entry, doc: ResourceViewRecord): void {
    entry.doc = doc;
    this.keptDocs.add(entry);
    if (this.keptDocs.size <= MAX_KEPT_DOCS) return;
    const oldest = this.keptDocs.values().next().value as Entry;
    oldest.doc = undefined;
    this.keptDocs.delete(oldest);
  }

  /** The ids a caller with `audience` sees in a view, in order: the count is their number, a page a slice of them. */
  admittedIds(
    viewKey: string,
    projectId: number,
    audience: Audience,
    orderBy: 0 | 1,
    paragraphId: number | null,
  ): readonly number[] {
    return this.view(viewKey, projectId).admittedIds(audience, orderBy, paragraphId);
  }

  /**
   * Where the rows after `key` begin among `ids`, a list admittedIds just answered for this view
   * and order: a binary search, so a keyset page costs what an offset page does.
   */
  startAfter(viewKey: string, projectId: number, orderBy: 0 | 1, ids: readonly number[], key: ViewPageKey): number {
    const rows = this.views.get(readScope.view(viewKey, projectId))?.rows;
    let low = 0;
    let high = ids.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const entry = rows?.get(ids[middle] as number);
      if (entry && !isAfter(orderBy, key, { resourceId: entry.id, postDate: entry.postDate })) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  private view(viewKey: string, projectId: number): ViewOrder {
    const scope = readScope.view(viewKey, projectId);
    let view = this.views.get(scope);
    if (view) {
      this.views.delete(scope);
      this.views.set(scope, view);
      if (view.changed.size > 0) {
        const before = view.size;
        for (const id of view.changed) {
          const old = view.rows.get(id);
          if (old) this.keptDocs.delete(old);
          view.replace(id, this.entryOf(this.s.row.get(id, viewKey, projectId)));
        }
        view.changed.clear();
        this.entries += view.size - before;
      }
      return view;
    }
    view = new ViewOrder(this.s.load.all(viewKey, projectId).map((row) => this.entryOf(row) as Entry));
    this.views.set(scope, view);
    this.entries += view.size;
    for (const [oldest, old] of this.views) {
      if (this.entries <= MAX_ENTRIES || oldest === scope) break;
      this.drop(oldest, old);
    }
    return view;
  }

  private drop(scope: string, view: ViewOrder): void {
    this.views.delete(scope);
    this.entries -= view.size;
    for (const entry of view.rows.values()) if (entry.doc) this.keptDocs.delete(entry);
  }

  private entryOf(row: Row | undefined): Entry | null {
    if (!row) return null;
    const [id, postDate, paragraphId, audienceKey] = row;
    return { id, postDate, paragraphId, audienceKey };
  }
}

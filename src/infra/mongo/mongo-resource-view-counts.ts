import type { Document } from 'mongodb';
import type { ViewPageQuery } from '../../resources/resource-view-store';

/**
 * How many views each (view, project, audience set, paragraph) holds: what a list that is not a
 * search counts from, instead of counting the admitted range of the view on every request. Kept
 * by the same writes that replace a resource's views, in the batch's transaction, so a count and
 * the views it counts commit together (the projector leads only on a replica set, see
 * STANDALONE_REFUSAL). Pure functions, so that tests evaluate them without a server.
 */
export const RESOURCE_VIEW_COUNTS = 'resource_view_counts';

/**
 * Where a database records that its counts were built from its views: a read model written
 * before there were counts gets them once, at open. Not one of the read model's collections, so
 * neither a reset nor the digest touches it.
 */
export const READ_MODEL_UPGRADES = 'read_model_upgrades';
export const COUNTS_BUILT = { _id: RESOURCE_VIEW_COUNTS };

/** What a counter is kept per: the fields of a view document a list filters by, bar the searches'. */
export type CountedView = {
  readonly viewKey: string;
  readonly projectId: number;
  readonly audienceKey: string;
  readonly paragraph: number;
};

export type ViewCountDocument = CountedView & { readonly _id: string; readonly n: number };

/** The fields of a view document its counter is read from (what `viewDocument` stores). */
export const COUNTED_VIEW_PROJECTION: Document = { _id: 0, viewKey: 1, projectId: 1, audienceKey: 1, paragraph: 1 };

const countId = (v: CountedView): string => JSON.stringify([v.viewKey, v.projectId, v.audienceKey, v.paragraph]);

/**
 * The change to the counters when a resource's views `before` become `after`: one entry per
 * counter that moves. Replaying a replacement (the same views again) moves none.
 */
export function countChanges(before: readonly CountedView[], after: readonly CountedView[]): Map<string, Counted> {
  const changes = new Map<string, Counted>();
  const add = (view: CountedView, by: number) => {
    const id = countId(view);
    const change = changes.get(id) ?? {
      view: {
        viewKey: view.viewKey,
        projectId: view.projectId,
        audienceKey: view.audienceKey,
        paragraph: view.paragraph,
      },
      by: 0,
    };
    changes.set(id, { view: change.view, by: change.by + by });
  };
  for (const view of before) add(view, -1);
  for (const view of after) add(view, 1);
  for (const [id, change] of changes) if (change.by === 0) changes.delete(id);
  return changes;
}

export type Counted = { readonly view: CountedView; readonly by: number };

/** The `$inc` of one counter, creating it at its first view. */
export function countWrite(id: string, change: Counted): { filter: Document; update: Document } {
  return {
    filter: { _id: id },
    update: { $setOnInsert: { ...change.view }, $inc: { n: change.by } },
  };
}

/** A counter down to no views is removed, so that a live read model and a rebuild of it hold the same documents. */
export const emptyCountFilter = (id: string): Document => ({ _id: id, n: { $lte: 0 } });

/**
 * A list's count from its view's counters: the views of the admitted audience sets (all of them
 * for 'everything') in the asked paragraph (any, when none is asked).
 */
export function countOf(
  q: Pick<ViewPageQuery, 'audience' | 'paragraphId'>,
  counts: readonly ViewCountDocument[],
  keys: readonly string[],
): number {
  const admitted = new Set(keys);
  let total = 0;
  for (const c of counts) {
    if (q.audience.kind !== 'everything' && !admitted.has(c.audienceKey)) continue;
    if (q.paragraphId !== null && c.paragraph !== q.paragraphId) continue;
    total += c.n;
  }
  return total;
}

/** The counters of a set of views, built from scratch: the upgrade of a read model that had none. */
export function countsOf(views: Iterable<CountedView>): ViewCountDocument[] {
  const counts = new Map<string, ViewCountDocument>();
  for (const view of views) {
    const id = countId(view);
    const n = (counts.get(id)?.n ?? 0) + 1;
    counts.set(id, {
      _id: id,
      viewKey: view.viewKey,
      projectId: view.projectId,
      audienceKey: view.audienceKey,
      paragraph: view.paragraph,
      n,
    });
  }
  return [...counts.values()];
}

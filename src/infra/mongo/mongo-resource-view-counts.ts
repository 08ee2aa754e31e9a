import type { Document } from 'mongodb';
import { countId, type Counted, type CountedView } from '../resource-view-counts';

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

export type ViewCountDocument = CountedView & { readonly _id: string; readonly n: number };

/** The fields of a view document its counter is read from (what `viewDocument` stores). */
export const COUNTED_VIEW_PROJECTION: Document = { _id: 0, viewKey: 1, projectId: 1, audienceKey: 1, paragraph: 1 };

/** The `$inc` of one counter, creating it at its first view. */
export function countWrite(id: string, change: Counted): { filter: Document; update: Document } {
  return {
    filter: { _id: id },
    update: { $setOnInsert: { ...change.view }, $inc: { n: change.by } },
  };
}

/** A counter down to no views is removed, so that a live read model and a rebuild of it hold the same documents. */
export const emptyCountFilter = (id: string): Document => ({ _id: id, n: { $lte: 0 } });

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

import type { ViewPageQuery } from '../resources/resource-view-store';

/**
 * How many views each (view, project, audience set, paragraph) holds, for the adapter that keeps
 * counters (MongoDB) so that a list that is not a search reads its count instead of
 * counting the admitted range of its view on every request. Pure functions: the counters' arithmetic
 * is the same whatever stores them.
 */

/** What a counter is kept per: the fields of a view a list filters by, bar the searches'. */
export type CountedView = {
  readonly viewKey: string;
  readonly projectId: number;
  readonly audienceKey: string;
  /** paragraphId with 0 for none, as every adapter keys it. */
  readonly paragraph: number;
};

export type Counted = { readonly view: CountedView; readonly by: number };

/** A counter as a list reads it. */
export type ViewCount = Pick<CountedView, 'audienceKey' | 'paragraph'> & { readonly n: number };

/** One key per counter: JSON of an array, so no two counters' fields give the same key. */
export const countId = (v: CountedView): string => JSON.stringify([v.viewKey, v.projectId, v.audienceKey, v.paragraph]);

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

/**
 * A list's count from its view's counters: the views of the admitted audience sets (all of them
 * for 'everything') in the asked paragraph (any, when none is asked).
 */
export function countOf(
  q: Pick<ViewPageQuery, 'audience' | 'paragraphId'>,
  counts: readonly ViewCount[],
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

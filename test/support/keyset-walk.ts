/**
 * Walks a list page by page after the last item's key while the list changes between pages, and
 * says which items it saw how often: what the keyset pages of every adapter are checked against.
 */

/** A seeded generator: a walk changes the list the same way on every run. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Walk = {
  /** How often each id was seen. */
  readonly seen: ReadonlyMap<number, number>;
  /** Each page's count, with the live total when it was asked. */
  readonly counts: readonly { readonly answered: number; readonly live: number }[];
};

export async function walkWhileChanging<Item, Key>(walk: {
  readonly page: (after: Key | null) => Promise<{ readonly count: number; readonly list: readonly Item[] }>;
  readonly idOf: (item: Item) => number;
  readonly keyOf: (item: Item) => Key;
  /** How many items the list holds now. */
  readonly live: () => number;
  /** Inserts and removes items between two pages. */
  readonly change: () => Promise<void>;
  readonly maxPages?: number;
}): Promise<Walk> {
  const seen = new Map<number, number>();
  const counts: { answered: number; live: number }[] = [];
  let after: Key | null = null;
  for (let pages = 0; pages < (walk.maxPages ?? 200); pages++) {
    const live = walk.live();
    const page = await walk.page(after);
    counts.push({ answered: page.count, live });
    for (const item of page.list) seen.set(walk.idOf(item), (seen.get(walk.idOf(item)) ?? 0) + 1);
    const last = page.list.at(-1);
    if (last === undefined) return { seen, counts };
    after = walk.keyOf(last);
    await walk.change();
  }
  throw new Error('the walk did not reach the end of the list');
}

/** The ids among `stayed` seen other than once, and the ids seen more than once: both empty for a sound walk. */
export function walkFaults(walk: Walk, stayed: Iterable<number>): { missedOrRepeated: number[]; repeated: number[] } {
  return {
    missedOrRepeated: [...stayed].filter((id) => walk.seen.get(id) !== 1),
    repeated: [...walk.seen].filter(([, n]) => n > 1).map(([id]) => id),
  };
}

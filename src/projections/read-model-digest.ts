import { createHash } from 'node:crypto';
import type { ReadStore } from '../infra/read-store/read-store';
import type { Projection } from './projection';

/** Serialises with sorted keys so that equal documents hash equally whatever their key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * A fingerprint of every read model: operators compare the live one with a fresh rebuild from
 * the event log to prove the projections lost nothing.
 */
export async function readModelDigest(
  store: ReadStore,
  projections: readonly Projection[],
): Promise<{ digest: string; counts: Record<string, number> }> {
  const hash = createHash('sha256');
  const counts: Record<string, number> = {};
  for (const name of projections.flatMap((p) => p.collections).sort()) {
    const docs = await store.collection(name).find({}, { sort: { _id: 1 } });
    counts[name] = docs.length;
    hash.update(name);
    for (const doc of docs) hash.update(canonical(doc));
  }
  return { digest: hash.digest('hex'), counts };
}

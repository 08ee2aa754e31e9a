import { createHash } from 'node:crypto';
import type { ReadModelDigest } from './read-model-projection';

/** Serialises with sorted keys so that equal rows hash equally whatever their key order. */
export function canonical(value: unknown): string {
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** One hash over named sets of rows, each set already in a stable order. */
export function canonicalDigest(sets: readonly { name: string; rows: readonly unknown[] }[]): ReadModelDigest {
  const hash = createHash('sha256');
  const counts: Record<string, number> = {};
  for (const set of [...sets].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    counts[set.name] = set.rows.length;
    hash.update(set.name);
    for (const row of set.rows) hash.update(canonical(row));
  }
  return { digest: hash.digest('hex'), counts };
}

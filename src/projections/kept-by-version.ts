import { LRUCache } from 'lru-cache';

/**
 * Values by key, each kept with the version of what it was read from and served only while that
 * version stands (a change moves the version: nothing older is served again). Least recently used
 * first out past `max` (lru-cache). Shared by the read-snapshot memo, the directory's kept facts and the API
 * keys' checks.
 */
export class KeptByVersion<K extends number | string, T> {
  private readonly kept: LRUCache<K, { readonly version: string; readonly value: T }>;

  constructor(max: number) {
    this.kept = new LRUCache({ max });
  }

  /** The value kept for `key` at `version`; undefined when none is, or it was read at another version. */
  get(key: K, version: string): T | undefined {
    const kept = this.kept.get(key);
    return kept?.version === version ? kept.value : undefined;
  }

  set(key: K, version: string, value: T): void {
    this.kept.set(key, { version, value });
  }
}

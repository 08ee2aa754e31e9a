import { EVENT_CATALOG } from './event-catalog';

/**
 * Reading an old event as the current code knows it: its stored version (metadata
 * `schemaVersion`, absent = 1) is lifted one upcaster at a time to the current one. Events of a
 * type the catalog does not know, and events already current, come back as they are (the same
 * object). An event stored by a newer version of the service than this one is also left as it is:
 * event changes are additive until every process reads the new version (see the docs).
 */
export const SCHEMA_VERSION = 'schemaVersion';

export function storedVersionOf(metadata: unknown): number {
  const version = (metadata as Record<string, unknown> | null | undefined)?.[SCHEMA_VERSION];
  return typeof version === 'number' && Number.isInteger(version) && version >= 1 ? version : 1;
}

export function upcastData(type: string, data: unknown, storedVersion: number): unknown {
  const upcasters = EVENT_CATALOG.get(type)?.upcasters;
  if (!upcasters || storedVersion > upcasters.length) return data;
  let lifted = data;
  for (let version = storedVersion; version <= upcasters.length; version += 1) {
    lifted = (upcasters[version - 1] as (data: unknown) => unknown)(lifted);
  }
  return lifted;
}

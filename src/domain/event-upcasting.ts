import type { z } from 'zod';

/** Lifts the data of version n to version n + 1. Pure: no clock, no I/O, nothing but the data. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an upcaster reads an older shape than any type here
export type Upcaster = (data: any) => unknown;

export type EventDefinition = {
  /** The data of the current version. */
  readonly schema: z.ZodType;
  /** upcasters[i] lifts version i + 1 to version i + 2. */
  readonly upcasters: readonly Upcaster[];
};

/** Every event type the log stores, by type (the service's list: src/app/event-catalog.ts). */
export type EventCatalog = ReadonlyMap<string, EventDefinition>;

/** The version an event of this type is written at now; 1 for a type the catalog does not know. */
export function currentVersionOf(catalog: EventCatalog, type: string): number {
  return (catalog.get(type)?.upcasters.length ?? 0) + 1;
}

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

export function upcastData(catalog: EventCatalog, type: string, data: unknown, storedVersion: number): unknown {
  const upcasters = catalog.get(type)?.upcasters;
  if (!upcasters || storedVersion > upcasters.length) return data;
  let lifted = data;
  for (let version = storedVersion; version <= upcasters.length; version += 1) {
    lifted = (upcasters[version - 1] as (data: unknown) => unknown)(lifted);
  }
  return lifted;
}

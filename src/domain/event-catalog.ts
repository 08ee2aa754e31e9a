import { z } from 'zod';
import { API_KEY_EVENT_SCHEMAS } from './apikey/api-key-event-schemas';
import { directoryEventSchema } from './directory/directory-events';
import { FILE_EVENT_SCHEMAS } from './files/file-event-schemas';
import { RESOURCE_EVENT_SCHEMAS } from './resource/resource-event-schemas';
import { resourceSharedV1ToV2 } from './resource/resource-shared-upcasters';

/**
 * Every event type the log stores, with the schema of its current version and the upcasters that
 * lift each older version one step (docs/architecture.md "How to change an event"). The current
 * version of a type is its number of upcasters plus one; an event stored without a version (all
 * before issue 27) is version 1.
 */

/** Lifts the data of version n to version n + 1. Pure: no clock, no I/O, nothing but the data. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each step has its own input type
export type Upcaster = (data: any) => unknown;

export type EventDefinition = {
  /** The data of the current version. */
  readonly schema: z.ZodType;
  /** upcasters[i] lifts version i + 1 to version i + 2. */
  readonly upcasters: readonly Upcaster[];
};

const current = (schema: z.ZodType, ...upcasters: Upcaster[]): EventDefinition => ({ schema, upcasters });

const directoryDefinitions = Object.fromEntries(
  directoryEventSchema.options.map((option) => [option.shape.type.value, current(option.shape.data)]),
);

export const EVENT_CATALOG: ReadonlyMap<string, EventDefinition> = new Map(
  Object.entries({
    ...directoryDefinitions,
    ...Object.fromEntries(Object.entries(RESOURCE_EVENT_SCHEMAS).map(([type, schema]) => [type, current(schema)])),
    ResourceShared: current(RESOURCE_EVENT_SCHEMAS.ResourceShared, resourceSharedV1ToV2),
    ...Object.fromEntries(Object.entries(API_KEY_EVENT_SCHEMAS).map(([type, schema]) => [type, current(schema)])),
    ...Object.fromEntries(Object.entries(FILE_EVENT_SCHEMAS).map(([type, schema]) => [type, current(schema)])),
    IdAllocated: current(z.strictObject({ id: z.number().int().positive() })),
    AuditRead: current(z.strictObject({ route: z.string().min(1), params: z.record(z.string(), z.unknown()) })),
  }),
);

/** The version an event of this type is written at now; 1 for a type the catalog does not know. */
export function currentVersionOf(type: string): number {
  return (EVENT_CATALOG.get(type)?.upcasters.length ?? 0) + 1;
}

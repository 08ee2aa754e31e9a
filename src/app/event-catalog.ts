import { z } from 'zod';
import type { EventCatalog, EventDefinition, Upcaster } from '../domain/event-upcasting';
import { API_KEY_EVENT_SCHEMAS } from '../api-keys/api-key-event-schemas';
import { apiKeyCreatedV1ToV2 } from '../api-keys/api-key-created-upcasters';
import { directoryEventSchema } from '../directory/directory-events';
import { FILE_EVENT_SCHEMAS } from '../files/file-event-schemas';
import { RESOURCE_EVENT_SCHEMAS } from '../resources/resource-event-schemas';
import { PERSONAL_DATA_EVENT_SCHEMAS } from '../audit/personal-data-events';
import { resourceSharedV1ToV2 } from '../resources/resource-shared-upcasters';
import { PARKED_DECISION_EVENT_SCHEMAS } from './parked-event-decisions';

/**
 * Every event type the log stores, with the schema of its current version and the upcasters that
 * lift each older version one step (docs/architecture.md "How to change an event"). The current
 * version of a type is its number of upcasters plus one; an event stored without a version (all
 * written before events carried a schema version) is version 1.
 */

const current = (schema: z.ZodType, ...upcasters: Upcaster[]): EventDefinition => ({ schema, upcasters });

const directoryDefinitions = Object.fromEntries(
  directoryEventSchema.options.map((option) => [option.shape.type.value, current(option.shape.data)]),
);

export const EVENT_CATALOG: EventCatalog = new Map(
  Object.entries({
    ...directoryDefinitions,
    ...Object.fromEntries(Object.entries(RESOURCE_EVENT_SCHEMAS).map(([type, schema]) => [type, current(schema)])),
    ResourceShared: current(RESOURCE_EVENT_SCHEMAS.ResourceShared, resourceSharedV1ToV2),
    ...Object.fromEntries(Object.entries(API_KEY_EVENT_SCHEMAS).map(([type, schema]) => [type, current(schema)])),
    ApiKeyCreated: current(API_KEY_EVENT_SCHEMAS.ApiKeyCreated, apiKeyCreatedV1ToV2),
    ...Object.fromEntries(Object.entries(FILE_EVENT_SCHEMAS).map(([type, schema]) => [type, current(schema)])),
    PersonalDataErased: current(PERSONAL_DATA_EVENT_SCHEMAS.PersonalDataErased),
    IdAllocated: current(z.strictObject({ id: z.number().int().positive() })),
    ...Object.fromEntries(
      Object.entries(PARKED_DECISION_EVENT_SCHEMAS).map(([type, schema]) => [type, current(schema)]),
    ),
    AuditRead: current(z.strictObject({ route: z.string().min(1), params: z.record(z.string(), z.unknown()) })),
  }),
);

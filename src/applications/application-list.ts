import { z } from 'zod';
import { component, count, integer, isoTimestamp } from '../contract/primitives';

/**
 * docs/api.md's paginated example answer (SPEC "Paginated endpoints"), stated once: built by
 * src/applications/application-queries.ts, documented and checked by the API. See
 * resource-record.ts for why it lives in this module.
 */

const filterValues = z.array(z.string()).nullable();

/**
 * SPEC: keys applicationTags ... applicationUserInterests, each may be null. Decision: the service
 * answers `[]` for a field no application has a value for, never null.
 */
export const applicationDefinitionFiltersSchema = component('ApplicationDefinitionFilters', {
  applicationTags: filterValues,
  applicationCountries: filterValues,
  applicationStages: filterValues,
  applicationIndustries: filterValues,
  applicationSDGs: filterValues,
  applicationUserInterests: filterValues,
});

export type ApplicationDefinitionFilters = z.output<typeof applicationDefinitionFiltersSchema>;

/**
 * SPEC: "each carrying at least id (integer) and applicationDefinitionName (string)"; the other
 * fields are "not shown" there and are this service's choice, listed so that the item is strict.
 */
export const applicationItemSchema = component('ApplicationItem', {
  id: integer,
  applicationDefinitionId: integer,
  applicationDefinitionName: z.string(),
  name: z.string(),
  submittedAt: isoTimestamp,
  tags: z.array(z.string()),
  country: z.string().nullable(),
  stage: z.string().nullable(),
  industry: z.string().nullable(),
  sdgs: z.array(z.string()),
  userInterests: z.array(z.string()),
});

export type ApplicationItem = z.output<typeof applicationItemSchema>;

export const applicationListSchema = component('ApplicationList', {
  applicationDefinitionFilters: applicationDefinitionFiltersSchema,
  count,
  list: z.array(applicationItemSchema),
  /** SPEC's `filters` (object or null): this endpoint applies no request filters, so it answers null. */
  filters: z.record(z.string(), z.unknown()).nullable(),
});

export type ApplicationListAnswer = z.output<typeof applicationListSchema>;

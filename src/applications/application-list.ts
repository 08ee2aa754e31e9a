import { z } from 'zod';
import { component, count, integer, isoTimestamp } from '../contract/primitives';
import { nextCursorSchema } from '../api/pagination';

/**
 * docs/api.md's paginated example answer ("Lists and pagination"), stated once: built by
 * src/applications/application-queries.ts, documented and checked by the API. See
 * resource-record.ts for why it lives in this module.
 */

const filterValues = (what: string, example: string[]) =>
  z
    .array(z.string())
    .nullable()
    .meta({ description: `Every ${what} the definition's applications carry, sorted; \`[]\` when none`, example });

const solarKiosk = {
  id: 700,
  applicationDefinitionId: 70,
  applicationDefinitionName: 'Spring Accelerator 2026',
  name: 'Solar Kiosk',
  submittedAt: '2026-03-01T10:00:00.000Z',
  tags: ['energy', 'hardware'],
  country: 'Kenya',
  stage: 'prototype',
  industry: 'energy',
  sdgs: ['7', '13'],
  userInterests: ['solar'],
};
const filtersExample = {
  applicationTags: ['energy', 'hardware'],
  applicationCountries: ['Kenya'],
  applicationStages: ['prototype'],
  applicationIndustries: ['energy'],
  applicationSDGs: ['13', '7'],
  applicationUserInterests: ['solar'],
};

/**
 * The contract lets applicationTags ... applicationUserInterests each be null. Decision: the service
 * answers `[]` for a field no application has a value for, never null.
 */
export const applicationDefinitionFiltersSchema = component(
  'ApplicationDefinitionFilters',
  {
    applicationTags: filterValues('tag', filtersExample.applicationTags),
    applicationCountries: filterValues('country', filtersExample.applicationCountries),
    applicationStages: filterValues('stage', filtersExample.applicationStages),
    applicationIndustries: filterValues('industry', filtersExample.applicationIndustries),
    applicationSDGs: filterValues('sustainable development goal', filtersExample.applicationSDGs),
    applicationUserInterests: filterValues('user interest', filtersExample.applicationUserInterests),
  },
  { description: 'The values a client can filter the applications by', example: filtersExample },
);

export type ApplicationDefinitionFilters = z.output<typeof applicationDefinitionFiltersSchema>;

/**
 * The contract asks of each item at least id (integer) and applicationDefinitionName (string); the
 * other fields are this service's choice, listed so that the item is strict.
 */
export const applicationItemSchema = component(
  'ApplicationItem',
  {
    id: integer.meta({ description: 'The application', example: solarKiosk.id }),
    applicationDefinitionId: integer.meta({ description: 'Its definition', example: 70 }),
    applicationDefinitionName: z
      .string()
      .meta({ description: "The definition's name", example: 'Spring Accelerator 2026' }),
    name: z.string().meta({ description: "The application's name", example: solarKiosk.name }),
    submittedAt: isoTimestamp.meta({ description: 'When it was submitted', example: solarKiosk.submittedAt }),
    tags: z.array(z.string()).meta({ description: 'Its tags', example: solarKiosk.tags }),
    country: z.string().nullable().meta({ description: 'Its country, or null', example: 'Kenya' }),
    stage: z.string().nullable().meta({ description: 'Its stage, or null', example: 'prototype' }),
    industry: z.string().nullable().meta({ description: 'Its industry, or null', example: 'energy' }),
    sdgs: z
      .array(z.string())
      .meta({ description: 'The sustainable development goals it names', example: solarKiosk.sdgs }),
    userInterests: z.array(z.string()).meta({ description: 'Its user interests', example: solarKiosk.userInterests }),
  },
  { example: solarKiosk },
);

export type ApplicationItem = z.output<typeof applicationItemSchema>;

export const applicationListSchema = component(
  'ApplicationList',
  {
    applicationDefinitionFilters: applicationDefinitionFiltersSchema,
    count: count.meta({ description: 'How many applications the definition has, whatever the page', example: 3 }),
    list: z.array(applicationItemSchema).meta({ description: 'The page, in `orderBy` order', example: [solarKiosk] }),
    nextCursor: nextCursorSchema,
    /** `filters` (object or null by the contract): this endpoint applies no request filters, so it answers null. */
    filters: z
      .record(z.string(), z.unknown())
      .nullable()
      .meta({ description: 'The request filters applied: none, so always null', example: null }),
  },
  {
    example: {
      applicationDefinitionFilters: filtersExample,
      count: 3,
      list: [solarKiosk],
      nextCursor: null,
      filters: null,
    },
  },
);

export type ApplicationListAnswer = z.output<typeof applicationListSchema>;

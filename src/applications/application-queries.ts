import type { ApplicationDefinitionFilters, ApplicationItem, ApplicationListAnswer } from './application-list';
import type { PageRequest } from '../projections/paging';
import type {
  ApplicationFilterField,
  ApplicationOrder,
  ApplicationRecord,
  ApplicationStore,
} from './application-store';

export type { ApplicationOrder } from './application-store';

/** What the rules need to know about an application definition: its name and owning community. */
export type ApplicationDefinitionFacts = {
  readonly applicationDefinitionId: number;
  readonly name: string;
  readonly communityId: number;
};

/** Filter key of the answer -> field of the application record. */
const FILTER_FIELDS: Record<keyof ApplicationDefinitionFilters, ApplicationFilterField> = {
  applicationTags: 'tags',
  applicationCountries: 'country',
  applicationStages: 'stage',
  applicationIndustries: 'industry',
  applicationSDGs: 'sdgs',
  applicationUserInterests: 'userInterests',
};

export async function applicationDefinition(
  store: ApplicationStore,
  applicationDefinitionId: number,
): Promise<ApplicationDefinitionFacts | null> {
  const record = await store.definition(applicationDefinitionId);
  return record
    ? { applicationDefinitionId: record.applicationDefinitionId, name: record.name, communityId: record.communityId }
    : null;
}

/**
 * One page of a definition's applications, its total, and the values its filters can take: per
 * filterable field the values present among the definition's applications, distinct and sorted
 * ascending. Decision: a field no application has a value for answers `[]`, never null (docs/api.md
 * allows null; an always-present array spares clients a null check). Null values (e.g. an
 * application without an industry) are not listed.
 */
export async function listApplications(
  store: ApplicationStore,
  definition: ApplicationDefinitionFacts,
  query: { orderBy: ApplicationOrder; page: PageRequest },
): Promise<ApplicationListAnswer> {
  const [page, values] = await Promise.all([
    store.page(definition.applicationDefinitionId, query.orderBy, query.page),
    store.filterValues(definition.applicationDefinitionId),
  ]);
  const keys = Object.keys(FILTER_FIELDS) as (keyof ApplicationDefinitionFilters)[];
  const applicationDefinitionFilters = Object.fromEntries(
    keys.map((key) => [key, values[FILTER_FIELDS[key]]]),
  ) as ApplicationDefinitionFilters;
  return {
    applicationDefinitionFilters,
    count: page.count,
    list: page.list.map((record) => toItem(record, definition)),
    filters: null,
  };
}

function toItem(doc: ApplicationRecord, definition: ApplicationDefinitionFacts): ApplicationItem {
  return {
    id: doc.applicationId,
    applicationDefinitionId: doc.applicationDefinitionId,
    applicationDefinitionName: definition.name,
    name: doc.name,
    submittedAt: doc.submittedAt,
    tags: [...doc.tags],
    country: doc.country,
    stage: doc.stage,
    industry: doc.industry,
    sdgs: [...doc.sdgs],
    userInterests: [...doc.userInterests],
  };
}

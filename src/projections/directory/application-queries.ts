import type { PageRequest, PageResponse } from '../paging';
import { readPage } from '../paging';
import type { ReadStore, Sort } from '../../infra/read-store/read-store';
import type { ApplicationDefinitionDoc, ApplicationDoc } from './directory-collections';
import { DIR } from './directory-collections';

/** What the rules need to know about an application definition: its name and owning community. */
export type ApplicationDefinitionFacts = {
  readonly applicationDefinitionId: number;
  readonly name: string;
  readonly communityId: number;
};

/** One application as POST /api/ApplicationDefinition/{id}/Applications lists it. */
export type ApplicationItem = {
  id: number;
  applicationDefinitionId: number;
  applicationDefinitionName: string;
  name: string;
  submittedAt: string;
  tags: string[];
  country: string | null;
  stage: string | null;
  industry: string | null;
  sdgs: string[];
  userInterests: string[];
};

/**
 * The values present among a definition's applications, one list per filterable field, each
 * distinct and sorted ascending. Decision: a field no application has a value for answers `[]`,
 * never null (SPEC.md allows null; an always-present array spares clients a null check). Null
 * values (e.g. an application without an industry) are not listed.
 */
export type ApplicationDefinitionFilters = {
  applicationTags: string[];
  applicationCountries: string[];
  applicationStages: string[];
  applicationIndustries: string[];
  applicationSDGs: string[];
  applicationUserInterests: string[];
};

export type ApplicationListAnswer = PageResponse<ApplicationItem> & {
  applicationDefinitionFilters: ApplicationDefinitionFilters;
  /** SPEC.md's `filters` (object or null): this endpoint applies no request filters, so null. */
  filters: null;
};

export type ApplicationOrder = 0 | 1;

/** 0: applicationId ascending; 1: submittedAt descending, then applicationId descending. */
const ORDER: Record<ApplicationOrder, Sort> = {
  0: { applicationId: 1 },
  1: { submittedAt: -1, applicationId: -1 },
};

/** Filter key of the answer -> field of the application document. */
const FILTER_FIELDS: Record<keyof ApplicationDefinitionFilters, keyof ApplicationDoc & string> = {
  applicationTags: 'tags',
  applicationCountries: 'country',
  applicationStages: 'stage',
  applicationIndustries: 'industry',
  applicationSDGs: 'sdgs',
  applicationUserInterests: 'userInterests',
};

export async function applicationDefinition(
  store: ReadStore,
  applicationDefinitionId: number,
): Promise<ApplicationDefinitionFacts | null> {
  const doc = await store
    .collection<ApplicationDefinitionDoc>(DIR.applicationDefinitions)
    .findOne({ _id: `ad:${applicationDefinitionId}` });
  return doc ? { applicationDefinitionId: doc.applicationDefinitionId, name: doc.name, communityId: doc.communityId } : null;
}

/** One page of a definition's applications, its total, and the values its filters can take. */
export async function listApplications(
  store: ReadStore,
  definition: ApplicationDefinitionFacts,
  query: { orderBy: ApplicationOrder; page: PageRequest },
): Promise<ApplicationListAnswer> {
  const applications = store.collection<ApplicationDoc>(DIR.applications);
  const filter = { applicationDefinitionId: definition.applicationDefinitionId };
  const keys = Object.keys(FILTER_FIELDS) as (keyof ApplicationDefinitionFilters)[];
  const [page, ...values] = await Promise.all([
    readPage(applications, filter, ORDER[query.orderBy], query.page),
    ...keys.map((key) => applications.distinct(FILTER_FIELDS[key], filter)),
  ]);
  const applicationDefinitionFilters = Object.fromEntries(
    keys.map((key, i) => [key, (values[i] ?? []).filter((v): v is string => typeof v === 'string')]),
  ) as ApplicationDefinitionFilters;
  return {
    applicationDefinitionFilters,
    count: page.count,
    list: page.list.map((doc) => toItem(doc, definition)),
    filters: null,
  };
}

function toItem(doc: ApplicationDoc, definition: ApplicationDefinitionFacts): ApplicationItem {
  return {
    id: doc.applicationId,
    applicationDefinitionId: doc.applicationDefinitionId,
    applicationDefinitionName: definition.name,
    name: doc.name,
    submittedAt: doc.submittedAt,
    tags: doc.tags,
    country: doc.country,
    stage: doc.stage,
    industry: doc.industry,
    sdgs: doc.sdgs,
    userInterests: doc.userInterests,
  };
}

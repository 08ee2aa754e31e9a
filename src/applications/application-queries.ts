import type { ApplicationDefinitionFilters, ApplicationItem, ApplicationListAnswer } from './application-list';
import type { PageRequest, PageResponse } from '../projections/paging';
import { indexOf, orderKeyOf, type DocumentStore, type Scalar } from '../projections/document-store';
import type { ProjectionStore } from '../projections/read-model-projection';
import {
  APPLICATIONS,
  APPLICATIONS_READ_MODEL,
  DEFINITIONS,
  type ApplicationDefinitionRecord,
  type ApplicationRecord,
} from './application-projection';

/** The fields a definition's applications can be filtered by: the answer lists their values. */
export const APPLICATION_FILTER_FIELDS = ['tags', 'country', 'stage', 'industry', 'sdgs', 'userInterests'] as const;
export type ApplicationFilterField = (typeof APPLICATION_FILTER_FIELDS)[number];

/** 0: applicationId ascending; 1: submittedAt descending, then applicationId descending. */
export type ApplicationOrder = 0 | 1;

/** What the applications read model answers, read through the document store on its declared indexes. */
export type ApplicationStore = {
  readonly projectionStore: ProjectionStore;
  definition(applicationDefinitionId: number): Promise<ApplicationDefinitionRecord | null>;
  /** `after`: keyset paging, the page starts after the application with this sort key (applicationSortKey). */
  page(
    applicationDefinitionId: number,
    orderBy: ApplicationOrder,
    page: PageRequest,
    after?: readonly Scalar[] | null,
  ): Promise<PageResponse<ApplicationRecord>>;
  /** Distinct non-null values of each filter field among a definition's applications, ascending. */
  filterValues(applicationDefinitionId: number): Promise<Record<ApplicationFilterField, string[]>>;
};

const INDEX_OF_ORDER = { 0: 'by_definition', 1: 'by_recent' } as const;

/** An application's place in `orderBy`: (submittedAt, id) submitted last first, the id alone by id. */
export const applicationSortKey = (orderBy: ApplicationOrder, record: ApplicationRecord): Scalar[] =>
  orderKeyOf(indexOf(APPLICATIONS_READ_MODEL.collections, APPLICATIONS, INDEX_OF_ORDER[orderBy]), record);

export function applicationStore(documents: DocumentStore): ApplicationStore {
  return {
    projectionStore: documents.projectionStore,
    definition: async (id) => (await documents.get(DEFINITIONS, id)) as ApplicationDefinitionRecord | null,
    page: async (applicationDefinitionId, orderBy, page, after) =>
      (await documents.page(APPLICATIONS, {
        index: INDEX_OF_ORDER[orderBy],
        equal: [applicationDefinitionId],
        page,
        after,
      })) as unknown as PageResponse<ApplicationRecord>,
    filterValues: async (applicationDefinitionId) => {
      const values = await Promise.all(
        APPLICATION_FILTER_FIELDS.map((field) => documents.distinct(APPLICATIONS, field, { applicationDefinitionId })),
      );
      return Object.fromEntries(APPLICATION_FILTER_FIELDS.map((field, i) => [field, values[i]])) as Record<
        ApplicationFilterField,
        string[]
      >;
    },
  };
}

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
  query: { orderBy: ApplicationOrder; page: PageRequest; after: readonly Scalar[] | null },
  cursorAfter: (key: readonly Scalar[]) => string,
): Promise<ApplicationListAnswer> {
  const { take } = query.page;
  const [page, values] = await Promise.all([
    // One more than asked: whether another page follows, so the last page says so (nextCursor null).
    store.page(
      definition.applicationDefinitionId,
      query.orderBy,
      { skip: query.page.skip, take: take === 0 ? 0 : take + 1 },
      query.after,
    ),
    store.filterValues(definition.applicationDefinitionId),
  ]);
  const more = page.list.length > take;
  const list = more ? page.list.slice(0, take) : page.list;
  const last = list.at(-1);
  const keys = Object.keys(FILTER_FIELDS) as (keyof ApplicationDefinitionFilters)[];
  const applicationDefinitionFilters = Object.fromEntries(
    keys.map((key) => [key, values[FILTER_FIELDS[key]]]),
  ) as ApplicationDefinitionFilters;
  return {
    applicationDefinitionFilters,
    count: page.count,
    list: list.map((record) => toItem(record, definition)),
    nextCursor: more && last ? cursorAfter(applicationSortKey(query.orderBy, last)) : null,
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

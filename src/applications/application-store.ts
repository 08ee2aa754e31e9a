import type { ProjectionStore } from '../projections/read-model-projection';
import type { PageRequest, PageResponse } from '../projections/paging';

export type ApplicationDefinitionRecord = {
  readonly applicationDefinitionId: number;
  readonly name: string;
  readonly communityId: number;
};

export type ApplicationRecord = {
  readonly applicationId: number;
  readonly applicationDefinitionId: number;
  readonly name: string;
  /** Normalised to UTC with milliseconds, so that ordering by the string is ordering by time. */
  readonly submittedAt: string;
  readonly tags: readonly string[];
  readonly country: string | null;
  readonly stage: string | null;
  readonly industry: string | null;
  readonly sdgs: readonly string[];
  readonly userInterests: readonly string[];
};

/** The fields a definition's applications can be filtered by: the answer lists their values. */
export const APPLICATION_FILTER_FIELDS = ['tags', 'country', 'stage', 'industry', 'sdgs', 'userInterests'] as const;
export type ApplicationFilterField = (typeof APPLICATION_FILTER_FIELDS)[number];

/** 0: applicationId ascending; 1: submittedAt descending, then applicationId descending. */
export type ApplicationOrder = 0 | 1;

/** The applications read model, fed by the directory feed. */
export interface ApplicationStore {
  readonly projectionStore: ProjectionStore;
  definition(applicationDefinitionId: number): Promise<ApplicationDefinitionRecord | null>;
  page(
    applicationDefinitionId: number,
    orderBy: ApplicationOrder,
    page: PageRequest,
  ): Promise<PageResponse<ApplicationRecord>>;
  /** Distinct non-null values of each filter field among a definition's applications, ascending. */
  filterValues(applicationDefinitionId: number): Promise<Record<ApplicationFilterField, string[]>>;
  putDefinition(definition: ApplicationDefinitionRecord, position: bigint): Promise<void>;
  putApplication(application: ApplicationRecord, position: bigint): Promise<void>;
}

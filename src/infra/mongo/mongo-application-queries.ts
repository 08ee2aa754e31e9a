import type { Document, IndexDescription } from 'mongodb';
import type {
  ApplicationDefinitionRecord,
  ApplicationFilterField,
  ApplicationOrder,
  ApplicationRecord,
} from '../../applications/application-store';
import { APPLICATION_FILTER_FIELDS } from '../../applications/application-store';
import { guardedUpsert, type GuardedUpsert, type SortOrder } from './mongo-guarded-write';

/**
 * The documents and queries of the MongoDB applications read model, as pure functions so that
 * tests evaluate them without a server. Each document is the record, flat, plus `position`.
 */

export const APP_DEFINITIONS = 'app_definitions';
export const APP_APPLICATIONS = 'app_applications';
export const APPLICATION_COLLECTIONS: readonly string[] = [APP_DEFINITIONS, APP_APPLICATIONS];

/**
 * Setting every field replaces the record: the feed's schema is strict and names every field
 * (the optional ones as null), as the SQLite adapter replaces its JSON.
 */
export const definitionWrite = (definition: ApplicationDefinitionRecord, position: bigint): GuardedUpsert =>
  guardedUpsert(definition.applicationDefinitionId, position, { ...definition });

export const applicationWrite = (application: ApplicationRecord, position: bigint): GuardedUpsert =>
  guardedUpsert(application.applicationId, position, { ...application });

export const RECORD_PROJECTION: Document = { _id: 0, position: 0 };

export const applicationsOfDefinition = (applicationDefinitionId: number): Document => ({ applicationDefinitionId });

export function applicationSort(orderBy: ApplicationOrder): SortOrder {
  return orderBy === 0 ? { applicationId: 1 } : { submittedAt: -1, applicationId: -1 };
}

/** The answer of `filterValues` from each field's `distinct` (arrays contribute their elements). */
export function filterValuesOf(
  distinct: Readonly<Record<ApplicationFilterField, readonly unknown[]>>,
): Record<ApplicationFilterField, string[]> {
  return Object.fromEntries(
    APPLICATION_FILTER_FIELDS.map((field) => [
      field,
      [...new Set(distinct[field].filter((v): v is string => typeof v === 'string'))].sort(compareStrings),
    ]),
  ) as Record<ApplicationFilterField, string[]>;
}

export const APPLICATION_INDEXES: readonly IndexDescription[] = [
  { name: 'by_definition', key: { applicationDefinitionId: 1, applicationId: 1 } },
  { name: 'by_recent', key: { applicationDefinitionId: 1, submittedAt: -1, applicationId: -1 } },
];

/** Code-unit order, as the SQLite adapter sorts (and MongoDB compares strings, binary). */
function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

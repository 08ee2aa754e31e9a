import type { DirectoryEvent } from '../directory/directory-events';
import { DIRECTORY_STREAM } from '../directory/directory-events';
import type { CollectionDeclaration, Document, DocumentReadModel } from '../projections/document-store';

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

type ApplicationEvent = Extract<DirectoryEvent, { type: 'ApplicationDefinitionUpserted' | 'ApplicationUpserted' }>;

export const DEFINITIONS = 'app_definitions';
export const APPLICATIONS = 'app_applications';

/** A definition's applications by id ascending (orderBy 0), or submitted last first, then id descending (orderBy 1). */
const COLLECTIONS: readonly CollectionDeclaration[] = [
  { name: DEFINITIONS, indexes: {} },
  {
    name: APPLICATIONS,
    indexes: {
      by_definition: { equal: ['applicationDefinitionId'], order: [['applicationId', 1]] },
      by_recent: {
        equal: ['applicationDefinitionId'],
        order: [
          ['submittedAt', -1],
          ['applicationId', -1],
        ],
      },
    },
  },
];

/**
 * The applications read model, fed by the directory feed: one document per definition and per
 * application, each replaced whole by its upsert (the feed's schema names every field).
 */
export const APPLICATIONS_READ_MODEL: DocumentReadModel<ApplicationEvent> = {
  /**
   * Not 'applications': that checkpoint counted the rows of the tables before the documents, which
   * these collections do not hold. Under a name of its own the projection finds no checkpoint in a
   * read database written before them and folds the log from its start into them.
   */
  name: 'application-documents',
  canHandle: {
    types: new Set<ApplicationEvent['type']>(['ApplicationDefinitionUpserted', 'ApplicationUpserted']),
    streams: (streamId) => streamId === DIRECTORY_STREAM,
  },
  collections: COLLECTIONS,
  documentsOf: (event) =>
    event.type === 'ApplicationDefinitionUpserted'
      ? [{ collection: DEFINITIONS, id: event.data.applicationDefinitionId }]
      : [{ collection: APPLICATIONS, id: event.data.applicationId }],
  evolve: (_collection, _document, event): Document =>
    event.type === 'ApplicationDefinitionUpserted'
      ? ({ ...event.data } satisfies ApplicationDefinitionRecord)
      : ({ ...event.data, submittedAt: new Date(event.data.submittedAt).toISOString() } satisfies ApplicationRecord),
};

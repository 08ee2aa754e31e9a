import type { Collection, Document } from 'mongodb';
import type {
  ApplicationDefinitionRecord,
  ApplicationFilterField,
  ApplicationOrder,
  ApplicationRecord,
  ApplicationStore,
} from '../../applications/application-store';
import { APPLICATION_FILTER_FIELDS } from '../../applications/application-store';
import type { PageRequest, PageResponse } from '../../projections/paging';
import type { ProjectionStore } from '../../projections/read-model-projection';
import {
  APPLICATION_COLLECTIONS,
  APPLICATION_INDEXES,
  APP_APPLICATIONS,
  APP_DEFINITIONS,
  RECORD_PROJECTION,
  applicationSort,
  applicationWrite,
  applicationsOfDefinition,
  definitionWrite,
  filterValuesOf,
} from './mongo-application-queries';
import { applyGuardedUpsert, byId } from './mongo-guarded-write';
import { mongoProjectionStore, type MongoReadDb } from './mongo-read-db';

/** The production applications read model: the same answers as SqliteApplicationStore. */
export class MongoApplicationStore implements ApplicationStore {
  readonly projectionStore: ProjectionStore;
  private readonly definitions: Collection<Document>;
  private readonly applications: Collection<Document>;

  private constructor(private readonly read: MongoReadDb) {
    this.projectionStore = mongoProjectionStore(read, APPLICATION_COLLECTIONS);
    this.definitions = read.db.collection(APP_DEFINITIONS);
    this.applications = read.db.collection(APP_APPLICATIONS);
  }

  static async open(read: MongoReadDb): Promise<MongoApplicationStore> {
    await read.db.collection(APP_APPLICATIONS).createIndexes([...APPLICATION_INDEXES]);
    return new MongoApplicationStore(read);
  }

  async definition(applicationDefinitionId: number): Promise<ApplicationDefinitionRecord | null> {
    const doc = await this.definitions.findOne(byId(applicationDefinitionId), {
      projection: RECORD_PROJECTION,
      ...this.read.readOptions(),
    });
    return (doc as ApplicationDefinitionRecord | null) ?? null;
  }

  async page(
    applicationDefinitionId: number,
    orderBy: ApplicationOrder,
    page: PageRequest,
  ): Promise<PageResponse<ApplicationRecord>> {
    const filter = applicationsOfDefinition(applicationDefinitionId);
    const count = await this.applications.countDocuments(filter, this.read.readOptions());
    // take 0 must not reach the server: limit(0) there means "no limit".
    if (page.take === 0 || count === 0) return { count, list: [] };
    const docs = await this.applications
      .find(filter, { projection: RECORD_PROJECTION, ...this.read.readOptions() })
      .sort(applicationSort(orderBy))
      .skip(page.skip)
      .limit(page.take)
      .toArray();
    return { count, list: docs as unknown as ApplicationRecord[] };
  }

  async filterValues(applicationDefinitionId: number): Promise<Record<ApplicationFilterField, string[]>> {
    const filter = applicationsOfDefinition(applicationDefinitionId);
    const values = await Promise.all(
      APPLICATION_FILTER_FIELDS.map((field) => this.applications.distinct(field, filter, this.read.readOptions())),
    );
    return filterValuesOf(
      Object.fromEntries(APPLICATION_FILTER_FIELDS.map((field, i) => [field, values[i]])) as Record<
        ApplicationFilterField,
        unknown[]
      >,
    );
  }

  async putDefinition(definition: ApplicationDefinitionRecord, position: bigint): Promise<void> {
    await applyGuardedUpsert(
      this.definitions,
      definitionWrite(definition, position),
      this.read.sessionOption().session,
    );
  }

  async putApplication(application: ApplicationRecord, position: bigint): Promise<void> {
    await applyGuardedUpsert(
      this.applications,
      applicationWrite(application, position),
      this.read.sessionOption().session,
    );
  }
}

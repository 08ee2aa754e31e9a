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
import { sqliteProjectionStore, type SqliteReadDb } from './sqlite-read-db';

const schema = `
  create table if not exists app_definitions (
    application_definition_id integer primary key,
    record text not null,
    position integer not null
  ) strict;
  create table if not exists app_applications (
    application_id integer primary key,
    application_definition_id integer not null,
    submitted_at text not null,
    record text not null,
    position integer not null
  ) strict;
  create index if not exists app_applications_by_definition on app_applications (application_definition_id, application_id);
  create index if not exists app_applications_by_recent on app_applications (application_definition_id, submitted_at desc, application_id desc);
`;

const guardedPut = (table: string, key: string, columns: string[]) => `
  insert into ${table} (${[key, ...columns, 'record', 'position'].join(', ')}) values (${[key, ...columns, 'record', 'position'].map((c) => `@${c}`).join(', ')})
  on conflict (${key}) do update set ${[...columns, 'record', 'position'].map((c) => `${c} = excluded.${c}`).join(', ')}
  where excluded.position > ${table}.position`;

/** The embedded applications read model: pages by index, filter values from one definition's rows. */
export class SqliteApplicationStore implements ApplicationStore {
  readonly projectionStore: ProjectionStore;
  private readonly s;

  constructor(read: SqliteReadDb) {
    const db = read.db;
    db.exec(schema);
    this.projectionStore = sqliteProjectionStore(read, ['app_definitions', 'app_applications']);
    this.s = {
      definition: db.prepare<[number], { record: string }>(
        'select record from app_definitions where application_definition_id = ?',
      ),
      count: db.prepare<[number], { n: number }>(
        'select count(*) as n from app_applications where application_definition_id = ?',
      ),
      page: {
        0: db.prepare<[number, number, number], { record: string }>(
          'select record from app_applications where application_definition_id = ? order ' +
            'by application_id limit ? offset ?',
        ),
        1: db.prepare<[number, number, number], { record: string }>(
          'select record from app_applications where application_definition_id = ? order ' +
            'by submitted_at desc, application_id desc limit ? offset ?',
        ),
      },
      records: db.prepare<[number], { record: string }>(
        'select record from app_applications where application_definition_id = ?',
      ),
      putDefinition: db.prepare(guardedPut('app_definitions', 'application_definition_id', [])),
      putApplication: db.prepare(
        guardedPut('app_applications', 'application_id', ['application_definition_id', 'submitted_at']),
      ),
    };
  }

  async definition(applicationDefinitionId: number): Promise<ApplicationDefinitionRecord | null> {
    const row = this.s.definition.get(applicationDefinitionId);
    return row ? (JSON.parse(row.record) as ApplicationDefinitionRecord) : null;
  }

  async page(
    applicationDefinitionId: number,
    orderBy: ApplicationOrder,
    page: PageRequest,
  ): Promise<PageResponse<ApplicationRecord>> {
    const count = this.s.count.get(applicationDefinitionId)?.n ?? 0;
    if (page.take === 0 || count === 0) return { count, list: [] };
    const rows = this.s.page[orderBy].all(applicationDefinitionId, page.take, page.skip);
    return { count, list: rows.map((r) => JSON.parse(r.record) as ApplicationRecord) };
  }

  async filterValues(applicationDefinitionId: number): Promise<Record<ApplicationFilterField, string[]>> {
    const values = Object.fromEntries(APPLICATION_FILTER_FIELDS.map((f) => [f, new Set<string>()])) as Record<
      ApplicationFilterField,
      Set<string>
    >;
    for (const row of this.s.records.all(applicationDefinitionId)) {
      const record = JSON.parse(row.record) as ApplicationRecord;
      for (const field of APPLICATION_FILTER_FIELDS) {
        const value = record[field];
        for (const v of Array.isArray(value) ? value : [value]) if (typeof v === 'string') values[field].add(v);
      }
    }
    return Object.fromEntries(APPLICATION_FILTER_FIELDS.map((f) => [f, [...values[f]].sort(compareStrings)])) as Record<
      ApplicationFilterField,
      string[]
    >;
  }

  async putDefinition(definition: ApplicationDefinitionRecord, position: bigint): Promise<void> {
    this.s.putDefinition.run({
      application_definition_id: definition.applicationDefinitionId,
      record: JSON.stringify(definition),
      position,
    });
  }

  async putApplication(application: ApplicationRecord, position: bigint): Promise<void> {
    this.s.putApplication.run({
      application_id: application.applicationId,
      application_definition_id: application.applicationDefinitionId,
      submitted_at: application.submittedAt,
      record: JSON.stringify(application),
      position,
    });
  }
}

/** Code-unit order, as MongoDB sorts strings (binary comparison). */
function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

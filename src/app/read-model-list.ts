import type { ReadDb } from '../infra/read-db';
import type { MongoReadDb } from '../infra/mongo/mongo-read-db';
import type { SqliteReadDb } from '../infra/sqlite/sqlite-read-db';
import type { PostgresReadDb } from '../infra/postgres/postgres-read-db';
import type { PostgresDocumentStore } from '../infra/postgres/postgres-document-store';
import type { MongoApiKeyUsage } from '../infra/mongo/mongo-api-key-usage';
import type { MongoDocumentStore } from '../infra/mongo/mongo-document-store';
import type { MongoResourceViewStore } from '../infra/mongo/mongo-resource-view-store';
import { SqliteApiKeyUsage } from '../infra/sqlite/sqlite-api-key-usage';
import { SqliteDocumentStore } from '../infra/sqlite/sqlite-document-store';
import { SqliteResourceViewStore } from '../infra/sqlite/sqlite-resource-view-store';
import type { ReadModelProjection } from '../projections/read-model-projection';
import type { ApiKeyUsageStore } from '../api-keys/api-key-store';
import { apiKeyStore } from '../api-keys/api-key-queries';
import { applicationStore } from '../applications/application-queries';
import { filesStore } from '../files/files-store';
import type { ResourceViewStore } from '../resources/resource-view-store';
import { API_KEYS_READ_MODEL } from '../api-keys/api-key-projection';
import { APPLICATIONS_READ_MODEL } from '../applications/application-projection';
import { FILES_READ_MODEL } from '../files/files-projection';
import { documentProjection, scopeOf, type DocumentReadModel, type DocumentStore } from '../projections/document-store';
import { DIRECTORY_READ_MODEL } from '../directory/directory-projection';
import { directoryStore } from '../directory/directory-store';
import { resourceProjection } from '../resources/resource-projection';

/**
 * The MongoDB and PostgreSQL adapters are loaded only when the read models live there: they load
 * their drivers (MongoDB's: about 25 MB and 0.1 s of start-up), which the embedded default never needs.
 */
const adapter = <Adapter>(path: string, name: string): Adapter =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (require(path) as Record<string, Adapter>)[name] as Adapter;

/** A PostgreSQL adapter: each opens on the read database, creating its tables if missing. */
const postgresStore = <Store>(path: string, name: string) =>
  adapter<{ open(db: PostgresReadDb): Promise<Store> }>(path, name);

/** One read model: its projection, and its store on each kind of read database. */
type ReadModel<Store> = {
  /**
   * The version of the read model's code: raised whenever a change makes what it folds differ from
   * what a generation built before holds. A projector that starts on a generation built at another
   * version builds a new generation beside it and switches to it (ReadSide.outdated).
   */
  readonly version?: number;
  readonly projection: (store: Store) => ReadModelProjection;
  readonly sqlite: (db: SqliteReadDb) => Store;
  /** Declares its indexes as it opens. */
  readonly mongo: (db: MongoReadDb) => Promise<Store>;
  /** Creates its tables and indexes, if missing, as it opens. */
  readonly postgres: (db: PostgresReadDb) => Promise<Store>;
};

const readModel = <Store>(model: ReadModel<Store>): ReadModel<Store> => model;

/** What a read model keeps beside its documents, opened on each kind of read database. */
type Beside<Kept> = {
  readonly sqlite: (db: SqliteReadDb) => Kept;
  readonly mongo: (db: MongoReadDb) => Promise<Kept> | Kept;
  readonly postgres: (db: PostgresReadDb) => Promise<Kept>;
};

const nothingBeside: Beside<undefined> = {
  sqlite: () => undefined,
  mongo: () => undefined,
  postgres: async () => undefined,
};

/**
 * A read model declared as a pure fold (src/projections/document-store.ts): one generic adapter
 * per database stores it, `queries` reads it, with what it keeps `beside` the documents (records
 * no event carries), if anything. The projection is the runner's, on the same store.
 */
function documentModel<Store extends object, Kept = undefined>(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each model folds its own event union
  model: DocumentReadModel<any>,
  queries: (documents: DocumentStore, kept: Kept) => Store,
  beside: Beside<Kept> = nothingBeside as Beside<Kept>,
): ReadModel<Store> {
  const documentsOf = new WeakMap<object, DocumentStore>();
  const opened = (documents: DocumentStore, kept: Kept): Store => {
    const store = queries(documents, kept);
    documentsOf.set(store, documents);
    return store;
  };
  return {
    projection: (store) => {
      const documents = documentsOf.get(store);
      if (!documents) throw new Error(`the ${model.name} store was not opened by its read model`);
      return documentProjection(model, documents);
    },
    sqlite: (db) => opened(new SqliteDocumentStore(db, model.collections, scopeOf(model)), beside.sqlite(db)),
    mongo: async (db) =>
      opened(
        await adapter<typeof MongoDocumentStore>('../infra/mongo/mongo-document-store', 'MongoDocumentStore').open(
          db,
          model.collections,
        ),
        await beside.mongo(db),
      ),
    postgres: async (db) =>
      opened(
        await adapter<typeof PostgresDocumentStore>(
          '../infra/postgres/postgres-document-store',
          'PostgresDocumentStore',
        ).open(db, model.collections, scopeOf(model)),
        await beside.postgres(db),
      ),
  };
}

/**
 * Every read model of the service, in the order their projections start. Adding one is one entry
 * here: the composition root, the blue/green rebuild, the CLI and the test support read this list.
 */
export const READ_MODELS = {
  directory: documentModel(DIRECTORY_READ_MODEL, directoryStore),
  resources: readModel<ResourceViewStore>({
    projection: resourceProjection,
    sqlite: (db) => new SqliteResourceViewStore(db),
    mongo: (db) =>
      adapter<typeof MongoResourceViewStore>('../infra/mongo/mongo-resource-view-store', 'MongoResourceViewStore').open(
        db,
      ),
    postgres: (db) =>
      postgresStore<ResourceViewStore>(
        '../infra/postgres/postgres-resource-view-store',
        'PostgresResourceViewStore',
      ).open(db),
  }),
  applications: documentModel(APPLICATIONS_READ_MODEL, applicationStore),
  apiKeys: documentModel(API_KEYS_READ_MODEL, apiKeyStore, {
    sqlite: (db): ApiKeyUsageStore => new SqliteApiKeyUsage(db),
    mongo: (db) => new (adapter<typeof MongoApiKeyUsage>('../infra/mongo/mongo-api-key-usage', 'MongoApiKeyUsage'))(db),
    postgres: (db) =>
      postgresStore<ApiKeyUsageStore>('../infra/postgres/postgres-api-key-usage', 'PostgresApiKeyUsage').open(db),
  }),
  files: documentModel(FILES_READ_MODEL, filesStore),
};

export type ReadModelName = keyof typeof READ_MODELS;

/** The read models' names, in the order their projections start: what an operator names one by. */
export const READ_MODEL_NAMES = Object.keys(READ_MODELS) as [ReadModelName, ...ReadModelName[]];
/**
 * The read models that decide who sees what: an event one of them parked (a privacy change, a
 * membership) leaves someone seeing what they should not, or not what they should, so readiness
 * fails until an operator retries or skips it.
 */
export const VISIBILITY_READ_MODELS: readonly ReadModelName[] = ['resources', 'directory'];
type StoreOf<M> = M extends ReadModel<infer Store> ? Store : never;

/** One store per read model, as one value. */
export type ReadModelStores = { readonly [Name in ReadModelName]: StoreOf<(typeof READ_MODELS)[Name]> };

/** The read models opened on one read database: their stores, and the projections that feed them. */
export type OpenReadModels = {
  readonly stores: ReadModelStores;
  readonly projections: readonly ReadModelProjection[];
  /** Each read model's projection, by the read model's name (a projection may name itself otherwise). */
  readonly projectionOf: Readonly<Record<ReadModelName, ReadModelProjection>>;
};

/** The version each read model's code declares (1 where it declares none). */
export function declaredVersion(name: ReadModelName): number {
  return (READ_MODELS[name] as ReadModel<unknown>).version ?? 1;
}

/** Every read model's store, opened on the read database, and the projections that feed them. */
export async function openReadModels(readDb: ReadDb): Promise<OpenReadModels> {
  const names = READ_MODEL_NAMES;
  const opened: Record<string, unknown> = {};
  for (const name of names) {
    const model: ReadModel<unknown> = READ_MODELS[name] as ReadModel<unknown>;
    opened[name] =
      readDb.kind === 'sqlite'
        ? model.sqlite(readDb.sqlite)
        : readDb.kind === 'postgres'
          ? await model.postgres(readDb.postgres)
          : await model.mongo(readDb.mongo);
  }
  const stores = opened as ReadModelStores;
  const projections = names.map((name) => (READ_MODELS[name] as ReadModel<unknown>).projection(stores[name]));
  const projectionOf = Object.fromEntries(names.map((name, i) => [name, projections[i]])) as Record<
    ReadModelName,
    ReadModelProjection
  >;
  return { stores, projections, projectionOf };
}

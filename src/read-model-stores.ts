import { MongoApplicationStore } from './infra/read-models/mongo-application-store';
import { MongoDirectoryStore } from './infra/read-models/mongo-directory-store';
import { MongoResourceViewStore } from './infra/read-models/mongo-resource-view-store';
import { SqliteApplicationStore } from './infra/read-models/sqlite-application-store';
import { SqliteDirectoryStore } from './infra/read-models/sqlite-directory-store';
import { SqliteResourceViewStore } from './infra/read-models/sqlite-resource-view-store';
import { applicationProjection } from './projections/applications/application-projection';
import type { ApplicationStore } from './projections/applications/application-store';
import { directoryProjection } from './projections/directory/directory-projection';
import type { DirectoryStore } from './projections/directory/directory-store';
import type { ReadModelProjection } from './projections/read-model-projection';
import { resourceProjection } from './projections/resources/resource-projection';
import type { ResourceViewStore } from './projections/resources/resource-view-store';
import type { ReadDb } from './infra/read-models/read-db';
import type { MongoReadDb } from './infra/read-models/mongo-read-db';
import { MongoApiKeyStore } from './infra/read-models/mongo-apikey-store';
import { SqliteApiKeyStore } from './infra/read-models/sqlite-apikey-store';
import { apiKeyProjection } from './projections/apikeys/apikey-projection';
import type { ApiKeyStore } from './projections/apikeys/apikey-store';
import { MongoFilesStore } from './infra/read-models/mongo-files-store';
import { SqliteFilesStore } from './infra/read-models/sqlite-files-store';
import { filesProjection } from './projections/files/files-projection';
import type { FilesStore } from './projections/files/files-store';

export type ReadModelStores = {
  readonly directory: DirectoryStore;
  readonly resources: ResourceViewStore;
  readonly applications: ApplicationStore;
  readonly apiKeys: ApiKeyStore;
  readonly files: FilesStore;
  readonly projections: ReadModelProjection[];
};

/** Every read model's store, opened on the read database, and the projections that feed them. */
export async function openReadModelStores(readDb: ReadDb): Promise<ReadModelStores> {
  const stores =
    readDb.kind === 'sqlite'
      ? {
          directory: new SqliteDirectoryStore(readDb.sqlite),
          resources: new SqliteResourceViewStore(readDb.sqlite),
          applications: new SqliteApplicationStore(readDb.sqlite),
          apiKeys: new SqliteApiKeyStore(readDb.sqlite),
          files: new SqliteFilesStore(readDb.sqlite),
        }
      : {
          directory: await MongoDirectoryStore.open(readDb.mongo),
          resources: await MongoResourceViewStore.open(readDb.mongo),
          applications: await MongoApplicationStore.open(readDb.mongo),
          apiKeys: new MongoApiKeyStore(readDb.mongo),
          files: await openMongoFiles(readDb.mongo),
        };
  return {
    ...stores,
    projections: [directoryProjection(stores.directory), resourceProjection(stores.resources), applicationProjection(stores.applications), apiKeyProjection(stores.apiKeys), filesProjection(stores.files)],
  };
}


async function openMongoFiles(read: MongoReadDb): Promise<FilesStore> {
  const files = new MongoFilesStore(read);
  await files.ensureIndexes();
  return files;
}

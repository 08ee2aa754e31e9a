import { SqliteApplicationStore } from '../infra/sqlite/sqlite-application-store';
import { SqliteDirectoryStore } from '../infra/sqlite/sqlite-directory-store';
import { SqliteResourceViewStore } from '../infra/sqlite/sqlite-resource-view-store';
import { applicationProjection } from '../applications/application-projection';
import type { ApplicationStore } from '../applications/application-store';
import { directoryProjection } from '../directory/directory-projection';
import type { DirectoryStore } from '../directory/directory-store';
import type { ReadModelProjection } from '../projections/read-model-projection';
import { resourceProjection } from '../resources/resource-projection';
import type { ResourceViewStore } from '../resources/resource-view-store';
import type { ReadDb } from '../infra/read-db';
import { SqliteApiKeyStore } from '../infra/sqlite/sqlite-api-key-store';
import { apiKeyProjection } from '../apikeys/api-key-projection';
import type { ApiKeyStore } from '../apikeys/api-key-store';
import { SqliteFilesStore } from '../infra/sqlite/sqlite-files-store';
import { filesProjection } from '../files/files-projection';
import type { FilesStore } from '../files/files-store';
import type { openMongoReadModelStores } from '../infra/mongo/mongo-read-model-stores';

/** One store per read model. */
export type ReadModelStores = {
  readonly directory: DirectoryStore;
  readonly resources: ResourceViewStore;
  readonly applications: ApplicationStore;
  readonly apiKeys: ApiKeyStore;
  readonly files: FilesStore;
  readonly projections: ReadModelProjection[];
};

/**
 * The MongoDB adapters, loaded only when the read models live in MongoDB: they load the driver
 * (about 25 MB and 0.1 s of start-up), which the embedded default never needs.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const mongoStores = () => require('../infra/mongo/mongo-read-model-stores') as { openMongoReadModelStores: typeof openMongoReadModelStores };

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
      : await mongoStores().openMongoReadModelStores(readDb.mongo);
  return {
    ...stores,
    projections: [directoryProjection(stores.directory), resourceProjection(stores.resources), applicationProjection(stores.applications), apiKeyProjection(stores.apiKeys), filesProjection(stores.files)],
  };
}


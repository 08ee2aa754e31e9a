import type { ReadModelStores } from '../../app/read-model-stores';
import { MongoApiKeyStore } from './mongo-api-key-store';
import { MongoApplicationStore } from './mongo-application-store';
import { MongoDirectoryStore } from './mongo-directory-store';
import { MongoFilesStore } from './mongo-files-store';
import type { MongoReadDb } from './mongo-read-db';
import { MongoResourceViewStore } from './mongo-resource-view-store';

/** Every read model's MongoDB store on one database, its indexes declared. */
export async function openMongoReadModelStores(read: MongoReadDb): Promise<Omit<ReadModelStores, 'projections'>> {
  const files = new MongoFilesStore(read);
  await files.ensureIndexes();
  return {
    directory: await MongoDirectoryStore.open(read),
    resources: await MongoResourceViewStore.open(read),
    applications: await MongoApplicationStore.open(read),
    apiKeys: new MongoApiKeyStore(read),
    files,
  };
}

/**
 * A read database written before the API keys were documents holds a checkpoint for the old
 * table: the document read model must not trust it, or its empty collection would never fill and
 * no key would authenticate.
 */
import { openReadModels } from '../../src/app/read-model-list';
import { SqliteReadDb } from '../../src/infra/sqlite/sqlite-read-db';
import { API_KEYS_READ_MODEL } from '../../src/api-keys/api-key-projection';

describe('the API keys read model on a read database from before its documents', () => {
  it('given the old checkpoint, when opened, then its projection has none and folds the log from its start', async () => {
    const read = SqliteReadDb.open(':memory:');
    read.writeCheckpoint('apikeys', 500n);

    const { stores, projectionOf } = await openReadModels({ kind: 'sqlite', sqlite: read });

    expect(projectionOf.apiKeys.name).toBe(API_KEYS_READ_MODEL.name);
    expect(projectionOf.apiKeys.name).not.toBe('apikeys');
    expect(await stores.apiKeys.projectionStore.checkpoint(API_KEYS_READ_MODEL.name)).toBeUndefined();
    read.close();
  });
});

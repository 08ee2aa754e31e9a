/**
 * A read database written before the applications were documents holds a checkpoint for the old
 * tables: the document read model must not trust it, or its empty collections would never fill.
 */
import { openReadModels } from '../../src/app/read-model-list';
import { SqliteReadDb } from '../../src/infra/sqlite/sqlite-read-db';
import { APPLICATIONS_READ_MODEL } from '../../src/applications/application-projection';

describe('the applications read model on a read database from before its documents', () => {
  it('given the old checkpoint, when opened, then its projection has none and folds the log from its start', async () => {
    const read = SqliteReadDb.open(':memory:');
    read.writeCheckpoint('applications', 500n);

    const { stores, projections } = await openReadModels({ kind: 'sqlite', sqlite: read });
    const projection = projections.find((p) => p.store === stores.applications.projectionStore);

    expect(projection?.name).toBe(APPLICATIONS_READ_MODEL.name);
    expect(await stores.applications.projectionStore.checkpoint(APPLICATIONS_READ_MODEL.name)).toBeUndefined();
    read.close();
  });
});

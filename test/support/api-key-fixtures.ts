import { apiKeyStreamId, type ApiKeyCreated } from '../../src/api-keys/api-key-events';
import type { ApiKeyStore } from '../../src/api-keys/api-key-store';
import { READ_MODELS } from '../../src/app/read-model-list';

/** A key of user 7, as the usage suites create it. */
export const usedKey: ApiKeyCreated['data'] = {
  userId: 7,
  id: 1,
  keyId: 'svc_live_1',
  name: 'ci',
  secretHash: 'h',
  createdAt: '2026-01-01T00:00:00.000Z',
  expiresAt: '2026-04-01T00:00:00.000Z',
  readOnly: false,
  ratePerHour: null,
};

/** The key's creation folded by the store's projection (at position 1), as the runner folds it. */
export async function keyCreated(store: ApiKeyStore, key: ApiKeyCreated['data'] = usedKey): Promise<void> {
  const projection = READ_MODELS.apiKeys.projection(store);
  await projection.store.commit(projection.name, 1n, () =>
    projection.apply({
      streamId: apiKeyStreamId(key.userId),
      type: 'ApiKeyCreated',
      data: key,
      metadata: { actor: { userId: key.userId, credential: 'session' }, correlationId: 'c', at: key.createdAt },
      revision: 0n,
      position: 1n,
    }),
  );
}

/** A rebuild's builder: the read model reset and the key's creation folded again from the log. */
export async function rebuilt(store: ApiKeyStore): Promise<ApiKeyStore> {
  await store.projectionStore.reset(READ_MODELS.apiKeys.projection(store).name);
  await keyCreated(store);
  return store;
}

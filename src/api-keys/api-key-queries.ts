import type { DocumentStore } from '../projections/document-store';
import { KeptByVersion } from '../projections/kept-by-version';
import { API_KEYS } from './api-key-projection';
import type { ApiKey, ApiKeyRecord, ApiKeyStore, ApiKeyUsageStore } from './api-key-store';

/**
 * What the `apikeys` read model answers, read through the document store on its declared indexes,
 * each key's last use merged in from where the API processes record it.
 */
export function apiKeyStore(documents: DocumentStore, usage: ApiKeyUsageStore): ApiKeyStore {
  const read = async (keyId: string): Promise<ApiKey | null> =>
    ((await documents.find(API_KEYS, 'by_key_id', [keyId]))[0] as ApiKey | undefined) ?? null;
  /**
   * Where the database tells of every write (the embedded one, PostgreSQL), the keys checked lately are
   * remembered until a key changes, here or in another process, so a revocation still counts at
   * the next request; a few hundred bytes each. Kept whatever READ_MEMO says: this is the
   * credential check (as a bearer's verified token is remembered), not an answer of the read
   * model. Read cold at every request, a list with an API key served 0.76× as many requests, at
   * 1.26× the CPU (docs/architecture.md "Machinery kept, and what it earns").
   */
  const checks = new KeptByVersion<string, ApiKey | null>(1_000);
  const credential = async (keyId: string): Promise<ApiKey | null> => {
    // Taken before the read: a write meanwhile moves it, so what was read is never served under the new one.
    const version = documents.version?.() ?? null;
    if (version === null) return read(keyId);
    const remembered = checks.get(keyId, version);
    if (remembered !== undefined) return remembered;
    const key = await read(keyId);
    checks.set(keyId, version, key);
    return key;
  };
  const withUses = async (keys: readonly ApiKey[]): Promise<ApiKeyRecord[]> => {
    if (keys.length === 0) return [];
    const used = await usage.lastUsedAt(keys.map((key) => key.id));
    return keys.map((key) => ({ ...key, lastUsedAt: used.get(key.id) ?? null }));
  };
  return {
    projectionStore: documents.projectionStore,
    credential,
    byKeyId: async (keyId) => {
      const key = await credential(keyId);
      return key && ((await withUses([key]))[0] ?? null);
    },
    listForUser: async (userId) =>
      withUses((await documents.find(API_KEYS, 'by_user', [userId, false])) as unknown as ApiKey[]),
    recordUse: (id, at) => usage.recordUse(id, at),
  };
}

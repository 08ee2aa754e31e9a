/**
 * A key's lastUsedAt on the embedded read models lives in the records kept across generations
 * (`read-models.kept.sqlite`, opened beside every generation), not in a generation's own file,
 * which a blue/green rebuild replaces. Uses recorded by a version that kept them in the
 * generation's file are carried over as the store opens.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { NewApiKeyRecord } from '../../src/api-keys/api-key-store';
import { SqliteApiKeyStore } from '../../src/infra/sqlite/sqlite-api-key-store';
import { SqliteReadDb } from '../../src/infra/sqlite/sqlite-read-db';

const key: NewApiKeyRecord = {
  id: 1,
  keyId: 'svc_live_1',
  userId: 7,
  name: 'ci',
  secretHash: 'h',
  createdAt: '2026-01-01T00:00:00.000Z',
  expiresAt: '2026-04-01T00:00:00.000Z',
  readOnly: false,
  ratePerHour: null,
};
const USED_AT = '2026-01-02T03:04:00.000Z';

describe("a key's lastUsedAt across generations of the embedded read models", () => {
  const opened: SqliteReadDb[] = [];
  afterEach(() => {
    for (const read of opened.splice(0)) read.close();
  });
  const dir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'prs-kept-'));
  const open = (file: string, keptFile?: string) => {
    const read = SqliteReadDb.open(file, keptFile === undefined ? {} : { keptFile });
    opened.push(read);
    return read;
  };

  it('given a use recorded in one generation, when another generation is built and the first deleted, then the new one lists the key with it', async () => {
    const at = dir();
    const kept = path.join(at, 'kept.sqlite');
    const first = new SqliteApiKeyStore(open(path.join(at, 'g0.sqlite'), kept));
    await first.keyCreated(key, 1n);
    await first.recordUse(key.id, USED_AT);
    opened.splice(0).forEach((read) => read.close());
    fs.rmSync(path.join(at, 'g0.sqlite'));

    const second = new SqliteApiKeyStore(open(path.join(at, 'g1.sqlite'), kept));
    await second.keyCreated(key, 1n);

    expect((await second.listForUser(7)).map((k) => k.lastUsedAt)).toEqual([USED_AT]);
    expect(await second.byKeyId(key.keyId)).toMatchObject({ lastUsedAt: USED_AT });
  });

  it("given uses in a generation's own file (recorded before they were kept apart), when it opens with the kept records, then they are carried over and the later use wins", async () => {
    // given
    const at = dir();
    const file = path.join(at, 'g3.sqlite');
    const before = new SqliteApiKeyStore(open(file));
    await before.keyCreated(key, 1n);
    await before.recordUse(key.id, USED_AT);
    opened.splice(0).forEach((read) => read.close());
    // when
    const store = new SqliteApiKeyStore(open(file, path.join(at, 'kept.sqlite')));
    // then
    expect((await store.listForUser(7))[0]?.lastUsedAt).toBe(USED_AT);
    await store.recordUse(key.id, '2026-01-01T00:00:00.000Z');
    expect((await store.listForUser(7))[0]?.lastUsedAt).toBe(USED_AT);
  });
});

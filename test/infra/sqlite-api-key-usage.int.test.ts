/**
 * A key's lastUsedAt on the embedded read models lives in the records kept across generations
 * (`read-models.kept.sqlite`, opened beside every generation), not in a generation's own file,
 * which a blue/green rebuild replaces. Uses recorded by a version that kept them in the
 * generation's file are carried over as the store opens.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { READ_MODELS } from '../../src/app/read-model-list';
import { SqliteReadDb } from '../../src/infra/sqlite/sqlite-read-db';
import { keyCreated, usedKey as key } from '../support/api-key-fixtures';

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
    const first = READ_MODELS.apiKeys.sqlite(open(path.join(at, 'g0.sqlite'), kept));
    await keyCreated(first);
    await first.recordUse(key.id, USED_AT);
    opened.splice(0).forEach((read) => read.close());
    fs.rmSync(path.join(at, 'g0.sqlite'));

    const second = READ_MODELS.apiKeys.sqlite(open(path.join(at, 'g1.sqlite'), kept));
    await keyCreated(second);

    expect((await second.listForUser(7)).map((k) => k.lastUsedAt)).toEqual([USED_AT]);
    expect(await second.byKeyId(key.keyId)).toMatchObject({ lastUsedAt: USED_AT });
  });

  it("given uses in a generation's own file (recorded before they were kept apart), when it opens with the kept records, then they are carried over and the later use wins", async () => {
    // given
    const at = dir();
    const file = path.join(at, 'g3.sqlite');
    const before = READ_MODELS.apiKeys.sqlite(open(file));
    await keyCreated(before);
    await before.recordUse(key.id, USED_AT);
    opened.splice(0).forEach((read) => read.close());
    // when
    const store = READ_MODELS.apiKeys.sqlite(open(file, path.join(at, 'kept.sqlite')));
    // then
    expect((await store.listForUser(7))[0]?.lastUsedAt).toBe(USED_AT);
    await store.recordUse(key.id, '2026-01-01T00:00:00.000Z');
    expect((await store.listForUser(7))[0]?.lastUsedAt).toBe(USED_AT);
  });
});

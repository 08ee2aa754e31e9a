/**
 * A key's lastUsedAt on PostgreSQL lives in the kept schema (the records kept across
 * generations), not in a generation's own schema, which a blue/green rebuild replaces.
 */
import { READ_MODELS } from '../../src/app/read-model-list';
import { PostgresReadDb } from '../../src/infra/postgres/postgres-read-db';
import { describeExternal, externalTarget } from '../support/external';
import { dropSchema, freshSchema } from '../support/postgres';
import { keyCreated, rebuilt, usedKey as key } from '../support/api-key-fixtures';

const USED_AT = '2026-01-02T03:04:00.000Z';

const target = externalTarget('postgres');

describeExternal("a key's lastUsedAt across generations on PostgreSQL", target, () => {
  const url = target.kind === 'url' ? target.url : '';
  const kept = freshSchema('kept');
  const generations = [freshSchema('g0'), freshSchema('g1')];
  const opened: PostgresReadDb[] = [];
  const open = async (schema: string) => {
    const read = await PostgresReadDb.connect(url, { schema, keptSchema: kept, queryTimeoutMs: 10_000 });
    opened.push(read);
    return READ_MODELS.apiKeys.postgres(read);
  };
  afterAll(async () => {
    for (const read of opened) await read.close();
    for (const schema of [...generations, kept]) await dropSchema(url, schema);
  });

  it('given a use recorded in one generation, when it is reset and another generation is built and the first dropped, then both list the key with it', async () => {
    const [g0, g1] = generations as [string, string];
    const first = await open(g0);
    await keyCreated(first);
    await first.recordUse(key.id, USED_AT);
    await rebuilt(first);
    expect(await first.byKeyId(key.keyId)).toMatchObject({ lastUsedAt: USED_AT });
    await dropSchema(url, g0);

    const second = await open(g1);
    await keyCreated(second);

    expect((await second.listForUser(7)).map((k) => k.lastUsedAt)).toEqual([USED_AT]);
    expect(await second.byKeyId(key.keyId)).toMatchObject({ lastUsedAt: USED_AT });
    await second.recordUse(key.id, '2026-01-01T00:00:00.000Z');
    expect(await second.byKeyId(key.keyId)).toMatchObject({ lastUsedAt: USED_AT });
  });
});

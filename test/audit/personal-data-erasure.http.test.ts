/**
 * Personal data that can be erased without breaking the log: a client's address is stored sealed
 * under its person's key; the audit shows it opened; `resources-cli erase-person` destroys the key,
 * after which it reads as erased in the API and in the CLI's export, while the hash chain still
 * verifies, a rebuild gives the same read models, and the erasure is itself in the audit log.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import Database from 'better-sqlite3';
import { embeddedOnly } from '../support/backend';
import { csvObjects, parseCsv } from '../support/csv-records';
import { demo, demoDirectory } from '../support/demo-directory';
import { cli } from '../support/service-process';
import { rebuildAndWait } from '../support/rebuild-job';
import { startTestServer, type TestServer } from '../support/test-server';

type AuditItem = { streamId: string; type: string; data: Record<string, unknown>; metadata: Record<string, unknown> };

/** The files under `dir` whose bytes contain `bytes`, read by a child process. */
function filesHolding(dir: string, bytes: Buffer): string[] {
  const script = `
    const fs = require('node:fs');
    const path = require('node:path');
    const [dir, hex] = process.argv.slice(1);
    const wanted = Buffer.from(hex, 'hex');
    const found = fs.readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => path.join(entry.parentPath, entry.name))
      .filter((name) => fs.readFileSync(name).includes(wanted));
    process.stdout.write(JSON.stringify(found));`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script, dir, bytes.toString('hex')], { encoding: 'utf8' }));
}

describe('personal data erased by destroying its key', () => {
  jest.setTimeout(90_000);
  let server: TestServer;
  let resourceId: number;
  const asAuditor = async () => ({ token: await server.token(demo.users.auditor) });
  const auditOf = async (stream: string) =>
    (await server.get<{ items: AuditItem[] }>(`/api/audit/events?stream=${stream}&limit=100`, await asAuditor())).body
      .items;
  const digest = async () =>
    (
      await server.get<{ digest: string }>('/internal/read-models/digest', {
        headers: { 'x-directory-token': server.services.secrets.directoryToken },
      })
    ).body.digest;

  beforeEach(async () => {
    server = await startTestServer();
    await server.directory(demoDirectory.events);
    const saved = await server.post(
      '/api/Resource/SaveProjectResource',
      {
        id: 0,
        name: 'minutes',
        resourceUrl: 'https://example.org/minutes.pdf',
        privacyLevel: 2,
        communityProjectId: demo.communityProjects.solarIn1,
      },
      { token: await server.token(demo.users.team) },
    );
    expect(saved.status).toBe(200);
    resourceId = saved.body.id as number;
  });
  afterEach(() => server.close());

  it('given a save over HTTP, then the log holds its client address sealed, and the audit shows it opened', async () => {
    // when
    const stored = await server.services.eventStore.readStream(`resource-${resourceId}`);
    const audited = await auditOf(`resource-${resourceId}`);
    // then
    expect(stored.length).toBeGreaterThan(0);
    for (const event of stored) {
      expect(event.metadata.clientAddress).toMatch(/^sealed:v1:1:/);
      expect(JSON.stringify(event.metadata)).not.toContain('127.0.0.1');
    }
    expect(audited.map((e) => e.metadata.clientAddress)).toEqual(stored.map(() => '127.0.0.1'));
  });

  it('given a save over HTTP, then its id allocation carries no client address, only who and when, under the same correlation id', async () => {
    // when
    const [created] = await server.services.eventStore.readStream(`resource-${resourceId}`);
    const allocations = await server.services.eventStore.readStream('sequence-resource');
    // then
    const allocation = allocations.find((e) => (e.data as { id: number }).id === resourceId);
    expect(allocation?.metadata).toEqual({
      actor: created!.metadata.actor,
      correlationId: created!.metadata.correlationId,
      at: created!.metadata.at,
    });
  });

  it("given a person's key destroyed with erase-person, then their addresses read as erased in the API and the CLI export, and the log, its chain and the read models are as they were", async () => {
    // given
    const before = await digest();
    const env = { DATA_DIR: server.dataDir, LOG_LEVEL: 'silent' };
    const csvOf = async (path: string) => {
      const res = await server.get(path, await asAuditor());
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/csv');
      return res.text;
    };
    const eventsCsv = `/api/audit/events?stream=resource-${resourceId}&limit=100&format=csv`;
    const addressesIn = (text: string) => csvObjects(parseCsv(text)).map((row) => row.clientAddress);
    const addressesBefore = addressesIn(await csvOf(eventsCsv));
    expect(addressesBefore.length).toBeGreaterThan(0);
    expect(addressesBefore).toEqual(addressesBefore.map(() => '127.0.0.1'));
    const historyOf = async () =>
      (await server.get<{ steps: unknown[] }>(`/api/audit/resources/${resourceId}/history`, await asAuditor())).body;
    const historyBefore = await historyOf();
    expect(historyBefore.steps.length).toBeGreaterThan(0);
    // when
    const erased = JSON.parse(await cli(env, 'erase-person', String(demo.users.team)));
    // then: erased in the API's answers
    expect(erased).toEqual({ userId: demo.users.team, keyDestroyed: true });
    const audited = await auditOf(`resource-${resourceId}`);
    expect(audited.map((e) => e.metadata.clientAddress)).toEqual(audited.map(() => 'erased'));
    // and in the CLI's export
    const exported = (await cli(env, 'audit', 'events', '--stream', `resource-${resourceId}`, '--format', 'jsonl'))
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as AuditItem);
    expect(exported.map((e) => e.metadata.clientAddress)).toEqual(exported.map(() => 'erased'));
    expect(exported.length).toBe(audited.length);
    // and in the CSV table an auditor downloads (the history's table has no address column)
    const addressesAfter = addressesIn(await csvOf(eventsCsv));
    expect(addressesAfter).toEqual(addressesBefore.map(() => 'erased'));
    // and the resource's history, which holds no address, reads as it did
    expect(await historyOf()).toEqual(historyBefore);
    // and the erasure is recorded, by the operator's tool
    const record = await auditOf(`personal-data-${demo.users.team}`);
    expect(record).toEqual([
      expect.objectContaining({
        type: 'PersonalDataErased',
        data: { userId: demo.users.team, keyDestroyed: true },
        metadata: expect.objectContaining({ actor: { userId: 0, credential: 'system' } }),
      }),
    ]);
    // and the log's chain verifies, the read models equal a rebuild, and other people keep theirs
    await expect(cli(env, 'audit', 'verify')).resolves.toEqual(expect.any(String));
    const { job, after } = await rebuildAndWait(server);
    expect(job.outcome).toBe('succeeded');
    expect(after.digest).toBe(before);
  });

  embeddedOnly("it reads the embedded store's files")(
    "given a person's key destroyed while another process holds the keys open, then the key's bytes are in no file of DATA_DIR",
    async () => {
      // given the key as stored (the save above made it), and another process's connection to the file open
      const file = path.join(server.dataDir, 'personal-data-keys.sqlite');
      const other = new Database(file, { readonly: true });
      try {
        const { key } = other.prepare('select key from personal_data_keys where user_id = ?').get(demo.users.team) as {
          key: Buffer;
        };
        // Read from another process: closing a file this process holds a SQLite lock on would drop the
        // lock (POSIX record locks belong to the process), and the service's connections with it.
        const holding = () => filesHolding(server.dataDir, key);
        expect(holding()).not.toEqual([]);
        // when
        await cli({ DATA_DIR: server.dataDir, LOG_LEVEL: 'silent' }, 'erase-person', String(demo.users.team));
        // then
        expect(holding()).toEqual([]);
      } finally {
        other.close();
      }
    },
  );

  it('given an erasure of someone who never had a key, then it is recorded all the same, and nobody else is erased', async () => {
    // when
    const erased = JSON.parse(await cli({ DATA_DIR: server.dataDir }, 'erase-person', String(demo.users.outsider)));
    // then
    expect(erased).toEqual({ userId: demo.users.outsider, keyDestroyed: false });
    const audited = await auditOf(`resource-${resourceId}`);
    expect(audited.map((e) => e.metadata.clientAddress)).toEqual(audited.map(() => '127.0.0.1'));
  });

  it('given a malformed user id, then the CLI answers its usage and exit code 2, erasing nothing', async () => {
    await expect(cli({ DATA_DIR: server.dataDir }, 'erase-person', 'ada')).rejects.toMatchObject({ code: 2 });
    const audited = await auditOf(`resource-${resourceId}`);
    expect(audited.map((e) => e.metadata.clientAddress)).toEqual(audited.map(() => '127.0.0.1'));
  });
});

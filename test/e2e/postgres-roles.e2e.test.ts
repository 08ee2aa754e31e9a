/**
 * The roles as real processes on PostgreSQL (POSTGRES_URL, one fresh POSTGRES_SCHEMA): two API
 * processes and a projector. Saves through both API processes are read through both: a save
 * answered 200 is in the other API process's next list; a privacy change made through one is
 * obeyed by the other at once; the projector killed with SIGKILL is replaced by one started
 * afterwards, which takes the leases once they expire (15 s on PostgreSQL), and saves go on being
 * answered. At the end nothing answered is missing, no resource is listed twice, and the shared
 * read models equal a projection of the whole log from scratch.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { mintSessionToken } from '../../src/infra/auth/session-verifier';
import { demo, demoDirectory } from '../support/demo-directory';
import { describeExternal, externalTarget } from '../support/external';
import { dropSchemasOf, freshSchema } from '../support/postgres';
import { cli, startService, stop, waitFor, type Running } from '../support/service-process';

const postgres = externalTarget('postgres');

describeExternal('the roles as processes on PostgreSQL', postgres, () => {
  jest.setTimeout(90_000);
  const url = postgres.kind === 'url' ? postgres.url : '';
  // As long as POSTGRES_SCHEMA may be (32): every schema named after it (the read models', the
  // files', a rebuild's, the digest's scratch) must still be one the stores take.
  const schema = freshSchema('roles_longest_name').slice(0, 32);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'prs-pg-roles-'));
  const secrets = {
    AUTH_JWT_SECRET: 'postgres-roles-test-secret-'.padEnd(48, 'x'),
    DIRECTORY_SYNC_TOKEN: 'postgres-roles-directory-token-'.padEnd(48, 'y'),
  };
  // A save waits for the read models through a takeover (the lease expiring, 15 s, and the new
  // projector's catch-up) instead of answering 503 after the default 5 s.
  const env = {
    POSTGRES_URL: url,
    POSTGRES_SCHEMA: schema,
    DATA_DIR: dataDir,
    PROJECTION_WAIT_MS: '30000',
    // Four processes beside the other suites on one server's 100 connections: small pools.
    POSTGRES_POOL_SIZE: '4',
    ...secrets,
  };
  const running: Running[] = [];
  const start = async (role: 'api' | 'projector') => {
    const service = await startService({ ...env, ROLE: role });
    running.push(service);
    return service;
  };
  afterAll(async () => {
    await Promise.all(running.map((r) => stop(r, 'SIGKILL')));
    if (url) await dropSchemasOf(url, schema);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const internal = { 'content-type': 'application/json', 'x-directory-token': secrets.DIRECTORY_SYNC_TOKEN };
  const leading = async (service: Running) => {
    const text = await (await fetch(`${service.url}/internal/metrics`, { headers: internal })).text();
    return /read_model_leading\{projection="resources"\} 1/.test(text);
  };
  const headersOf = async (userId: number) => ({
    'content-type': 'application/json',
    authorization: `Bearer ${await mintSessionToken(secrets.AUTH_JWT_SECRET, { userId })}`,
  });
  const save = async (via: Running, name: string, privacyLevel = 3) => {
    const res = await fetch(`${via.url}/api/Resource/SaveProjectResource`, {
      method: 'POST',
      headers: await headersOf(demo.users.team),
      body: JSON.stringify({
        id: 0,
        name,
        resourceUrl: 'https://example.org/a.pdf',
        privacyLevel,
        communityProjectId: demo.communityProjects.solarIn1,
      }),
    });
    return res.status === 200 ? ((await res.json()) as { id: number }).id : undefined;
  };
  const listed = async (via: Running, userId: number = demo.users.team) => {
    const res = await fetch(`${via.url}/api/Project/GetResourceList`, {
      method: 'POST',
      headers: await headersOf(userId),
      body: JSON.stringify({ projectId: demo.projects.solar, communityId: demo.communities.public1, take: 1000 }),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { resources: { list: { id: number }[] } }).resources.list.map((r) => r.id);
  };
  const privacyOf = async (via: Running, userId: number, resourceId: number) =>
    (
      await fetch(`${via.url}/api/Privacy/GetResourcePrivacy?resourceId=${resourceId}`, {
        headers: await headersOf(userId),
      })
    ).status;

  it('given two API processes and a projector on one schema, when both write, privacy changes and the projector is killed, then every answered save is read through both, access follows at once, and a new projector takes over with nothing lost or doubled', async () => {
    // given: the projector first (it takes the leases), then the two API processes
    const projector = await start('projector');
    const [api1, api2] = await Promise.all([start('api'), start('api')]);
    expect(await leading(projector)).toBe(true);
    expect(await leading(api1)).toBe(false);
    const directory = await fetch(`${api1.url}/internal/directory/events`, {
      method: 'POST',
      headers: internal,
      body: JSON.stringify(demoDirectory),
    });
    expect(directory.status).toBe(200);

    // when each API process saves, then the other lists the save as it answers
    for (const [writer, reader] of [
      [api1, api2],
      [api2, api1],
    ] as const) {
      const id = await save(writer, 'read on the other process');
      expect(id).toBeDefined();
      expect(await listed(reader)).toContain(id);
    }

    // when a Community resource saved through api2 is made Team through api1
    const DAN = demo.users.member1;
    const shared = await save(api2, 'community notes', 2);
    expect(shared).toBeDefined();
    expect(await listed(api1, DAN)).toContain(shared);
    // asked twice on api2, which writes nothing meanwhile: its answer is remembered there
    expect(await listed(api2, DAN)).toContain(shared);
    expect(await listed(api2, DAN)).toContain(shared);
    expect(await privacyOf(api1, DAN, shared!)).toBe(200);
    const narrowed = await fetch(`${api1.url}/api/Privacy/SaveResourcePrivacy`, {
      method: 'POST',
      headers: await headersOf(demo.users.team),
      body: JSON.stringify({ resourceId: shared, owner: { privacyLevel: 3 } }),
    });
    expect(narrowed.status).toBe(200);
    // then api2 at once gives Dan, who lost access, nothing of it; the team still reads it
    expect(await listed(api2, DAN)).not.toContain(shared);
    expect(await privacyOf(api2, DAN, shared!)).toBe(404);
    expect(await privacyOf(api2, demo.users.team, shared!)).toBe(200);

    // when both API processes keep saving while the projector is killed and another is started
    const acknowledged: number[] = [];
    const unanswered: string[] = [];
    let writing = true;
    const writers = [api1, api2].map(async (via, lane) => {
      for (let i = 0; writing; i++) {
        const id = await save(via, `burst ${lane}-${i}`).catch(() => undefined);
        if (id === undefined) unanswered.push(`${lane}-${i}`);
        else {
          acknowledged.push(id);
          // read-your-writes across processes: the save is already on the other API process
          expect(await listed(lane === 0 ? api2 : api1)).toContain(id);
        }
      }
    });
    await waitFor(async () => (acknowledged.length >= 10 ? true : undefined), 'writes before the kill');
    await stop(projector, 'SIGKILL');
    const successor = await start('projector');
    // then the successor leads once the killed one's leases expire, and saves are answered again
    await waitFor(async () => ((await leading(successor)) ? true : undefined), 'the successor taking over', 30_000);
    const atTakeover = acknowledged.length;
    await waitFor(async () => (acknowledged.length >= atTakeover + 10 ? true : undefined), 'writes after the takeover');
    writing = false;
    await Promise.all(writers);
    expect(unanswered).toEqual([]);

    // and nothing answered is lost, nothing is listed twice, seen from either API process
    const [seen1, seen2] = [await listed(api1), await listed(api2)];
    expect(acknowledged.filter((id) => !seen1.includes(id))).toEqual([]);
    expect(new Set(seen1).size).toBe(seen1.length);
    expect(seen2).toEqual(seen1);
    // and the shared read models equal a projection of the whole log from scratch: nothing applied twice
    const fromScratch = JSON.parse(await cli(env, 'digest')) as { digest: string };
    const served = (await (await fetch(`${api1.url}/internal/read-models/digest`, { headers: internal })).json()) as {
      digest: string;
    };
    expect(served.digest).toBe(fromScratch.digest);
  });
});

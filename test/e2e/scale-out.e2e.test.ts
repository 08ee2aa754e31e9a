/**
 * Scale-out on the embedded default, with real processes sharing one DATA_DIR (SQLite in WAL
 * mode): two API processes, a projector and a standby projector. A write through one API process
 * is visible through the other when it answers; the projector killed with SIGKILL under load is
 * replaced by the standby with nothing lost and nothing applied twice; a projector frozen past its
 * lease (SIGSTOP) finds its writes refused when it wakes, and stands by.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { mintSessionToken } from '../../src/infra/auth/session-verifier';
import { demo, demoDirectory } from '../support/demo-directory';
import { cli, startService, stop, waitFor, type Running } from '../support/service-process';

describe('several processes on one DATA_DIR', () => {
  jest.setTimeout(120_000);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'prs-scale-'));
  const secrets = {
    AUTH_JWT_SECRET: 'scale-out-test-secret-'.padEnd(48, 'x'),
    DIRECTORY_SYNC_TOKEN: 'scale-out-directory-token-'.padEnd(48, 'y'),
  };
  const env = { DATA_DIR: dataDir, ...secrets };
  const running: Running[] = [];
  const start = async (role: string, ready = true) => {
    const service = await startService({ ...env, ROLE: role }, { ready });
    running.push(service);
    return service;
  };
  afterAll(async () => {
    await Promise.all(running.map((r) => stop(r, 'SIGKILL')));
  });

  const internal = { 'content-type': 'application/json', 'x-directory-token': secrets.DIRECTORY_SYNC_TOKEN };
  const leading = async (service: Running) => {
    const text = await (await fetch(`${service.url}/internal/metrics`, { headers: internal })).text();
    return /read_model_leading\{projection="resources"\} 1/.test(text);
  };
  const digest = async (service: Running) =>
    (
      (await (await fetch(`${service.url}/internal/read-models/digest`, { headers: internal })).json()) as {
        digest: string;
      }
    ).digest;

  it('serves writes through one API process, visible through the other, and survives the loss and the freeze of its projector', async () => {
    // given: a projector first (it takes the leases), then a standby and two API processes
    const projector = await start('projector');
    const standby = await start('projector');
    const [api1, api2] = [await start('api'), await start('api')];
    expect(await leading(projector)).toBe(true);
    expect(await leading(standby)).toBe(false);
    // and a projector serves no API: it says where the API is, rather than pointing at a /docs it lacks
    const notServed = await fetch(`${projector!.url}/api/user/getcurrent`);
    expect(notServed.status).toBe(404);
    expect(((await notServed.json()) as { detail: string }).detail).toContain('ROLE=projector');
    expect((await fetch(`${projector!.url}/docs`)).status).toBe(404);
    const directory = await fetch(`${api1!.url}/internal/directory/events`, {
      method: 'POST',
      headers: internal,
      body: JSON.stringify(demoDirectory),
    });
    expect(directory.status).toBe(200);

    const token = await mintSessionToken(secrets.AUTH_JWT_SECRET, { userId: demo.users.team });
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
    const save = async (via: Running, name: string) => {
      const res = await fetch(`${via.url}/api/Resource/SaveProjectResource`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          id: 0,
          name,
          resourceUrl: 'https://example.org/a.pdf',
          privacyLevel: 3,
          communityProjectId: demo.communityProjects.solarIn1,
        }),
      });
      return res.status === 200 ? ((await res.json()) as { id: number }).id : undefined;
    };
    const listed = async (via: Running) => {
      const res = await fetch(`${via.url}/api/Project/GetResourceList`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ projectId: demo.projects.solar, communityId: demo.communities.public1, take: 1000 }),
      });
      return ((await res.json()) as { resources: { list: { id: number }[] } }).resources.list.map((r) => r.id);
    };

    // when a write answers through api1, then api2 shows it at once
    const first = await save(api1!, 'first');
    expect(first).toBeDefined();
    expect(await listed(api2!)).toContain(first);

    // when the projector is killed in the middle of a stream of writes through both API processes
    const acknowledged: number[] = [];
    let writing = true;
    const writers = [api1!, api2!].map(async (via, lane) => {
      for (let i = 0; writing && i < 400; i++) {
        const id = await save(via, `burst ${lane}-${i}`).catch(() => undefined);
        if (id !== undefined) acknowledged.push(id);
      }
    });
    await waitFor(async () => (acknowledged.length >= 20 ? true : undefined), 'writes before the kill');
    await stop(projector, 'SIGKILL');
    // then the standby takes the projections over, and writes go on being answered
    await waitFor(async () => ((await leading(standby)) ? true : undefined), 'the standby taking over');
    const atTakeover = acknowledged.length;
    await waitFor(async () => (acknowledged.length >= atTakeover + 20 ? true : undefined), 'writes after the takeover');
    writing = false;
    await Promise.all(writers);

    // and nothing acknowledged is lost, seen from either API process
    const [seen1, seen2] = [await listed(api1!), await listed(api2!)];
    expect(acknowledged.filter((id) => !seen1.includes(id))).toEqual([]);
    expect(seen2).toEqual(seen1);

    // when the new holder freezes past its lease and a fresh projector takes over
    const fresh = await start('projector');
    process.kill(standby.child.pid!, 'SIGSTOP');
    await waitFor(async () => ((await leading(fresh)) ? true : undefined), 'the fresh projector taking over');
    const during = await save(api1!, 'while frozen');
    expect(during).toBeDefined();
    // then the frozen one, woken, finds its fence refused and stands by
    process.kill(standby.child.pid!, 'SIGCONT');
    const after = await save(api2!, 'after the wake');
    expect(after).toBeDefined();
    await waitFor(async () => ((await leading(standby)) ? undefined : true), 'the woken projector standing by');
    expect(await leading(fresh)).toBe(true);

    // and the shared read models equal a projection of the whole log from scratch: nothing applied twice
    const fromScratch = JSON.parse(await cli({ ...env }, 'digest')) as { digest: string };
    expect(await digest(api1!)).toBe(fromScratch.digest);
    expect(await listed(api2!)).toEqual(expect.arrayContaining([...acknowledged, during, after]));
  });
});

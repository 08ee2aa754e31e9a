/**
 * Crash and retry: clients save with an Idempotency-Key and retry every save that went unanswered
 * (a dropped connection, a 409 while the first attempt may still run, a 503) against whichever of
 * two API processes on one DATA_DIR is up, while those processes are killed with SIGKILL and
 * restarted. The projector is frozen (SIGSTOP) before each kill, so the saves in flight have
 * stored their events and wait for the read models: exactly the saves stored but unanswered.
 * Afterwards every logical save exists exactly once, with the id its client was given.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { mintSessionToken } from '../../src/infra/auth/session-verifier';
import { demo, demoDirectory } from '../support/demo-directory';
import { startService, stop, type Running } from '../support/service-process';

describe('retrying unanswered saves with their Idempotency-Key while processes are killed', () => {
  jest.setTimeout(120_000);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'prs-retry-'));
  const secrets = {
    AUTH_JWT_SECRET: 'idempotent-retry-test-secret-'.padEnd(48, 'x'),
    DIRECTORY_SYNC_TOKEN: 'idempotent-retry-directory-'.padEnd(48, 'y'),
  };
  const env = { DATA_DIR: dataDir, ...secrets };
  const slots: (Running | undefined)[] = [undefined, undefined];
  const everyProcess: Running[] = [];
  /** An API process that also stands by for the projections (the frozen projector's lease lapses). */
  const start = async (slot: number) => {
    const service = await startService({ ...env, ROLE: 'all', PROJECTION_WAIT_MS: '1000' });
    everyProcess.push(service);
    slots[slot] = service;
  };
  const internal = { 'content-type': 'application/json', 'x-directory-token': secrets.DIRECTORY_SYNC_TOKEN };
  /** Resource events the API processes appended, from their metrics. */
  const appended = async (): Promise<number> => {
    let total = 0;
    for (const service of slots) {
      if (!service) continue;
      const text = await (await fetch(`${service.url}/internal/metrics`, { headers: internal })).text();
      total += Number(/events_appended_total\{stream_type="resource"\} (\d+)/.exec(text)?.[1] ?? 0);
    }
    return total;
  };
  afterAll(async () => {
    await Promise.all(everyProcess.map((r) => stop(r, 'SIGKILL')));
  });
  const pause = () => new Promise((resolve) => setImmediate(resolve));

  it('given clients retrying with their keys through kills and restarts, then every logical save exists exactly once', async () => {
    // given: a projector and two API processes on one DATA_DIR, with the demo directory
    const projector = await startService({ ...env, ROLE: 'projector' });
    everyProcess.push(projector);
    await start(0);
    await start(1);
    const seeded = await fetch(`${slots[0]!.url}/internal/directory/events`, {
      method: 'POST',
      headers: internal,
      body: JSON.stringify(demoDirectory),
    });
    expect(seeded.status).toBe(200);
    const token = await mintSessionToken(secrets.AUTH_JWT_SECRET, { userId: demo.users.team });
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
    const run = randomUUID().slice(0, 8);
    const saves = Array.from({ length: 60 }, (_, i) => ({ key: `${run}-${i}`, name: `Retried save ${run} ${i}` }));
    const answered = new Map<string, number>();
    const unexpected: string[] = [];
    let unanswered = 0;

    // when: each client retries its save until answered, whatever happens to the process it reached
    const client = async (save: { key: string; name: string }) => {
      for (let attempt = 0; !answered.has(save.name); attempt++) {
        const target = slots[attempt % 2] ?? slots[(attempt + 1) % 2];
        if (!target) {
          await new Promise((r) => setTimeout(r, 50));
          continue;
        }
        try {
          const res = await fetch(`${target.url}/api/Resource/SaveProjectResource`, {
            method: 'POST',
            headers: { ...headers, 'idempotency-key': save.key },
            body: JSON.stringify({
              id: 0,
              name: save.name,
              resourceUrl: 'https://example.org/r.pdf',
              privacyLevel: 3,
              communityProjectId: demo.communityProjects.solarIn1,
            }),
          });
          const body = (await res.json()) as { id?: number; type?: string };
          if (res.status === 200 && body.id !== undefined) answered.set(save.name, body.id);
          else if (res.status === 503) unanswered += 1;
          else if (res.status !== 409) unexpected.push(`${res.status} ${body.type ?? ''}`);
        } catch {
          // the process died under the request: retry with the same key
        }
        if (!answered.has(save.name)) await new Promise((r) => setTimeout(r, 20));
      }
    };
    const clients = (async () => {
      const queue = [...saves];
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          for (let save = queue.shift(); save; save = queue.shift()) await client(save);
        }),
      );
    })();
    // Three times: freeze the projector, let saves be stored (and left waiting for the read
    // models), kill both API processes, thaw the projector, start them again.
    for (let round = 1; round <= 3; round++) {
      while (answered.size < (saves.length * round) / 5) await pause();
      const before = await appended();
      const answeredBefore = unanswered;
      projector.child.kill('SIGSTOP');
      // A save stored after this cannot be answered until the thaw; one stored just before may be
      // left waiting too, and then answers 503 (stored, not yet visible) within PROJECTION_WAIT_MS.
      while ((await appended()) <= before && unanswered === answeredBefore && answered.size < saves.length)
        await pause();
      const victims = slots.splice(0, 2, undefined, undefined);
      await Promise.all(victims.map((victim) => victim && stop(victim, 'SIGKILL')));
      projector.child.kill('SIGCONT');
      await Promise.all([start(0), start(1)]);
    }
    await clients;

    // then: each save once, under the id its client was answered
    expect(unexpected).toEqual([]);
    const list = await fetch(`${slots[0]!.url}/api/Project/GetResourceList`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ projectId: demo.projects.solar, communityId: demo.communities.public1, take: 1000 }),
    });
    const listed = (
      (await list.json()) as { resources: { list: { id: number; name: string }[] } }
    ).resources.list.filter((r) => r.name.includes(run));
    for (const save of saves) {
      const copies = listed.filter((r) => r.name === save.name);
      expect(copies.map((r) => r.id)).toEqual([answered.get(save.name)]);
    }
    expect(listed).toHaveLength(saves.length);
  });
});

/**
 * Idempotency-Key on the POST routes that change state (docs/api.md "Retries"), over HTTP: a retry
 * replays the first answer, never writes twice, on a restarted process too; another request under
 * the same key is a 422; a retry while the first is still being served a 409; an attempt that died
 * after its write is answered from that write; a secret is never kept; keys last 24 hours.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { requestFingerprint } from '../../src/api/idempotency';
import { runUnderClaim } from '../../src/commands/idempotent-attempt';
import { saveProjectResource } from '../../src/resources/project-resource-commands';
import { demo } from '../support/demo-directory';
import { newResource, scope } from '../support/resource-api';
import type { RequestOptions, TestServer } from '../support/test-server';
import { startTestServer } from '../support/test-server';
import { manualClock, seeded } from '../support/seeded-server';

const { users, communityProjects, projects } = demo;
const SAVE = '/api/Resource/SaveProjectResource';
const HOUR_MS = 3_600_000;

let keyCounter = 0;
const newKey = () => `key-${process.pid}-${Date.now()}-${++keyCounter}`;

describe('Idempotency-Key', () => {
  const clock = manualClock();
  let server: TestServer;
  beforeAll(async () => {
    server = await seeded({}, clock.now);
  });
  afterAll(() => server.close());

  const as = async (userId: number, key?: string): Promise<RequestOptions> => ({
    token: await server.token(userId),
    ...(key === undefined ? {} : { headers: { 'idempotency-key': key } }),
  });
  /** How many resources of project 10 in community 1 named `name` the team sees. */
  const countNamed = async (name: string): Promise<number> => {
    const res = await server.post(
      '/api/Project/GetResourceList',
      { projectId: projects.solar, communityId: 1, take: 1000 },
      await as(users.team),
    );
    expect(res.status).toBe(200);
    return (res.body.resources.list as { name: string }[]).filter((r) => r.name === name).length;
  };

  it('given a save answered under a key, when it is sent again with that key, then the same answer is replayed and nothing is written twice', async () => {
    const key = newKey();
    const body = newResource(scope.communityProject(communityProjects.solarIn1));
    const first = await server.post(SAVE, body, await as(users.team, key));
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();

    const retry = await server.post(SAVE, body, await as(users.team, key));

    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toEqual(first.body);
    expect(await countNamed(body.name)).toBe(1);
  });

  it('given a key, when the same body comes with its fields in another order, then it is the same request', async () => {
    const key = newKey();
    const body = newResource(scope.communityProject(communityProjects.solarIn1));
    const first = await server.post(SAVE, body, await as(users.team, key));
    const reordered = Object.fromEntries(Object.entries(body).reverse());

    const retry = await server.post(SAVE, reordered, await as(users.team, key));

    expect(retry.status).toBe(200);
    expect(retry.body).toEqual(first.body);
  });

  it('given a key used for one save, when another body comes with it, then 422 idempotency-key-reused and nothing is written', async () => {
    const key = newKey();
    const body = newResource(scope.communityProject(communityProjects.solarIn1));
    expect((await server.post(SAVE, body, await as(users.team, key))).status).toBe(200);
    const other = newResource(scope.communityProject(communityProjects.solarIn1));

    const res = await server.post(SAVE, other, await as(users.team, key));

    expect(res.status).toBe(422);
    expect(res.body.type).toBe('/problems/idempotency-key-reused');
    expect(await countNamed(other.name)).toBe(0);
  });

  it('given a key used on one route, when it is sent to another route, then 422 idempotency-key-reused', async () => {
    const key = newKey();
    const created = await server.post(
      SAVE,
      newResource(scope.communityProject(communityProjects.solarIn1)),
      await as(users.team, key),
    );
    expect(created.status).toBe(200);

    const res = await server.post(
      '/api/Privacy/UnshareResourceFromCommunity',
      { resourceId: created.body.id, communityId: 2 },
      await as(users.team, key),
    );

    expect(res.status).toBe(422);
    expect(res.body.type).toBe('/problems/idempotency-key-reused');
  });

  it('given a key of one user, when another user sends the same key, then each gets their own answer', async () => {
    const key = newKey();
    const body = newResource(scope.communityProject(communityProjects.solarIn1));
    const ada = await server.post(SAVE, body, await as(users.team, key));
    const hal = await server.post(SAVE, body, await as(users.outsider, key));

    expect(ada.status).toBe(200);
    expect(hal.status).toBe(403);
    expect(hal.body.type).toBe('/problems/forbidden');
    expect(hal.headers.get('idempotent-replayed')).toBeNull();
  });

  it('given a refused save under a key, when it is retried, then the refusal is replayed', async () => {
    const key = newKey();
    const body = newResource(scope.communityProject(communityProjects.solarIn1));
    const first = await server.post(SAVE, body, await as(users.outsider, key));
    expect(first.status).toBe(403);

    const retry = await server.post(SAVE, body, await as(users.outsider, key));

    expect(retry.status).toBe(403);
    expect(retry.body.type).toBe('/problems/forbidden');
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
  });

  it('given a request with this key still being served by another live process, when it is retried, then 409 idempotency-key-in-progress with Retry-After', async () => {
    const key = newKey();
    const body = newResource(scope.communityProject(communityProjects.solarIn1));
    // given: the holder is the process that runs this test file's worker (alive), not this server's attempt
    const now = clock.now().getTime();
    const claimed = await server.services.idempotencyKeys.claimIdempotencyKey(
      { scope: `user:${users.team}`, key, owner: `${os.hostname()}/${process.ppid}/another-attempt` },
      { fingerprint: requestFingerprint('POST', SAVE, body), now, expiresAt: now + 24 * HOUR_MS },
    );
    expect(claimed).toBe(true);

    const res = await server.post(SAVE, body, await as(users.team, key));

    expect(res.status).toBe(409);
    expect(res.body.type).toBe('/problems/idempotency-key-in-progress');
    expect(res.headers.get('retry-after')).toBe('1');
    expect(await countNamed(body.name)).toBe(0);
  });

  it('given an attempt that stored its write and died before answering, when it is retried, then the answer comes from that write and nothing is written again', async () => {
    const key = newKey();
    const body = newResource(scope.communityProject(communityProjects.solarIn1));
    // given: a process that is gone held the key and stored the save
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    const claim = { scope: `user:${users.team}`, key, owner: `${os.hostname()}/${gone}/dead-attempt` };
    const now = clock.now().getTime();
    expect(
      await server.services.idempotencyKeys.claimIdempotencyKey(claim, {
        fingerprint: requestFingerprint('POST', SAVE, body),
        now,
        expiresAt: now + 24 * HOUR_MS,
      }),
    ).toBe(true);
    const caller = {
      userId: users.team,
      name: 'Ada',
      status: 'active' as const,
      platformRoles: [],
      actor: { userId: users.team, credential: 'session' as const },
    };
    const stored = await runUnderClaim(claim, () =>
      saveProjectResource(server.services, { caller, correlationId: 'dead-attempt' }, body),
    );

    const retry = await server.post(SAVE, body, await as(users.team, key));

    expect(retry.status).toBe(200);
    expect(retry.body.id).toBe(stored.resource?.resourceId);
    expect(retry.body.name).toBe(body.name);
    expect(await countNamed(body.name)).toBe(1);
    const again = await server.post(SAVE, body, await as(users.team, key));
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(retry.body);
  });

  it('given a key older than 24 hours, when it is sent again, then it is a new request', async () => {
    const key = newKey();
    const body = newResource(scope.communityProject(communityProjects.solarIn1));
    const first = await server.post(SAVE, body, await as(users.team, key));
    expect(first.status).toBe(200);
    clock.advance(24 * HOUR_MS + 1000);

    const later = await server.post(SAVE, body, await as(users.team, key));

    expect(later.status).toBe(200);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    expect(later.body.id).not.toBe(first.body.id);
    expect(await countNamed(body.name)).toBe(2);
  });

  it('given a key older than 24 hours, when another request brings a key, then the old record is deleted from the store, not only hidden', async () => {
    const key = newKey();
    const ref = { scope: `user:${users.team}`, key };
    const sentAt = clock.now().getTime();
    const first = await server.post(
      SAVE,
      newResource(scope.communityProject(communityProjects.solarIn1)),
      await as(users.team, key),
    );
    expect(first.status).toBe(200);
    expect(await server.services.idempotencyKeys.readIdempotencyKey(ref, sentAt)).toBeDefined();
    clock.advance(24 * HOUR_MS + 1000);

    const other = await server.post(
      SAVE,
      newResource(scope.communityProject(communityProjects.solarIn1)),
      await as(users.team, newKey()),
    );

    expect(other.status).toBe(200);
    // Read as of the time it was sent, a record still stored would be found.
    expect(await server.services.idempotencyKeys.readIdempotencyKey(ref, sentAt)).toBeUndefined();
  });

  it.each([[''], ['a'.repeat(256)], ['two words']])(
    'given an unusable key %j, then 400 naming Idempotency-Key',
    async (key) => {
      const res = await server.post(
        SAVE,
        newResource(scope.communityProject(communityProjects.solarIn1)),
        await as(users.team, key),
      );

      expect(res.status).toBe(400);
      expect(res.body.type).toBe('/problems/validation');
      expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['Idempotency-Key']);
    },
  );

  it('given a privacy change under a key, when it is retried, then the empty 200 is replayed', async () => {
    const created = await server.post(
      SAVE,
      newResource(scope.communityProject(communityProjects.solarIn1)),
      await as(users.team),
    );
    const key = newKey();
    const body = { resourceId: created.body.id, owner: { privacyLevel: 2, circlesToAdd: [], circlesToRemove: [] } };
    const first = await server.post('/api/Privacy/SaveResourcePrivacy', body, await as(users.team, key));
    expect(first.status).toBe(200);

    const retry = await server.post('/api/Privacy/SaveResourcePrivacy', body, await as(users.team, key));

    expect(retry.status).toBe(200);
    expect(retry.text).toBe('');
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
  });

  it('given an API key created under a key, when it is retried, then the same record is replayed without the secret, which is stored nowhere', async () => {
    const key = newKey();
    const first = await server.post('/api/apikey', { name: 'retried' }, await as(users.admin1, key));
    expect(first.status).toBe(200);
    expect(typeof first.body.key).toBe('string');

    const retry = await server.post('/api/apikey', { name: 'retried' }, await as(users.admin1, key));

    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    const { key: secretKey, ...record } = first.body as { key: string };
    expect(retry.body).toEqual(record);
    const listed = await server.get('/api/apikey', await as(users.admin1));
    expect((listed.body as { name: string }[]).filter((k) => k.name === 'retried')).toHaveLength(1);
    const secret = secretKey.split('.')[1] ?? secretKey;
    for (const file of fs.readdirSync(server.dataDir, { recursive: true }) as string[]) {
      const full = path.join(server.dataDir, file);
      if (fs.statSync(full).isFile()) expect(fs.readFileSync(full).includes(secret)).toBe(false);
    }
  });

  it('given a rotation under a key, when it is retried, then the rotation is not repeated: the new secret keeps working', async () => {
    const created = await server.post('/api/apikey', { name: 'rotated' }, await as(users.admin1));
    const key = newKey();
    const rotated = await server.post(
      `/api/apikey/${created.body.id}/rotate`,
      { graceHours: 0 },
      await as(users.admin1, key),
    );
    expect(rotated.status).toBe(200);

    const retry = await server.post(
      `/api/apikey/${created.body.id}/rotate`,
      { graceHours: 0 },
      await as(users.admin1, key),
    );

    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body.key).toBeUndefined();
    expect((await server.get('/api/user/getcurrent', { apiKey: rotated.body.key })).status).toBe(200);
  });
});

describe('Idempotency-Key across a restart', () => {
  it('given a save answered under a key by a process that stopped, when the retry reaches a new process on the same data, then it is replayed', async () => {
    const first = await seeded();
    const dataDir = first.dataDir;
    const key = newKey();
    const body = newResource(scope.communityProject(communityProjects.solarIn1));
    const answered = await first.post(SAVE, body, {
      token: await first.token(users.team),
      headers: { 'idempotency-key': key },
    });
    expect(answered.status).toBe(200);
    await first.close();

    const second = await startTestServer({ DATA_DIR: dataDir });
    try {
      const retry = await second.post(SAVE, body, {
        token: await second.token(users.team),
        headers: { 'idempotency-key': key },
      });

      expect(retry.status).toBe(200);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(retry.body).toEqual(answered.body);
    } finally {
      await second.close();
    }
  });
});

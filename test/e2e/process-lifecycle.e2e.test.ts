/**
 * The service as an operator runs it: a real process on the embedded default, the CLI beside
 * it on the same DATA_DIR, restarts, and a kill -9 in the middle of a burst of writes.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { mintSessionToken } from '../../src/infra/auth/session-verifier';
import { cli, startService, stop, waitFor, type Running } from '../support/service-process';

describe('the service process on its embedded default', () => {
  jest.setTimeout(120_000);
  // Each test runs its own service on its own DATA_DIR, seeded by itself.
  let dataDir: string;
  let env: { DATA_DIR: string };
  let service: Running | undefined;

  beforeEach(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'prs-e2e-'));
    env = { DATA_DIR: dataDir };
  });
  afterEach(async () => {
    if (service) await stop(service, 'SIGKILL');
    service = undefined;
  });

  const getCurrent = async (url: string, token: string) =>
    fetch(`${url}/api/user/getcurrent`, { headers: { authorization: `Bearer ${token}` } });

  it('given a started service, then its startup probe answers 200 started', async () => {
    service = await startService(env);

    const started = await fetch(`${service.url}/health/started`);

    expect(started.status).toBe(200);
    expect(await started.json()).toEqual({ status: 'started' });
  });

  it('given SIGTERM while a request is in flight and no listening window, then it stops taking connections, the request runs to its end, and the process exits 0', async () => {
    service = await startService({ ...env, SHUTDOWN_GRACE_SECONDS: '60', SHUTDOWN_LISTEN_SECONDS: '0' });
    const token = JSON.parse(fs.readFileSync(path.join(dataDir, 'dev-secrets.json'), 'utf8')) as {
      directoryToken: string;
    };
    const body = JSON.stringify({
      events: [{ type: 'UserUpserted', data: { userId: 77, name: 'Late Writer', status: 'active' } }],
    });
    const { hostname, port } = new URL(service.url);
    // given: a request whose body is half sent
    const request = http.request({
      host: hostname,
      port,
      method: 'POST',
      path: '/internal/directory/events',
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        'x-directory-token': token.directoryToken,
      },
    });
    const answered = new Promise<{ status: number; text: string }>((resolve, reject) => {
      request.on('response', (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      request.on('error', reject);
    });
    request.write(body.slice(0, 10));
    await new Promise<void>((resolve) => request.on('socket', (socket) => socket.once('connect', resolve)));
    const exited = new Promise<number | null>((resolve) => service!.child.once('exit', (code) => resolve(code)));
    // when: SIGTERM, and the service stops taking connections
    service.child.kill('SIGTERM');
    await waitFor(async () => {
      try {
        await fetch(`${service!.url}/health/live`);
        return undefined;
      } catch {
        return true;
      }
    }, 'the listener closed');
    expect(service.child.exitCode).toBeNull();
    request.end(body.slice(10));
    // then
    const answer = await answered;
    expect(answer.status).toBe(200);
    expect(await exited).toBe(0);
    service = undefined;
  });

  it('given SIGTERM, then for its listening window it still takes connections: readiness answers 503 draining, other requests are answered with Connection: close; then it closes its listener and exits 0 before its grace is over', async () => {
    service = await startService({ ...env, SHUTDOWN_GRACE_SECONDS: '60', SHUTDOWN_LISTEN_SECONDS: '3' });
    const exited = new Promise<number | null>((resolve) => service!.child.once('exit', (code) => resolve(code)));
    const signalled = Date.now();
    // when
    service.child.kill('SIGTERM');
    // then: a new connection is taken, readiness says the process is going away
    const ready = await waitFor(async () => {
      const res = await fetch(`${service!.url}/health/ready`);
      return res.status === 503 ? res : undefined;
    }, 'readiness 503');
    expect(await ready.json()).toMatchObject({ status: 'not ready', checks: { process: 'draining' } });
    const live = await fetch(`${service.url}/health/live`);
    expect(live.status).toBe(200);
    expect(live.headers.get('connection')).toBe('close');
    // and once the window is over the listener closes and the process exits on its own
    expect(await exited).toBe(0);
    expect(Date.now() - signalled).toBeLessThan(60_000);
    service = undefined;
  });

  it('given SIGINT (Ctrl-C), then it stops taking connections at once and exits 0', async () => {
    service = await startService({ ...env, SHUTDOWN_GRACE_SECONDS: '60', SHUTDOWN_LISTEN_SECONDS: '60' });
    const exited = new Promise<number | null>((resolve) => service!.child.once('exit', (code) => resolve(code)));
    // when
    service.child.kill('SIGINT');
    // then: the long listening window is for orchestrators, not for a developer's terminal
    expect(await exited).toBe(0);
    await expect(fetch(`${service.url}/health/live`)).rejects.toThrow();
    service = undefined;
  });

  it('serves, seeds from the CLI, authenticates a CLI token, and keeps its data across a restart', async () => {
    service = await startService(env);
    expect(await cli(env, 'seed')).toMatch(/imported \d+ directory events/);
    const token = await cli(env, 'dev-token', '--user', '1');

    const first = await waitFor(async () => {
      const res = await getCurrent(service!.url, token);
      return res.status === 200 ? ((await res.json()) as { id: number; name: string }) : undefined;
    }, 'the seeded user');
    expect(first).toMatchObject({ id: 1, name: 'Ada Lovelace', credential: 'session' });

    await stop(service, 'SIGTERM');
    service = await startService(env);
    const again = await getCurrent(service.url, token);
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ id: 1, name: 'Ada Lovelace' });
  });

  it('a kill -9 in the middle of a burst loses no acknowledged event, and the read model rebuilt at start equals a fresh rebuild', async () => {
    service = await startService(env);
    const seeded = await cli(env, 'seed');
    expect(seeded).toMatch(/imported \d+ directory events/);
    const secrets = JSON.parse(fs.readFileSync(path.join(dataDir, 'dev-secrets.json'), 'utf8')) as {
      directoryToken: string;
      jwtSecret: string;
    };
    const headers = { 'content-type': 'application/json', 'x-directory-token': secrets.directoryToken };
    const { url } = service;

    // Given a quiet service, its read-model digest before a kill
    const digestOf = async (u: string) =>
      ((await (await fetch(`${u}/internal/read-models/digest`, { headers })).json()) as { digest: string }).digest;
    const quiet = await digestOf(url);

    // When a burst of directory imports is under way and the process is killed: four lanes send
    // one import after another until the service stops answering, so the kill lands in the
    // middle of the burst however fast or slow this machine is
    const acknowledged: number[] = [];
    let nextUserId = 2000;
    const send = async (userId: number) => {
      const res = await fetch(`${url}/internal/directory/events`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          events: [{ type: 'UserUpserted', data: { userId, name: `Burst ${userId}`, status: 'active' } }],
        }),
      });
      if (res.status === 200) acknowledged.push(userId);
    };
    const lanes = Array.from({ length: 4 }, async () => {
      for (;;) {
        try {
          await send(nextUserId++);
        } catch (error) {
          return error;
        }
      }
    });
    await waitFor(async () => (acknowledged.length >= 40 ? true : undefined), 'some acknowledged imports');
    await stop(service, 'SIGKILL');
    const endedBy = await Promise.all(lanes);
    // every lane was still sending when the process died: each ended on a request that failed
    expect(endedBy).toHaveLength(4);
    // fetch's "fetch failed" (a TypeError of Node's realm, not of the test's): refused or reset
    for (const error of endedBy) expect(error).toMatchObject({ name: 'TypeError' });
    expect(acknowledged.length).toBeGreaterThanOrEqual(40);

    // Then after a restart every acknowledged event is there
    service = await startService(env);
    const missing: number[] = [];
    for (const userId of acknowledged) {
      const res = await getCurrent(service.url, await mintSessionToken(secrets.jwtSecret, { userId }));
      if (res.status !== 200) missing.push(userId);
    }
    expect(missing).toEqual([]);
    const restarted = await digestOf(service.url);
    const fresh = JSON.parse(await cli(env, 'digest')) as { digest: string };
    expect(restarted).toBe(fresh.digest);
    expect(restarted).not.toBe(quiet);
    const counts = (
      (await (await fetch(`${service.url}/internal/read-models/digest`, { headers })).json()) as {
        counts: Record<string, number>;
      }
    ).counts;
    const seededUsers = 11;
    expect(counts.doc_dir_users).toBeGreaterThanOrEqual(seededUsers + acknowledged.length);
    expect(counts.doc_dir_users).toBeLessThanOrEqual(seededUsers + (nextUserId - 2000));
  });
});

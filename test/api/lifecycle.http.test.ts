/**
 * What an orchestrator's probes see around the service's life: while it starts (listening before
 * the read models caught up) and once a SIGTERM made it drain. The process itself (SIGTERM, the
 * grace) is test/e2e/process-lifecycle.e2e.test.ts.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { API_VERSION } from '../../src/api/api-version';
import { startingAnswers } from '../../src/app/starting';
import type { TestServer } from '../support/test-server';
import { startTestServer } from '../support/test-server';

describe('while the service starts', () => {
  let server: http.Server;
  let url: string;

  beforeAll(async () => {
    server = http.createServer(startingAnswers);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('given the liveness probe, then 200: the process answers', async () => {
    const res = await fetch(`${url}/health/live`);

    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
    // Answered before the app exists, yet by the same API version.
    expect(res.headers.get('api-version')).toBe(API_VERSION);
  });

  it('given the startup probe, then 503 starting', async () => {
    const res = await fetch(`${url}/health/started`);

    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ status: 'starting' });
  });

  it.each(['/health/ready', '/api/Project/GetResourceList', '/internal/metrics'])(
    'given %s, then 503 unavailable with Retry-After, whatever the credential',
    async (path) => {
      const res = await fetch(`${url}${path}`, { method: 'POST', body: '{}', headers: { authorization: 'Bearer x' } });

      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(res.headers.get('api-version')).toBe(API_VERSION);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect(((await res.json()) as { type: string }).type).toBe('/problems/unavailable');
    },
  );
});

describe('once the service drains', () => {
  // Each test has a server of its own: draining one cannot be undone.
  let server: TestServer | undefined;

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('given a started service, then the startup probe answers 200 and readiness names the process ok', async () => {
    server = await startTestServer();

    const started = await server.get('/health/started');
    const ready = await server.get<{ checks: { process: string } }>('/health/ready');

    expect(started.status).toBe(200);
    expect(ready.status).toBe(200);
    expect(ready.body.checks.process).toBe('ok');
  });

  it('given the service drains, then readiness is 503 naming the process draining, and liveness stays 200', async () => {
    server = await startTestServer();
    server.services.drain();

    const ready = await server.get<{ status: string; checks: { process: string } }>('/health/ready');
    const live = await server.get('/health/live');

    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ status: 'not ready', checks: { process: 'draining' } });
    expect(live.status).toBe(200);
  });
});

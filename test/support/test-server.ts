import fs from 'node:fs';
import type { Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../../src/app/app';
import { httpServerFor } from '../../src/app/http-server';
import { loadConfig } from '../../src/config/config';
import { mintSessionToken } from '../../src/infra/auth/session-verifier';
import { createLogger, type Logger } from '../../src/observability/logger';
import type { Services } from '../../src/app/services';
import { createServices } from '../../src/app/services';
import { documentRefuses } from './documented-request';
import { backendEnv } from './backend';

export type HttpResult<T = unknown> = { status: number; headers: Headers; body: T; text: string };

export type RequestOptions = { token?: string; apiKey?: string; headers?: Record<string, string> };

/**
 * The whole service on its embedded adapters, listening on a real port in a fresh DATA_DIR.
 * Tests talk to it over HTTP only, as a client following docs/api.md would.
 */
export type TestServer = {
  readonly url: string;
  readonly dataDir: string;
  readonly services: Services;
  token(userId: number, options?: { impersonatorId?: number; ttlSeconds?: number; issuedAt?: number }): Promise<string>;
  /** A plain session token for the user, minted once per server and reused. */
  sessionToken(userId: number): Promise<string>;
  directory(events: readonly { type: string; data: Record<string, unknown> }[]): Promise<HttpResult>;
  request<T = any>(method: string, path: string, body?: unknown, options?: RequestOptions): Promise<HttpResult<T>>;
  get<T = any>(path: string, options?: RequestOptions): Promise<HttpResult<T>>;
  post<T = any>(path: string, body: unknown, options?: RequestOptions): Promise<HttpResult<T>>;
  close(): Promise<void>;
};

/**
 * `clock`: the service's clock, for tests of time (expiry, lockouts) that must never sleep;
 * `logger`: where the service logs, for tests of its log lines.
 */
export async function startTestServer(
  env: Record<string, string> = {},
  options: { clock?: () => Date; logger?: Logger } = {},
): Promise<TestServer> {
  const dataDir = env.DATA_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), 'prs-test-'));
  const config = loadConfig({
    NODE_ENV: 'test',
    // TEST_LOG_LEVEL=error shows what a test server logged, say the cause of an unexpected 500.
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    PORT: '0',
    ...backendEnv({ ...env, DATA_DIR: dataDir }),
    ...env,
    DATA_DIR: dataDir,
  });
  const services = await createServices(config, options.logger ?? createLogger(config.LOG_LEVEL), options.clock);
  const app = buildApp(services);
  const server: Server = await new Promise((resolve) => {
    const s = httpServerFor(app).listen(0, '127.0.0.1', () => resolve(s));
  });
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  const url = `http://127.0.0.1:${address.port}`;

  const request = async <T>(method: string, p: string, body?: unknown, options: RequestOptions = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.apiKey) headers['x-api-key'] = options.apiKey;
    let payload: string | undefined;
    if (body !== undefined) {
      headers['content-type'] ??= 'application/json';
      payload = typeof body === 'string' ? body : JSON.stringify(body);
    }
    const response = await fetch(url + p, { method, headers, body: payload });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    // What the service accepted, the document must accept too (test/support/documented-request.ts).
    if (response.ok && payload !== undefined && headers['content-type'] === 'application/json') {
      let sent: unknown;
      try {
        sent = JSON.parse(payload);
      } catch {
        sent = undefined;
      }
      const refused = sent === undefined ? undefined : documentRefuses(method, new URL(url + p).pathname, sent);
      if (refused !== undefined) {
        throw new Error(
          `the service answered ${response.status} to ${method} ${p}, whose body the OpenAPI document refuses: ${refused}`,
        );
      }
    }
    return { status: response.status, headers: response.headers, body: parsed as T, text };
  };

  // Issued at the service's own clock, so tests that move the clock get tokens it accepts.
  const token = (userId: number, options = {}) =>
    mintSessionToken(services.secrets.jwtSecret ?? '', {
      userId,
      issuedAt: Math.floor(services.clock().getTime() / 1000),
      ...options,
    });
  const sessions = new Map<number, Promise<string>>();

  return {
    url,
    dataDir,
    services,
    token,
    sessionToken(userId) {
      const cached = sessions.get(userId) ?? token(userId);
      sessions.set(userId, cached);
      return cached;
    },
    directory: (events) =>
      request(
        'POST',
        '/internal/directory/events',
        { events },
        {
          headers: { 'x-directory-token': services.secrets.directoryToken },
        },
      ),
    request,
    get: (p, options) => request('GET', p, undefined, options),
    post: (p, body, options) => request('POST', p, body, options),
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await services.close();
    },
  };
}

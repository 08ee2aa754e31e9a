/**
 * What tracing costs a request (`npx tsx bench/tracing-bench.ts`): the service in this process on
 * a fresh DATA_DIR, one load alternated between three modes in short slices (off, off with a
 * caller's `traceparent`, the SDK on with an exporter that drops every span), so that the
 * machine's noise falls on every mode alike. Per mode: requests per second and the process's CPU
 * time per request (autocannon runs in this process too: the same client cost in every mode, so
 * the differences are the service's). Asserts nothing.
 *
 *   BENCH_LOAD=list|save (list: GetResourceList, no span but the request's; save: SaveProjectResource,
 *   every span of a write)   BENCH_SLICES=3 (rounds of the three modes)   BENCH_SECONDS=3 (per slice)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Server } from 'node:http';
import autocannon from 'autocannon';
import type { ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { buildApp } from '../src/app/app';
import { httpServerFor } from '../src/app/http-server';
import { createServices } from '../src/app/services';
import { loadConfig } from '../src/config/config';
import { mintSessionToken } from '../src/infra/auth/session-verifier';
import { startTracing } from '../src/infra/otel/tracing-sdk';
import { createLogger } from '../src/observability/logger';
import { demo, demoDirectory } from '../test/support/demo-directory';

const LOAD = process.env.BENCH_LOAD ?? 'list';
const SLICES = Number(process.env.BENCH_SLICES ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

/** Spans made, batched and handed over, then dropped: the SDK's cost without a collector's. */
class DroppingExporter implements SpanExporter {
  exported = 0;
  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.exported += spans.length;
    done({ code: 0 });
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

type Mode = 'off' | 'off+traceparent' | 'on';

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'prs-tracing-bench-'));
  const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', PORT: '0', DATA_DIR: dataDir });
  const services = await createServices(config, createLogger('silent'));
  const server: Server = await new Promise((resolve) => {
    const s = httpServerFor(buildApp(services)).listen(0, '127.0.0.1', () => resolve(s));
  });
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  const url = `http://127.0.0.1:${address.port}`;
  const fed = await fetch(`${url}/internal/directory/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-directory-token': services.secrets.directoryToken },
    body: JSON.stringify({ events: demoDirectory.events }),
  });
  if (fed.status !== 200) throw new Error(`directory: ${fed.status}`);
  const token = await mintSessionToken(services.secrets.jwtSecret ?? '', { userId: demo.users.team });
  const request =
    LOAD === 'save'
      ? {
          path: '/api/Resource/SaveProjectResource',
          body: JSON.stringify({
            id: 0,
            name: 'Bench notes',
            resourceUrl: 'https://example.org/bench.pdf',
            privacyLevel: 3,
            communityProjectId: demo.communityProjects.solarIn1,
          }),
        }
      : {
          path: '/api/Project/GetResourceList',
          body: JSON.stringify({ projectId: demo.projects.solar, communityId: demo.communities.public1, take: 20 }),
        };

  const exporter = new DroppingExporter();
  const results: Record<Mode, { requests: number; seconds: number; cpuMicros: number }> = {
    off: { requests: 0, seconds: 0, cpuMicros: 0 },
    'off+traceparent': { requests: 0, seconds: 0, cpuMicros: 0 },
    on: { requests: 0, seconds: 0, cpuMicros: 0 },
  };
  const slice = async (mode: Mode) => {
    const stop = mode === 'on' ? startTracing({}, { exporter }) : undefined;
    const headers: Record<string, string> = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
    if (mode !== 'off') headers.traceparent = TRACEPARENT;
    const cpu = process.cpuUsage();
    const result = await autocannon({
      url: url + request.path,
      method: 'POST',
      headers,
      body: request.body,
      connections: LOAD === 'save' ? 16 : 32,
      duration: SECONDS,
    });
    const used = process.cpuUsage(cpu);
    await stop?.();
    if (result.non2xx > 0) throw new Error(`${mode}: ${result.non2xx} answers were not 2xx`);
    const total = results[mode];
    total.requests += result.requests.total;
    total.seconds += SECONDS;
    total.cpuMicros += used.user + used.system;
  };
  for (let i = 0; i < SLICES; i++) {
    const order: Mode[] = i % 2 === 0 ? ['off', 'off+traceparent', 'on'] : ['on', 'off+traceparent', 'off'];
    for (const mode of order) await slice(mode);
  }
  console.log(`load ${LOAD}, ${SLICES} × ${SECONDS} s per mode, ${exporter.exported} spans dropped`);
  for (const [mode, r] of Object.entries(results)) {
    const perSecond = r.requests / r.seconds;
    const cpuPerRequest = r.cpuMicros / r.requests;
    console.log(
      `${mode.padEnd(16)} ${perSecond.toFixed(0).padStart(6)} req/s  ${cpuPerRequest.toFixed(0)} µs CPU/request`,
    );
  }
  server.close();
  server.closeAllConnections();
  await services.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

/**
 * A write and its projection as one trace across processes (docs/operations.md "Traces"): an API
 * server in this process collects its spans in memory; a projector, a real process on the same
 * DATA_DIR, exports its spans over OTLP/HTTP (JSON) to a receiver in this test. The projector's
 * fold of the saved resource's events continues the request's trace from the `traceparent` in
 * their metadata: a child of the request's span.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { startTracing } from '../../src/infra/otel/tracing-sdk';
import { demo, demoDirectory } from '../support/demo-directory';
import { startService, stop, waitFor, type Running } from '../support/service-process';
import { startTestServer, type TestServer } from '../support/test-server';

type OtlpValue = { stringValue?: string; intValue?: string | number };
type OtlpSpan = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes?: { key: string; value: OtlpValue }[];
};
type OtlpExport = {
  resourceSpans: {
    resource?: { attributes?: { key: string; value: OtlpValue }[] };
    scopeSpans: { spans: OtlpSpan[] }[];
  }[];
};
type Received = OtlpSpan & { service: string | undefined; attrs: Record<string, string | undefined> };

const CALLER_TRACE = '0af7651916cd43dd8448eb211c80319c';
const TRACEPARENT = `00-${CALLER_TRACE}-b7ad6b7169203331-01`;

const valueOf = (value: OtlpValue) =>
  value.stringValue ?? (value.intValue === undefined ? undefined : String(value.intValue));
const attributesOf = (list: { key: string; value: OtlpValue }[] = []) =>
  Object.fromEntries(list.map(({ key, value }) => [key, valueOf(value)]));

/** An OTLP/HTTP receiver of JSON trace exports: what a collector would get. */
async function otlpReceiver(): Promise<{ url: string; spans: Received[]; close(): Promise<void> }> {
  const spans: Received[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (req.url === '/v1/traces' && req.headers['content-type']?.startsWith('application/json')) {
        for (const batch of (JSON.parse(body) as OtlpExport).resourceSpans) {
          const service = attributesOf(batch.resource?.attributes)['service.name'];
          for (const scope of batch.scopeSpans)
            for (const span of scope.spans) spans.push({ ...span, service, attrs: attributesOf(span.attributes) });
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  return {
    url: `http://127.0.0.1:${address.port}`,
    spans,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('a write and its projection in one trace across processes', () => {
  jest.setTimeout(120_000);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'prs-traces-'));
  const secrets = {
    AUTH_JWT_SECRET: 'traces-test-secret-'.padEnd(48, 'x'),
    DIRECTORY_SYNC_TOKEN: 'traces-test-token-'.padEnd(48, 'y'),
  };
  const exporter = new InMemorySpanExporter();
  let receiver: Awaited<ReturnType<typeof otlpReceiver>>;
  let projector: Running | undefined;
  let api: TestServer | undefined;
  let stopTracing: (() => Promise<void>) | undefined;
  afterAll(async () => {
    await api?.close();
    await stopTracing?.();
    if (projector) await stop(projector, 'SIGKILL');
    await receiver?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("given a projector process exporting over OTLP and an API server tracing in memory, when a resource is saved with a caller's traceparent, then the caller's trace holds the whole chain: the idempotency claim, the command and its append, the wait for the read models, and in the projector the fold of its events, each under the request's span", async () => {
    // given
    receiver = await otlpReceiver();
    projector = await startService({
      DATA_DIR: dataDir,
      ROLE: 'projector',
      ...secrets,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_SERVICE_NAME: 'projector-under-test',
      OTEL_BSP_SCHEDULE_DELAY: '50',
    });
    stopTracing = startTracing({}, { exporter, immediate: true });
    api = await startTestServer({ DATA_DIR: dataDir, ROLE: 'api', ...secrets });
    expect((await api.directory(demoDirectory.events)).status).toBe(200);

    // when
    const res = await api.post(
      '/api/Resource/SaveProjectResource',
      {
        id: 0,
        name: 'Projected elsewhere',
        resourceUrl: 'https://example.org/elsewhere.pdf',
        privacyLevel: 3,
        communityProjectId: demo.communityProjects.solarIn1,
      },
      {
        token: await api.sessionToken(demo.users.team),
        headers: { traceparent: TRACEPARENT, 'idempotency-key': 'trace-the-whole-chain' },
      },
    );

    // then
    expect(res.status).toBe(200);
    const stream = `resource-${(res.body as { id: number }).id}`;
    const spans = exporter.getFinishedSpans();
    // The caller's trace only: the directory's import before it made spans of its own.
    const named = (name: string) => spans.filter((s) => s.name === name && s.spanContext().traceId === CALLER_TRACE);
    const request = named('POST /api/Resource/SaveProjectResource')[0];
    expect(request?.spanContext().traceId).toBe(CALLER_TRACE);
    const childOf = (parent: (typeof spans)[number] | undefined) => ({
      traceId: CALLER_TRACE,
      parentSpanId: parent?.spanContext().spanId,
    });
    const inTrace = (span: (typeof spans)[number] | undefined) => ({
      traceId: span?.spanContext().traceId,
      parentSpanId: span?.parentSpanContext?.spanId,
    });
    // In the API process: the idempotency claim, the command with its append (stream and
    // position), and the wait for the read models, each a child of the request's span.
    const claim = named('idempotency claim')[0];
    expect(inTrace(claim)).toEqual(childOf(request));
    const command = named('command CreateResource').find((s) => s.attributes.stream === stream);
    expect(inTrace(command)).toEqual(childOf(request));
    const append = named('append').find((s) => s.parentSpanContext?.spanId === command?.spanContext().spanId);
    expect(inTrace(append)).toEqual(childOf(command));
    expect(append?.attributes).toMatchObject({ stream, position: expect.any(Number) });
    const wait = named('read models show the write')[0];
    expect(inTrace(wait)).toEqual(childOf(request));
    expect(wait?.attributes.position).toBe(append?.attributes.position);
    const folds = await waitFor(async () => {
      const found = receiver.spans.filter((s) => s.name.startsWith('project ') && s.attrs.stream === stream);
      return found.length > 0 ? found : undefined;
    }, "the projector's spans");
    expect(folds.map((s) => s.name)).toContain('project resources');
    for (const fold of folds) {
      expect(fold).toMatchObject({
        traceId: CALLER_TRACE,
        parentSpanId: request?.spanContext().spanId,
        service: 'projector-under-test',
      });
    }
    // The API server folds nothing: the projector holds every lease.
    expect(exporter.getFinishedSpans().filter((s) => s.name.startsWith('project '))).toEqual([]);
  });
});

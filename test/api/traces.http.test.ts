import pino from 'pino';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { startTracing } from '../../src/infra/otel/tracing-sdk';
import { demo, demoDirectory } from '../support/demo-directory';
import { startTestServer, type TestServer } from '../support/test-server';

/**
 * Traces (docs/operations.md "Traces"): a caller's `traceparent` is continued and answered, with
 * tracing off as with it on; the trace id reaches problems, log lines and the events' metadata;
 * with tracing on, one save is one trace from the request to each projection's fold.
 */
const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const TRACEPARENT = `00-${CALLER_TRACE}-${CALLER_SPAN}-01`;
const ANSWERED = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;

const saveBody = () => ({
  id: 0,
  name: 'Traced notes',
  resourceUrl: 'https://example.org/traced.pdf',
  privacyLevel: 3,
  communityProjectId: demo.communityProjects.solarIn1,
});

async function serverLoggingTo(lines: string[]): Promise<TestServer> {
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
  const server = await startTestServer({}, { logger });
  expect((await server.directory(demoDirectory.events)).status).toBe(200);
  return server;
}

const save = async (server: TestServer, headers: Record<string, string> = {}) =>
  server.post('/api/Resource/SaveProjectResource', saveBody(), {
    token: await server.sessionToken(demo.users.team),
    headers,
  });

describe('traces with tracing off (no exporter configured)', () => {
  const lines: string[] = [];
  let server: TestServer;
  beforeAll(async () => {
    server = await serverLoggingTo(lines);
  });
  afterAll(() => server.close());

  it("given a caller's traceparent, when the request is refused, then the answer continues the caller's trace with a span id of its own, and its problem and its log line carry the trace id", async () => {
    // when
    const res = await server.post(
      '/api/Resource/SaveProjectResource',
      { id: 'x' },
      {
        token: await server.sessionToken(demo.users.team),
        headers: { traceparent: TRACEPARENT, 'x-correlation-id': 'traced-refusal-1' },
      },
    );

    // then
    expect(res.status).toBe(400);
    const [, traceId, spanId] = ANSWERED.exec(res.headers.get('traceparent') ?? '') ?? [];
    expect(traceId).toBe(CALLER_TRACE);
    expect(spanId).not.toBe(CALLER_SPAN);
    expect(res.body).toMatchObject({ type: '/problems/validation', traceId: CALLER_TRACE });
    const logged = lines.map((l) => JSON.parse(l)).filter((l) => l.correlationId === 'traced-refusal-1');
    expect(logged).toEqual([expect.objectContaining({ msg: 'request', status: 400, traceId: CALLER_TRACE })]);
  });

  it('given no traceparent, when a request is answered, then it has no trace: no traceparent answered, no traceId in its problem', async () => {
    // when
    const res = await server.post(
      '/api/Resource/SaveProjectResource',
      { id: 'x' },
      {
        token: await server.sessionToken(demo.users.team),
      },
    );

    // then
    expect(res.status).toBe(400);
    expect(res.headers.get('traceparent')).toBeNull();
    expect(res.body).not.toHaveProperty('traceId');
  });

  it('given a malformed traceparent, when a request is answered, then it is ignored', async () => {
    const res = await server.get('/health/live', {
      headers: { traceparent: `00-${'0'.repeat(32)}-${CALLER_SPAN}-01` },
    });

    expect(res.headers.get('traceparent')).toBeNull();
  });

  it("given a caller's traceparent, when a resource is saved, then its events carry the answered traceparent beside the correlation id", async () => {
    // when
    const res = await save(server, { traceparent: TRACEPARENT });

    // then
    expect(res.status).toBe(200);
    const answered = res.headers.get('traceparent');
    expect(answered).toMatch(ANSWERED);
    const events = await server.services.eventStore.readAll(undefined, 1000);
    const created = events.filter((e) => e.streamId === `resource-${(res.body as { id: number }).id}`);
    expect(created.length).toBeGreaterThan(0);
    for (const event of created)
      expect(event.metadata).toMatchObject({
        traceparent: answered,
        correlationId: res.headers.get('x-correlation-id'),
      });
  });
});

describe('traces with tracing on (spans collected in memory)', () => {
  const exporter = new InMemorySpanExporter();
  const lines: string[] = [];
  let server: TestServer;
  let stopTracing: () => Promise<void>;
  beforeAll(async () => {
    stopTracing = startTracing({}, { exporter, immediate: true });
    server = await serverLoggingTo(lines);
  });
  afterAll(async () => {
    await server.close();
    await stopTracing();
  });
  beforeEach(() => exporter.reset());

  const id = (span: ReadableSpan) => span.spanContext().spanId;
  const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

  it("given a caller's traceparent, when a resource is saved, then one trace holds the request's span, its command with the stream and position, the append, the wait for the read models, and each projection's fold of the events", async () => {
    // when
    const res = await save(server, { traceparent: TRACEPARENT });

    // then
    expect(res.status).toBe(200);
    const resourceId = (res.body as { id: number }).id;
    const spans = exporter.getFinishedSpans();
    expect(new Set(spans.map((s) => s.spanContext().traceId))).toEqual(new Set([CALLER_TRACE]));
    const request = spans.find((s) => s.name === 'POST /api/Resource/SaveProjectResource');
    expect(request).toBeDefined();
    expect(parentOf(request!)).toBe(CALLER_SPAN);
    expect(res.headers.get('traceparent')).toBe(`00-${CALLER_TRACE}-${id(request!)}-01`);
    expect(request!.attributes).toMatchObject({ 'http.response.status_code': 200 });

    const command = spans.find(
      (s) => s.name.startsWith('command ') && s.attributes.stream === `resource-${resourceId}`,
    );
    expect(command).toBeDefined();
    expect(parentOf(command!)).toBe(id(request!));
    const append = spans.find((s) => s.name === 'append' && parentOf(s) === id(command!));
    expect(append?.attributes).toMatchObject({ stream: `resource-${resourceId}`, 'idempotency.claimed': false });
    expect(command!.attributes.position).toBe(append!.attributes.position);
    expect(typeof command!.attributes.position).toBe('number');

    const wait = spans.find((s) => s.name === 'read models show the write');
    expect(parentOf(wait!)).toBe(id(request!));
    expect(wait!.attributes.position).toBe(command!.attributes.position);

    const folds = spans.filter(
      (s) => s.name.startsWith('project ') && s.attributes.stream === `resource-${resourceId}`,
    );
    expect(folds.length).toBeGreaterThan(0);
    for (const fold of folds) expect(parentOf(fold)).toBe(id(request!));
  });

  it('given an Idempotency-Key, when a resource is saved, then its append says it carried the claim', async () => {
    const res = await save(server, { 'idempotency-key': 'traced-save-1' });

    expect(res.status).toBe(200);
    const stream = `resource-${(res.body as { id: number }).id}`;
    const append = exporter.getFinishedSpans().find((s) => s.name === 'append' && s.attributes.stream === stream);
    expect(append?.attributes['idempotency.claimed']).toBe(true);
    const claim = exporter.getFinishedSpans().find((s) => s.name === 'idempotency claim');
    expect(claim?.attributes).toMatchObject({ 'idempotency.claimed': true, 'idempotency.taken_over': false });
    expect(claim?.spanContext().traceId).toBe(append?.spanContext().traceId);
  });

  it('given no traceparent, when a request is refused, then it starts a trace of its own, answered, in its problem and its log line', async () => {
    // when
    const res = await server.post(
      '/api/Resource/SaveProjectResource',
      { id: 'x' },
      {
        token: await server.sessionToken(demo.users.team),
        headers: { 'x-correlation-id': 'traced-refusal-2' },
      },
    );

    // then
    const [, traceId, spanId] = ANSWERED.exec(res.headers.get('traceparent') ?? '') ?? [];
    const request = exporter.getFinishedSpans().find((s) => s.spanContext().spanId === spanId);
    expect(request?.spanContext().traceId).toBe(traceId);
    expect(request?.parentSpanContext).toBeUndefined();
    expect(res.body).toMatchObject({ traceId });
    const logged = lines.map((l) => JSON.parse(l)).find((l) => l.correlationId === 'traced-refusal-2');
    expect(logged).toMatchObject({ traceId });
  });
});

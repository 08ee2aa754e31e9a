import { createLogger } from '../../src/observability/logger';
import { demo, demoDirectory } from '../support/demo-directory';
import { startTestServer, type TestServer } from '../support/test-server';

/**
 * Every line the service logs while it handles a request carries the request's correlation id and
 * trace id, whatever code wrote it (docs/operations.md "Logs"); what a request starts that
 * outlives it on purpose, a rebuild job, logs as itself.
 */
const CALLER_TRACE = '0af7651916cd43dd8448eb211c80319c';
const TRACEPARENT = `00-${CALLER_TRACE}-b7ad6b7169203331-01`;

type Line = { msg: string; correlationId?: string; traceId?: string; [field: string]: unknown };

describe('log lines of a request', () => {
  const lines: string[] = [];
  let server: TestServer;
  const logged = () => lines.map((line) => JSON.parse(line) as Line);
  /** The first line with message `msg`, once it is written (bounded). */
  const lineSaying = async (msg: string): Promise<Line> => {
    for (const deadline = Date.now() + 10_000; ;) {
      const line = logged().find((l) => l.msg === msg);
      if (line) return line;
      if (Date.now() > deadline) throw new Error(`no line "${msg}" in:\n${lines.join('')}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };

  beforeAll(async () => {
    server = await startTestServer({}, { logger: createLogger('info', { write: (line) => void lines.push(line) }) });
    expect((await server.directory(demoDirectory.events)).status).toBe(200);
  });
  afterEach(() => jest.restoreAllMocks());
  afterAll(() => server.close());

  it("given the API-key store failing to record a use, when a key is used, then the warning carries the request's correlation id and the caller's trace id", async () => {
    // given
    const admin = await server.token(demo.users.admin1);
    const created = await server.post('/api/apikey', { name: 'logged use' }, { token: admin });
    expect(created.status).toBe(200);
    jest
      .spyOn(server.services.stores.apiKeys, 'recordUse')
      .mockRejectedValue(new Error('the usage table is unreachable'));
    // when
    const used = await server.get('/api/user/getcurrent', {
      apiKey: created.body.key,
      headers: { 'x-correlation-id': 'logged-key-use-1', traceparent: TRACEPARENT },
    });
    // then
    expect(used.status).toBe(200);
    const warning = await lineSaying('could not record lastUsedAt');
    expect(warning).toMatchObject({
      level: 40,
      apiKeyId: created.body.id,
      correlationId: 'logged-key-use-1',
      traceId: CALLER_TRACE,
    });
    // and the request's own line says the same ids
    expect(logged().find((l) => l.msg === 'request' && l.correlationId === 'logged-key-use-1')).toMatchObject({
      traceId: CALLER_TRACE,
      status: 200,
    });
  });

  it('given a rebuild asked over HTTP that fails, then the job logs as itself: its id, not the ids of the request that asked for it', async () => {
    // given
    jest.spyOn(server.services.readSide, 'rebuild').mockRejectedValueOnce(new Error('disk on fire'));
    // when
    const started = await server.post('/internal/read-models/rebuild', undefined, {
      headers: {
        'x-directory-token': server.services.secrets.directoryToken,
        'x-correlation-id': 'logged-rebuild-1',
        traceparent: TRACEPARENT,
      },
    });
    // then
    expect(started.status).toBe(202);
    const failed = await lineSaying('read-model rebuild failed');
    expect(failed.jobId).toBe(started.body.jobId);
    expect(failed).not.toHaveProperty('correlationId');
    expect(failed).not.toHaveProperty('traceId');
    expect(logged().find((l) => l.msg === 'request' && l.correlationId === 'logged-rebuild-1')).toMatchObject({
      traceId: CALLER_TRACE,
      status: 202,
    });
  });
});

/**
 * Parked events through HTTP: the directory's projection is made to fail on one crafted user (its
 * `apply` replaced on the served runner, as a bug would), PROJECTION_PARK_AFTER=1 parks it at once;
 * an operator lists it, retries it (still failing, then fixed) or skips another, each decision in
 * the audit log; readiness answers 503 while the directory has one parked.
 */
import { demoDirectory } from '../support/demo-directory';
import { decisionsOn, poisonDirectory } from '../support/poisoned-directory';
import type { TestServer } from '../support/test-server';
import { startTestServer } from '../support/test-server';

type Parked = { readModel: string; position: string; streamId: string; type: string; error: string; failures: number };

describe('parked events', () => {
  let server: TestServer;
  let operator: Record<string, string>;
  /** Users the directory's projection fails on, by name. */
  let poisoned: Set<string>;

  beforeAll(async () => {
    server = await startTestServer({ PROJECTION_PARK_AFTER: '1' });
    operator = { 'x-directory-token': server.services.secrets.directoryToken };
    expect((await server.directory(demoDirectory.events)).status).toBe(200);
    poisoned = poisonDirectory(server);
  });
  afterAll(async () => server.close());

  const addUser = async (userId: number, name: string) => {
    const answer = await server.directory([{ type: 'UserUpserted', data: { userId, name, status: 'active' } }]);
    expect(answer.status).toBe(200);
    return BigInt((answer.body as { position: string }).position);
  };
  const parked = async () =>
    (await server.get<Parked[]>('/internal/read-models/directory/parked', { headers: operator })).body;
  const decide = (position: bigint, decision: 'retry' | 'skip', headers: Record<string, string> = {}) =>
    server.post(`/internal/read-models/directory/parked/${position}/${decision}`, undefined, {
      headers: { ...operator, ...headers },
    });

  it('given an event the directory cannot fold, then it is parked, the next events are folded, readiness answers 503 naming it and the gauge counts it; a retry still failing keeps it, a retry once fixed applies it and readiness recovers, each retry audited', async () => {
    // given
    poisoned.add('Poison Pill');
    // when
    const position = await addUser(901, 'Poison Pill');
    await addUser(902, 'After Pill');
    // then
    expect(await parked()).toEqual([
      {
        readModel: 'directory',
        position: position.toString(),
        streamId: 'directory',
        type: 'UserUpserted',
        error: 'the directory cannot fold Poison Pill',
        failures: 1,
        firstFailedAt: expect.any(String),
        lastFailedAt: expect.any(String),
      },
    ]);
    const ready = await server.get('/health/ready');
    expect(ready.status).toBe(503);
    expect(ready.body.checks.parkedEvents).toBe('parked events in directory (1)');
    const metrics = await server.get('/internal/metrics', { headers: operator });
    expect(metrics.text).toMatch(/^projection_parked_events\{projection="directory-documents"\} 1$/m);
    // and the console's answer lists it on the directory's row, none on the others
    const status = await server.get<{ readModels: { name: string; parked: { position: string }[] }[] }>(
      '/internal/read-models',
      { headers: operator },
    );
    expect(
      Object.fromEntries(status.body.readModels.map((row) => [row.name, row.parked.map((p) => p.position)])),
    ).toMatchObject({ directory: [position.toString()], resources: [] });
    expect(metrics.text).toMatch(/^projection_parked_events\{projection="resources"\} 0$/m);

    // when: retried while it still fails
    const stillFailing = await decide(position, 'retry');
    // then
    expect(stillFailing.status).toBe(200);
    expect(stillFailing.body).toMatchObject({ readModel: 'directory', outcome: 'failed', parked: { failures: 2 } });
    expect(await parked()).toMatchObject([{ position: position.toString(), failures: 2 }]);
    expect((await server.get('/health/ready')).status).toBe(503);

    // when: fixed, retried
    poisoned.delete('Poison Pill');
    const fixed = await decide(position, 'retry', { 'x-operator': 'Grace Hopper' });
    // then
    expect(fixed.status).toBe(200);
    expect(fixed.body).toEqual({ readModel: 'directory', position: position.toString(), outcome: 'applied' });
    expect(await parked()).toEqual([]);
    expect((await server.get('/health/ready')).status).toBe(200);
    const operatorOf = (name: string | null) => ({ credential: 'directoryToken', name });
    const decision = {
      readModel: 'directory',
      position: position.toString(),
      streamId: 'directory',
      eventType: 'UserUpserted',
    };
    expect(await decisionsOn(server, position)).toEqual([
      { type: 'ParkedEventRetried', data: { ...decision, operator: operatorOf(null) } },
      { type: 'ParkedEventRetried', data: { ...decision, operator: operatorOf('Grace Hopper') } },
    ]);
  });

  it('given a parked event, when skipped, then it is no longer parked, readiness recovers and the skip is audited with the operator named; skipping it again is a 404', async () => {
    // given
    poisoned.add('Second Pill');
    const position = await addUser(903, 'Second Pill');
    expect((await server.get('/health/ready')).status).toBe(503);
    // when
    const skipped = await decide(position, 'skip', { 'x-operator': 'Ada' });
    // then
    expect(skipped.status).toBe(200);
    expect(skipped.body).toEqual({ readModel: 'directory', position: position.toString(), outcome: 'skipped' });
    expect(await parked()).toEqual([]);
    expect((await server.get('/health/ready')).status).toBe(200);
    expect(await decisionsOn(server, position)).toEqual([
      {
        type: 'ParkedEventSkipped',
        data: {
          readModel: 'directory',
          position: position.toString(),
          streamId: 'directory',
          eventType: 'UserUpserted',
          operator: { credential: 'directoryToken', name: 'Ada' },
        },
      },
    ]);
    expect((await decide(position, 'skip')).status).toBe(404);
  });

  it('given bad input, then the operator routes answer 4xx naming what is wrong, and 401 without the token', async () => {
    expect((await decide(999_999n, 'retry')).status).toBe(404);
    const unknown = await server.get('/internal/read-models/nowhere/parked', { headers: operator });
    expect(unknown.status).toBe(400);
    expect(unknown.text).toContain('name');
    const badOperator = await decide(1n, 'skip', { 'x-operator': 'x'.repeat(101) });
    expect(badOperator.status).toBe(400);
    expect(badOperator.text).toContain('X-Operator');
    expect((await server.get('/internal/read-models/directory/parked')).status).toBe(401);
  });
});

/**
 * A parked event's retry or skip names who made it: a named operator's own token (OPERATOR_TOKENS,
 * `Authorization: Bearer`) records the name that token was configured under, whatever the
 * X-Operator header claims; that token opens the read models' operator routes and the metrics,
 * never the directory's writes; an unknown bearer token opens nothing.
 */
import { randomBytes } from 'node:crypto';
import { demoDirectory } from '../support/demo-directory';
import { decisionsOn, poisonDirectory } from '../support/poisoned-directory';
import { startTestServer, type TestServer } from '../support/test-server';

describe('parked events decided by named operators', () => {
  let server: TestServer;
  const adaToken = randomBytes(32).toString('base64url');
  const graceToken = randomBytes(32).toString('base64url');
  const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });
  let poisoned: Set<string>;

  beforeAll(async () => {
    server = await startTestServer({
      PROJECTION_PARK_AFTER: '1',
      OPERATOR_TOKENS: `Ada Lovelace=${adaToken}, grace=${graceToken}`,
    });
    expect((await server.directory(demoDirectory.events)).status).toBe(200);
    poisoned = poisonDirectory(server);
  });
  afterAll(async () => server.close());

  const park = async (userId: number, name: string) => {
    poisoned.add(name);
    const answer = await server.directory([{ type: 'UserUpserted', data: { userId, name, status: 'active' } }]);
    expect(answer.status).toBe(200);
    return BigInt((answer.body as { position: string }).position);
  };
  const operatorsOn = async (position: bigint) =>
    (await decisionsOn(server, position)).map((d) => ({ type: d.type, operator: d.data.operator }));

  it("given an operator's own token, when they skip a parked event claiming another name, then the decision records the token's name, verified", async () => {
    // given
    const position = await park(911, 'Skipped Pill');
    // when
    const skipped = await server.post(`/internal/read-models/directory/parked/${position}/skip`, undefined, {
      headers: { authorization: `Bearer ${adaToken}`, 'x-operator': 'someone else' },
    });
    // then
    expect(skipped.status).toBe(200);
    expect(await operatorsOn(position)).toEqual([
      { type: 'ParkedEventSkipped', operator: { credential: 'operatorToken', name: 'Ada Lovelace' } },
    ]);
  });

  it("given another operator's token, when they retry a parked event, then the decision names them; with the directory token the header's name is recorded as unverified", async () => {
    const first = await park(912, 'Retried Pill');
    const second = await park(913, 'Header Pill');

    const retried = await server.post(
      `/internal/read-models/directory/parked/${first}/retry`,
      undefined,
      bearer(graceToken),
    );
    const skipped = await server.post(`/internal/read-models/directory/parked/${second}/skip`, undefined, {
      headers: { 'x-directory-token': server.services.secrets.directoryToken, 'x-operator': 'Night Shift' },
    });

    expect(retried.status).toBe(200);
    expect(skipped.status).toBe(200);
    expect(await operatorsOn(first)).toEqual([
      { type: 'ParkedEventRetried', operator: { credential: 'operatorToken', name: 'grace' } },
    ]);
    expect(await operatorsOn(second)).toEqual([
      { type: 'ParkedEventSkipped', operator: { credential: 'directoryToken', name: 'Night Shift' } },
    ]);
  });

  it("given an operator's token, then it reads the read models and the metrics, but writes no directory event; an unknown bearer token opens nothing", async () => {
    expect((await server.get('/internal/read-models', bearer(adaToken))).status).toBe(200);
    expect((await server.get('/internal/metrics', bearer(adaToken))).status).toBe(200);
    const written = await server.post(
      '/internal/directory/events',
      { events: [{ type: 'UserUpserted', data: { userId: 914, name: 'Intruder', status: 'active' } }] },
      bearer(adaToken),
    );
    expect(written.status).toBe(401);
    const stranger = randomBytes(32).toString('base64url');
    expect((await server.get('/internal/read-models', bearer(stranger))).status).toBe(401);
    expect((await server.post('/internal/read-models/rebuild', {}, bearer(stranger))).status).toBe(401);
  });
});

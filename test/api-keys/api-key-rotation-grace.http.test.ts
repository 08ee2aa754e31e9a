/**
 * Rotation answers and the list say until when the previous secret works (`previousValidUntil`), and a second
 * rotation inside the grace of the first says which grace it cut short (`endedGraceUntil`).
 */
import { demo, demoDirectory } from '../support/demo-directory';
import type { TestServer } from '../support/test-server';
import { startTestServer } from '../support/test-server';

const HOUR_MS = 3_600_000;

describe('API key rotation and its grace', () => {
  let nowMs = Date.UTC(2025, 5, 1, 12);
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({}, { clock: () => new Date(nowMs) });
    expect((await server.directory(demoDirectory.events)).status).toBe(200);
  });
  afterAll(() => server.close());
  const as = async () => ({ token: await server.token(demo.users.admin1) });

  it('given a rotation with a grace, then the answer says until when the previous secret works', async () => {
    const created = await server.post('/api/apikey', { name: 'graced' }, await as());

    const rotated = await server.post(`/api/apikey/${created.body.id}/rotate`, { graceHours: 24 }, await as());

    expect(rotated.status).toBe(200);
    expect(rotated.body.previousValidUntil).toBe(new Date(nowMs + 24 * HOUR_MS).toISOString());
    expect(rotated.body.endedGraceUntil).toBeUndefined();
  });

  it('given a second rotation inside the grace of the first, then it says which grace it ended, and only the secret it replaced still works', async () => {
    const created = await server.post('/api/apikey', { name: 'twice' }, await as());
    const first = await server.post(`/api/apikey/${created.body.id}/rotate`, { graceHours: 24 }, await as());
    nowMs += HOUR_MS;

    const second = await server.post(`/api/apikey/${created.body.id}/rotate`, { graceHours: 2 }, await as());

    expect(second.status).toBe(200);
    expect(second.body.endedGraceUntil).toBe(first.body.previousValidUntil);
    expect(second.body.previousValidUntil).toBe(new Date(nowMs + 2 * HOUR_MS).toISOString());
    expect((await server.get('/api/user/getcurrent', { apiKey: created.body.key })).status).toBe(401);
    expect((await server.get('/api/user/getcurrent', { apiKey: first.body.key })).status).toBe(200);
    expect((await server.get('/api/user/getcurrent', { apiKey: second.body.key })).status).toBe(200);
  });

  it('given a rotated key, then the list says until when its previous secret works, and no longer once that passed', async () => {
    const created = await server.post('/api/apikey', { name: 'listed' }, await as());
    const rotated = await server.post(`/api/apikey/${created.body.id}/rotate`, { graceHours: 3 }, await as());
    const listedKey = async () =>
      ((await server.get('/api/apikey', await as())).body as { id: number }[]).find((k) => k.id === created.body.id);

    expect(await listedKey()).toMatchObject({ previousValidUntil: rotated.body.previousValidUntil });

    nowMs += 3 * HOUR_MS;
    const after = await listedKey();

    expect(after).toBeDefined();
    expect(after).not.toHaveProperty('previousValidUntil');
  });
});

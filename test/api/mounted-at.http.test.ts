import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { mountedAt } from '../../src/api/middleware/mounted-at';

/**
 * mountedAt stands in for `app.use(prefix, handler)` (the guards of /api and /internal): it must
 * take exactly the paths Express's own mount takes, or a guarded path could slip past its guard.
 * One app runs both on every request, over real HTTP, paths sent as written.
 */
describe('mountedAt', () => {
  let server: http.Server;
  let port: number;

  beforeAll(async () => {
    const app = express();
    app.use('/api', (_req, res, next) => {
      res.locals.express = true;
      next();
    });
    app.use(
      mountedAt('/api', (_req, res, next) => {
        res.locals.mine = true;
        next();
      }),
    );
    app.use((_req, res) => {
      res.json({ express: res.locals.express === true, mine: res.locals.mine === true });
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const ask = (path: string) =>
    new Promise<{ express: boolean; mine: boolean }>((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port, path }, (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => resolve(JSON.parse(text) as { express: boolean; mine: boolean }));
        })
        .on('error', reject);
    });

  it.each([
    ['/api', true],
    ['/api/', true],
    ['/api/Project/GetResourceList', true],
    ['/API/Project/GetResourceList', true],
    ['/Api', true],
    ['/api?x=1', true],
    ['/api/x?y=/z', true],
    ['/apix', false],
    ['/ap', false],
    ['/', false],
    ['//api/x', false],
    ['/api;x', false],
    ['/api%2Fx', false],
    ['/%61pi/x', false],
    ['/api.json', false],
    ['/x/api', false],
  ])('given %s, when asked, then under the prefix: %s, as Express mounts it', async (path, under) => {
    const seen = await ask(path);

    expect(seen).toEqual({ express: under, mine: under });
  });
});

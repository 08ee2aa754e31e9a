import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { httpServerFor } from '../../src/app/http-server';

/**
 * httpServerFor makes each request and response with the app's own prototypes, so Express's
 * per-request prototype swap changes nothing (src/app/http-server.ts says why). Served over real
 * HTTP: the objects arrive with those prototypes, and Express's request and response API, a
 * mounted sub-app and keep-alive work as on a plain server.
 */
describe('httpServerFor', () => {
  let server: http.Server;
  let url: string;
  const seen: { request: boolean; response: boolean; incoming: boolean; outgoing: boolean }[] = [];

  beforeAll(async () => {
    const app = express();
    const sub = express();
    sub.get('/hello', (req, res) => {
      res.json({ sub: true, path: req.path, baseUrl: req.baseUrl });
    });
    app.use('/sub', sub);
    app.use(express.json());
    app.post('/echo', (req, res) => {
      res
        .set('x-seen', String(req.get('x-probe')))
        .status(201)
        .json({ body: req.body as unknown, query: req.query });
    });
    app.get('/path', (req, res) => {
      res.type('text').send(`${req.method} ${req.path}`);
    });
    server = httpServerFor(app);
    // Before Express: what the server made.
    server.prependListener('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
      seen.push({
        request: Object.getPrototypeOf(req) === app.request,
        response: Object.getPrototypeOf(res) === app.response,
        incoming: req instanceof http.IncomingMessage,
        outgoing: res instanceof http.ServerResponse,
      });
    });
    server.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('makes requests and responses with the app prototypes, still IncomingMessage and ServerResponse', async () => {
    // given a server made by httpServerFor / when a request arrives
    seen.length = 0;
    await fetch(`${url}/path`);
    // then
    expect(seen).toEqual([{ request: true, response: true, incoming: true, outgoing: true }]);
  });

  it("serves Express's request and response API: body, query, headers, status", async () => {
    const response = await fetch(`${url}/echo?a=1&b=two`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-probe': 'probe-7' },
      body: JSON.stringify({ n: 42 }),
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('x-seen')).toBe('probe-7');
    expect(await response.json()).toEqual({ body: { n: 42 }, query: { a: '1', b: 'two' } });
  });

  it('serves HEAD by GET, a mounted sub-app, and the main app again after it, on one connection', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const ask = (method: string, path: string) =>
      new Promise<{ status: number; text: string }>((resolve, reject) => {
        http
          .request(`${url}${path}`, { method, agent }, (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => (text += chunk));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
          })
          .on('error', reject)
          .end();
      });
    try {
      expect(await ask('GET', '/path')).toEqual({ status: 200, text: 'GET /path' });
      expect(await ask('HEAD', '/path')).toEqual({ status: 200, text: '' });
      expect(JSON.parse((await ask('GET', '/sub/hello')).text)).toEqual({ sub: true, path: '/hello', baseUrl: '/sub' });
      expect(await ask('GET', '/path')).toEqual({ status: 200, text: 'GET /path' });
      expect((await ask('GET', '/nowhere')).status).toBe(404);
    } finally {
      agent.destroy();
    }
  });
});

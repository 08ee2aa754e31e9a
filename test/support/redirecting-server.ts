import http from 'node:http';
import type net from 'node:net';

/**
 * An address that answers every request with a redirect (307, the method and body kept) to
 * another server of the test's, which records the headers of whatever reaches it: what a client
 * that follows redirects would hand to a host it was never given.
 */
export async function redirectingServer() {
  const reached: http.IncomingHttpHeaders[] = [];
  const listen = async (server: http.Server) => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  };
  const elsewhere = http.createServer((req, res) => {
    reached.push(req.headers);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  const elsewhereUrl = await listen(elsewhere);
  const redirector = http.createServer((req, res) => {
    res.writeHead(307, { location: `${elsewhereUrl}${req.url ?? '/'}` }).end();
  });
  const url = await listen(redirector);
  return {
    url,
    elsewhereUrl,
    /** The headers of each request that reached the other server. */
    reached,
    async close(): Promise<void> {
      await Promise.all([redirector, elsewhere].map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
    },
  };
}

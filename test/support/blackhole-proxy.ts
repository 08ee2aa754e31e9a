import net from 'node:net';

/**
 * A TCP proxy on the loopback to `target` that can turn into a black hole: while `blackhole()`
 * holds, the connections stay open but nothing crosses them in either direction, as when a host
 * freezes or a route drops without a reset. `restore()` lets bytes through again, on the existing
 * connections and new ones; what was sent meanwhile arrives then, in order, as TCP's
 * retransmissions would deliver it.
 */
export async function blackholeProxy(target: { host: string; port: number }) {
  let holed = false;
  let closedByClient = 0;
  const held: (() => void)[] = [];
  const sockets = new Set<net.Socket>();
  const forward = (to: net.Socket) => (chunk: Buffer) => {
    if (holed) held.push(() => to.write(chunk));
    else to.write(chunk);
  };
  const server = net.createServer((client) => {
    const upstream = net.connect(target);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => socket.destroy());
      socket.on('close', () => sockets.delete(socket));
    }
    client.on('data', forward(upstream));
    upstream.on('data', forward(client));
    client.on('close', () => {
      closedByClient += 1;
      upstream.destroy();
    });
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `redis://127.0.0.1:${port}`,
    blackhole(): void {
      holed = true;
    },
    /** How many connections their client has closed (what it sent and the hole held is then dropped). */
    closedByClient(): number {
      return closedByClient;
    },
    restore(): void {
      holed = false;
      for (const deliver of held.splice(0)) deliver();
    },
    async close(): Promise<void> {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

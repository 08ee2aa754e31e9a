/**
 * A TCP link that holds every chunk for a while before passing it on, each way: a database "on
 * another machine" for a benchmark on one, where the loopback's round trip (tens of microseconds)
 * hides what a statement's round trip costs across a network.
 *
 *   node bench/delayed-link.cjs LISTEN_PORT TARGET_HOST:TARGET_PORT ONE_WAY_MS
 *   e.g. node bench/delayed-link.cjs 6543 127.0.0.1:5432 1   (then POSTGRES_URL=postgresql://postgres@127.0.0.1:6543/test)
 *
 * Chunks keep their order (timers of one delay fire in the order they were set). Benchmarks only.
 */
const net = require('node:net');
const { setTimeout } = require('node:timers');

const [listenPort, target, oneWayMs] = process.argv.slice(2);
const [targetHost, targetPort] = String(target).split(':');
const delay = Number(oneWayMs);
if (!listenPort || !targetHost || !targetPort || !(delay >= 0)) {
  process.stderr.write('usage: node bench/delayed-link.cjs LISTEN_PORT TARGET_HOST:TARGET_PORT ONE_WAY_MS\n');
  process.exit(2);
}

/** `from`'s chunks written to `to` after the delay; its end passed on after the chunks before it. */
function forward(from, to) {
  from.on('data', (chunk) => setTimeout(() => to.writable && to.write(chunk), delay));
  from.on('end', () => setTimeout(() => to.end(), delay));
  from.on('error', () => to.destroy());
  from.on('close', () => setTimeout(() => to.destroy(), delay + 1));
}

net
  .createServer((client) => {
    client.setNoDelay(true);
    const server = net.connect(Number(targetPort), targetHost);
    server.setNoDelay(true);
    forward(client, server);
    forward(server, client);
  })
  .listen(Number(listenPort), '127.0.0.1', () =>
    process.stderr.write(`127.0.0.1:${listenPort} -> ${target}, ${delay} ms each way\n`),
  );

/**
 * A trace collector that takes connections and never answers (a hung collector, a proxy that
 * black-holes) must neither slow the API nor stop it: spans are exported in the background and
 * dropped when the exporter's queue is full, and a SIGTERM still ends the process within its
 * grace. No timing is asserted: were a request or the shutdown to wait on the exporter, it would
 * not end before jest's timeout.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startService, stop, waitFor, type Running } from '../support/service-process';

/** A TCP server that accepts every connection, reads what is sent and never writes back. */
async function hungCollector(): Promise<{ url: string; connections: () => number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  let accepted = 0;
  const server = net.createServer((socket) => {
    accepted += 1;
    sockets.add(socket);
    socket.on('data', () => undefined);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}`,
    connections: () => accepted,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

describe('a trace collector that never answers', () => {
  jest.setTimeout(120_000);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'prs-hung-otlp-'));
  let collector: Awaited<ReturnType<typeof hungCollector>> | undefined;
  let service: Running | undefined;
  afterAll(async () => {
    if (service) await stop(service, 'SIGKILL');
    await collector?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('given the service exporting its spans to it, when requests keep coming, then every one is answered, and SIGTERM still ends the process with 0', async () => {
    // given: exports every 50 ms, each (and the flush at exit) allowed ten minutes before the
    // exporter gives up on it: far past jest's timeout, so an exit that waited for it would fail
    collector = await hungCollector();
    service = await startService({
      DATA_DIR: dataDir,
      AUTH_JWT_SECRET: 'hung-otlp-test-secret-'.padEnd(48, 'x'),
      DIRECTORY_SYNC_TOKEN: 'hung-otlp-test-token-'.padEnd(48, 'y'),
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_BSP_SCHEDULE_DELAY: '50',
      OTEL_EXPORTER_OTLP_TIMEOUT: '600000',
      OTEL_BSP_EXPORT_TIMEOUT: '600000',
      SHUTDOWN_GRACE_SECONDS: '5',
    });
    const url = service.url;

    // when: requests in rounds, the exporter's first export hanging from the first rounds on
    const statuses: number[] = [];
    for (let round = 0; round < 20; round += 1) {
      const answers = await Promise.all(
        Array.from({ length: 25 }, (_, i) =>
          i % 2 === 0
            ? fetch(`${url}/health/ready`)
            : fetch(`${url}/api/Project/GetResourceList`, {
                method: 'POST',
                headers: { 'content-type': 'application/json' },
                body: '{}',
              }),
        ),
      );
      for (const answer of answers) {
        statuses.push(answer.status);
        await answer.arrayBuffer();
      }
    }
    await waitFor(async () => (collector!.connections() > 0 ? true : undefined), 'an export to the collector');

    // then: every request answered as it would be without tracing
    expect(statuses).toHaveLength(500);
    expect(new Set(statuses)).toEqual(new Set([200, 401]));
    const exited = new Promise<number | null>((resolve) => service!.child.once('exit', (code) => resolve(code)));
    service.child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});

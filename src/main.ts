import { buildApp } from './app/app';
import { httpServerFor } from './app/http-server';
import { ConfigError, loadConfig } from './config/config';
import { createLogger } from './observability/logger';
import { installProcessGuards } from './app/process-guards';
import { createServices } from './app/services';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const logger = createLogger(config.LOG_LEVEL);
  installProcessGuards(logger);
  const services = await createServices(config, logger);
  const app = buildApp(services);
  // Loopback outside production: a development server is not offered to the whole network.
  const host = config.HOST ?? (config.NODE_ENV === 'production' ? undefined : '127.0.0.1');
  const server = httpServerFor(app);
  server.once('error', (error: NodeJS.ErrnoException) => {
    const reason =
      error.code === 'EADDRINUSE'
        ? `PORT ${config.PORT} is already in use${host ? ` on ${host}` : ''}: stop the other server or set PORT to a free port`
        : error.code === 'EADDRNOTAVAIL'
          ? `HOST ${host ?? ''} is not an address of this machine`
          : error.message;
    process.stderr.write(`failed to start: ${reason}\n`);
    void services.close().finally(() => process.exit(1));
  });
  server.listen(config.PORT, host, () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : config.PORT;
    logger.info(
      {
        port,
        host: host ?? 'all interfaces',
        eventStore: config.EVENTSTORE_URL ? 'eventstoredb' : 'sqlite',
        readModels: config.MONGODB_URL ? 'mongodb' : 'sqlite',
        role: config.ROLE,
        cache: config.REDIS_URL ? 'redis' : 'memory',
      },
      `listening on http://${host ?? 'localhost'}:${port}`,
    );
  });
  const shutdown = (signal: string) => {
    logger.info({ signal }, 'shutting down');
    server.close(() => {
      void services.close().then(() => process.exit(0));
    });
    // Idle keep-alive connections would hold close() open until they time out.
    server.closeIdleConnections();
    setTimeout(() => process.exit(0), 5000).unref();
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(`failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});

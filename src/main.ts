import type http from 'node:http';
import express from 'express';
import { buildApp } from './app/app';
import { httpServerFor } from './app/http-server';
import { ConfigError, loadConfig } from './config/config';
import { storeAddresses } from './config/store-addresses';
import { withApplicationName } from './config/postgres-application-name';
import { createLogger } from './observability/logger';
import { tracingAsked } from './observability/tracing';
import type * as TracingSdk from './infra/otel/tracing-sdk';

/**
 * The OpenTelemetry SDK is loaded only when the standard variables ask for traces: about 100 ms of
 * start-up that the default never needs.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const tracingSdk = () => require('./infra/otel/tracing-sdk') as typeof TracingSdk;
import { installProcessGuards } from './app/process-guards';
import { createServices, type Services } from './app/services';
import { startingAnswers } from './app/starting';

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
  if (config.POSTGRES_URL)
    config = { ...config, POSTGRES_URL: withApplicationName(config.POSTGRES_URL, `prs-${config.ROLE}-${process.pid}`) };
  const logger = createLogger(config.LOG_LEVEL);
  installProcessGuards(logger);
  // Loaded only when asked for: a service that does not trace never loads the SDK.
  const stopTracing = tracingAsked(process.env) ? tracingSdk().startTracing(process.env) : async () => undefined;
  // Listening starts at once, so that liveness passes during a long catch-up: until the services
  // are built, src/app/starting.ts answers (the startup probe 503, everything else 503 Retry-After).
  const app = express();
  let serve: http.RequestListener = startingAnswers;
  // Loopback outside production: a development server is not offered to the whole network.
  const host = config.HOST ?? (config.NODE_ENV === 'production' ? undefined : '127.0.0.1');
  // Set by SIGTERM or SIGINT: from then on every answer asks its client to take its next request
  // elsewhere (a keep-alive connection would otherwise keep coming back to a process going away).
  let stopping = false;
  const server = httpServerFor(app, (req, res) => {
    if (stopping) res.setHeader('Connection', 'close');
    serve(req, res);
  });
  // The services once built: what a shutdown drains and closes.
  const built: { services?: Services } = {};
  server.once('error', (error: NodeJS.ErrnoException) => {
    const reason =
      error.code === 'EADDRINUSE'
        ? `PORT ${config.PORT} is already in use${host ? ` on ${host}` : ''}: stop the other server or set PORT to a free port`
        : error.code === 'EADDRNOTAVAIL'
          ? `HOST ${host ?? ''} is not an address of this machine`
          : error.message;
    process.stderr.write(`failed to start: ${reason}\n`);
    void (built.services?.close() ?? Promise.resolve()).finally(() => process.exit(1));
  });
  await new Promise<void>((resolve) => server.listen(config.PORT, host, resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  logger.info({ port, host: host ?? 'all interfaces' }, `listening on http://${host ?? 'localhost'}:${port}, starting`);

  const shutdown = (signal: 'SIGTERM' | 'SIGINT') => {
    if (stopping) return;
    stopping = true;
    const grace = config.SHUTDOWN_GRACE_SECONDS;
    // An orchestrator's SIGTERM reaches the process while its load balancers may still send it new
    // connections for a few seconds: they are taken and answered (readiness 503 tells the balancer
    // to stop) rather than refused. A developer's Ctrl-C stops taking them at once.
    const listenFor = signal === 'SIGTERM' ? Math.min(config.SHUTDOWN_LISTEN_SECONDS, grace) : 0;
    logger.info(
      { signal, graceSeconds: grace, listenSeconds: listenFor },
      'draining: readiness 503, in-flight requests run to their end',
    );
    built.services?.drain();
    const graceEnds = Date.now() + grace * 1000;
    // The spans still queued are sent within what is left of the grace, not past it: a collector
    // that takes the connection and never answers would hold the exit for the exporter's own
    // timeout (30 s by default, OTEL_BSP_EXPORT_TIMEOUT), whatever the grace says.
    const flushTracing = () =>
      Promise.race([
        stopTracing(),
        new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, graceEnds - Date.now()))),
      ]);
    let exiting = false;
    const exit = () => {
      if (exiting) return;
      exiting = true;
      void (built.services?.close() ?? Promise.resolve())
        .then(flushTracing)
        .catch(() => undefined)
        .finally(() => process.exit(0));
    };
    const stopListening = () => {
      // No new connections; idle keep-alive ones are closed now, busy ones once their answer is sent.
      server.close(exit);
      server.closeIdleConnections();
    };
    if (listenFor > 0) setTimeout(stopListening, listenFor * 1000).unref();
    else stopListening();
    setTimeout(() => {
      logger.warn({ graceSeconds: grace }, 'grace over: closing the requests still running');
      server.closeAllConnections();
      exit();
    }, grace * 1000).unref();
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));

  const services = await createServices(config, logger).catch((error: unknown) => {
    throw new StartFailed(error, storeAddresses(config));
  });
  built.services = services;
  serve = buildApp(services, app);
  if (stopping) services.drain();
  logger.info(
    {
      eventStore: config.POSTGRES_URL ? 'postgresql' : config.EVENTSTORE_URL ? 'eventstoredb' : 'sqlite',
      readModels: config.POSTGRES_URL ? 'postgresql' : config.MONGODB_URL ? 'mongodb' : 'sqlite',
      role: config.ROLE,
      cache: config.REDIS_URL ? 'redis' : 'memory',
    },
    'started: read models caught up, serving',
  );
}

/** A failure to build the services, with the stores the process was given. */
class StartFailed extends Error {
  constructor(
    readonly reason: unknown,
    readonly stores: string,
  ) {
    super(reason instanceof Error ? reason.message : String(reason));
  }
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  const stores = error instanceof StartFailed ? `\n  the stores it was given: ${error.stores}` : '';
  process.stderr.write(`failed to start: ${message}${stores}\n`);
  process.exit(1);
});

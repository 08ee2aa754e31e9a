import pino from 'pino';
import { requestLogContext } from './request-context';

export type Logger = pino.Logger;

/**
 * Structured JSON logs. Credentials never reach a log line: the request logger records no
 * headers, and these paths are redacted anyway in case a caller logs a request object. A line
 * written while a request is handled carries its `correlationId` and `traceId` (the mixin reads
 * them from src/observability/request-context.ts, which the request log middleware enters), so
 * an operator finds every line of one request, however deep the code that wrote it. `destination`:
 * where the lines go (standard output when absent; a test reads them).
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service: 'project-resources' },
    // A fresh object each line: pino assigns the line's own fields onto what the mixin returns.
    mixin: () => ({ ...requestLogContext() }),
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers["x-api-key"]',
        'req.headers["x-directory-token"]',
        '*.secret',
        '*.key',
        '*.token',
        // A Redis client's error carries the command it failed (ioredis's `command`: its name and
        // arguments), and a refused AUTH's arguments are the user and the password.
        '*.command',
        '*.cause.command',
      ],
      censor: '[redacted]',
    },
  };
  return destination === undefined ? pino(options) : pino(options, destination);
}

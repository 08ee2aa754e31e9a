import pino from 'pino';

export type Logger = pino.Logger;

/**
 * Structured JSON logs. Credentials never reach a log line: the request logger records no
 * headers, and these paths are redacted anyway in case a caller logs a request object.
 */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'project-resources' },
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers["x-api-key"]',
        'req.headers["x-directory-token"]',
        '*.secret',
        '*.key',
        '*.token',
      ],
      censor: '[redacted]',
    },
  });
}

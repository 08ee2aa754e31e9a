import pino from 'pino';
import { createLogger, type Logger } from '../observability/logger';

/**
 * The CLI's log, on stderr: stdout carries a command's answer (its JSON line) and nothing else, so
 * a script reading it never meets a log line (a failed rebuild's error, say).
 */
export function cliLogger(): Logger {
  return createLogger('error', pino.destination(2));
}

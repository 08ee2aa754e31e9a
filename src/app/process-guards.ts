import type { Logger } from '../observability/logger';

type ProcessLike = Pick<NodeJS.Process, 'on'>;

/**
 * A failure nothing awaited (a dying subscription, a timer's callback) must not vanish or leave
 * the process half alive: log it through pino, then exit non-zero so the supervisor restarts us
 * on a clean state. The event store and the checkpoints make the restart lose nothing.
 */
export function installProcessGuards(
  logger: Logger,
  proc: ProcessLike = process,
  exit: (code: number) => void = (code) => process.exit(code),
): void {
  const die = (kind: string) => (error: unknown) => {
    try {
      logger.fatal({ err: error, kind }, `${kind}: exiting so the supervisor restarts the process`);
    } finally {
      exit(1);
    }
  };
  proc.on('unhandledRejection', die('unhandledRejection'));
  proc.on('uncaughtException', die('uncaughtException'));
}

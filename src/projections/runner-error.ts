import { ProjectionFailedError } from './projection-failed-error';

/** The last error a runner met, as an operator reads it: what happened, at which position, when. */
export type RunnerError = {
  readonly message: string;
  /** The event it failed on; where no event was at fault, the position the runner stood at. */
  readonly position: bigint | undefined;
  readonly at: Date;
};

/**
 * What happened, in words that may leave the process: the kind of failure and the error's class,
 * never its message (a driver's message may name hosts, a projection's the data it choked on).
 * The log holds the whole error.
 */
export function describeRunnerError(what: string, error: unknown): string {
  const cause = error instanceof ProjectionFailedError ? error.reason : error;
  const kind = cause instanceof Error ? cause.name : typeof cause;
  return `${what} (${kind})`;
}

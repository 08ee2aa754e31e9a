/** A projection threw on an event: a bug or bad data, not a transport fault, so retrying cannot help. */
export class ProjectionFailedError extends Error {
  constructor(
    readonly projection: string,
    readonly reason: unknown,
    /** The event it threw on, when one was being folded (an operator looks that event up). */
    readonly position?: bigint,
  ) {
    super(`projection ${projection} failed`);
  }
}

/** A projection threw on an event: a bug or bad data, not a transport fault, so retrying cannot help. */
export class ProjectionFailedError extends Error {
  constructor(
    readonly projection: string,
    readonly reason: unknown,
  ) {
    super(`projection ${projection} failed`);
  }
}

/**
 * The errors a rule can raise. The HTTP layer maps each kind to a status and a
 * problem `type`; nothing below the API knows about HTTP.
 */
export type FieldError = { readonly field: string; readonly message: string };

export type DomainErrorKind =
  | 'validation' // 400
  | 'unauthenticated' // 401
  | 'forbidden' // 403
  | 'not_found' // 404
  | 'conflict' // 409
  | 'payload_too_large' // 413
  | 'rate_limited' // 429
  | 'unavailable'; // 503

/** What a problem says besides its type, detail and bad fields: the job a conflict is with. */
export type ProblemExtensions = { readonly jobId?: string };

export class DomainError extends Error {
  constructor(
    readonly kind: DomainErrorKind,
    message: string,
    readonly errors: readonly FieldError[] = [],
    readonly extensions: ProblemExtensions = {},
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const validationError = (field: string, message: string): DomainError =>
  new DomainError('validation', message, [{ field, message }]);
export const forbidden = (message: string): DomainError => new DomainError('forbidden', message);
export const notFound = (message: string): DomainError => new DomainError('not_found', message);
export const conflict = (message: string, extensions: ProblemExtensions = {}): DomainError =>
  new DomainError('conflict', message, [], extensions);

import { WrongExpectedRevisionError, type AppendResult, type ExpectedRevision } from '../../ports/event-store';
import { IdempotencyClaimLostError, type IdempotencyRef } from '../../ports/idempotency-keys';

/**
 * An append's error as it crosses from the commit thread (structured clone keeps an Error's
 * message but not its class nor its `code`): the port's errors come back as themselves, SQLite's
 * with their code, so callers' `instanceof` and transient-error checks answer as in one thread.
 */
export type WireError =
  | {
      readonly kind: 'wrongRevision';
      readonly streamId: string;
      readonly expected: ExpectedRevision;
      readonly actual: bigint | 'no_stream';
    }
  | { readonly kind: 'claimLost'; readonly ref: IdempotencyRef }
  | { readonly kind: 'other'; readonly name: string; readonly message: string; readonly code: unknown };

/** The commit thread's answer to one batch: each append's outcome, or the failure of the whole transaction. */
export type CommitReply =
  | {
      readonly outcomes: readonly (
        { readonly ok: true; readonly result: AppendResult } | { readonly ok: false; readonly error: WireError }
      )[];
    }
  | { readonly failed: WireError };

export function toWire(error: unknown): WireError {
  if (error instanceof WrongExpectedRevisionError)
    return { kind: 'wrongRevision', streamId: error.streamId, expected: error.expected, actual: error.actual };
  if (error instanceof IdempotencyClaimLostError) return { kind: 'claimLost', ref: error.ref };
  const { name, message, code } =
    error instanceof Error
      ? (error as Error & { code?: unknown })
      : { name: 'Error', message: String(error), code: undefined };
  return { kind: 'other', name, message, code };
}

export function fromWire(wire: WireError): Error {
  if (wire.kind === 'wrongRevision') return new WrongExpectedRevisionError(wire.streamId, wire.expected, wire.actual);
  if (wire.kind === 'claimLost') return new IdempotencyClaimLostError(wire.ref);
  return Object.assign(new Error(wire.message), { name: wire.name, code: wire.code });
}

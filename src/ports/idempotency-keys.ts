/**
 * Idempotency keys (IETF httpapi draft "The Idempotency-Key HTTP Header Field"): what a caller's
 * key stands for, kept beside the log it guards. A key is claimed by one attempt (its `owner`, a
 * fencing token unique per attempt); the attempt's first append carries the claim, and the store
 * records that write in the transaction of the append itself, refusing it when the claim was taken
 * over meanwhile. So a stored write is never without its key, and two attempts never both write.
 * The answer is recorded once the attempt has one.
 */

/** A caller's key: `scope` names the caller (`user:7`), `key` is the header's value. */
export type IdempotencyRef = { readonly scope: string; readonly key: string };

/** A claim held by one attempt: only the holder's appends and answer are accepted. */
export type IdempotencyClaim = IdempotencyRef & { readonly owner: string };

/** The remembered answer: status, media type and body text (never a secret: see src/api/idempotency.ts). */
export type RememberedAnswer = { readonly status: number; readonly contentType: string | null; readonly body: string };

/** Where the claimed attempt's first append landed. */
export type RecordedWrite = { readonly streamId: string; readonly position: bigint };

export type IdempotencyRecord = {
  /** A hash of the request (method, path, body): the same key with another request is refused. */
  readonly fingerprint: string;
  readonly owner: string;
  /** Epoch milliseconds; 0 once the owner gave up (a retry may take over at once). */
  readonly claimedAt: number;
  readonly expiresAt: number;
  readonly write?: RecordedWrite;
  readonly answer?: RememberedAnswer;
};

export interface IdempotencyKeys {
  /** The record of a key, undefined when there is none or it expired by `now` (epoch ms). */
  readIdempotencyKey(ref: IdempotencyRef, now: number): Promise<IdempotencyRecord | undefined>;
  /**
   * Claims a key for `claim.owner`: when there is no live record, or when `replacing` names the
   * owner of a record that has no answer yet (a takeover). False when someone else got there first.
   */
  claimIdempotencyKey(
    claim: IdempotencyClaim,
    record: { readonly fingerprint: string; readonly now: number; readonly expiresAt: number },
    replacing?: string,
  ): Promise<boolean>;
  /** Records the answer of the claim's holder; false when the claim was lost. */
  completeIdempotencyKey(claim: IdempotencyClaim, answer: RememberedAnswer): Promise<boolean>;
  /**
   * The holder gives up without an answer: a record with no write is deleted (a retry runs
   * afresh); one with a write stays, open to an immediate takeover (a retry answers from the write).
   */
  releaseIdempotencyKey(claim: IdempotencyClaim): Promise<void>;
}

/** An append carried a claim that another attempt took over: nothing of it was stored. */
export class IdempotencyClaimLostError extends Error {
  constructor(readonly ref: IdempotencyRef) {
    super(`idempotency key of ${ref.scope} was taken over by another attempt`);
    this.name = 'IdempotencyClaimLostError';
  }
}

import type { AppendResult, ExpectedRevision } from '../ports/event-store';
import type { IdempotencyClaim } from '../ports/idempotency-keys';

/**
 * One append as a group commit writes it, on any store that batches appends: its events already
 * serialised and measured (storableEvents).
 */
export type StoredAppend = {
  readonly streamId: string;
  readonly events: readonly { readonly type: string; readonly data: string; readonly metadata: string }[];
  readonly expected: ExpectedRevision;
  readonly claim: IdempotencyClaim | undefined;
};

/** What one append of a group commit came to: refused alone, the others of its batch still written. */
export type AppendOutcome =
  { readonly ok: true; readonly result: AppendResult } | { readonly ok: false; readonly error: unknown };

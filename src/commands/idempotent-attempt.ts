import { AsyncLocalStorage } from 'node:async_hooks';
import type { AppendOptions } from '../ports/event-store';
import type { IdempotencyClaim } from '../ports/idempotency-keys';

/**
 * The idempotency claim of the request being served (src/api/idempotency.ts), if it sent an
 * Idempotency-Key: every command append made while serving it carries the claim, so the store
 * records the request's write in the append's own transaction and refuses the append of an attempt
 * that lost its claim. Id allocations (id-sequence.ts) do not carry it: an id burnt by a lost
 * attempt is harmless. Carried in the async context rather than through every command's signature.
 */
const current = new AsyncLocalStorage<IdempotencyClaim>();

export function runUnderClaim<T>(claim: IdempotencyClaim, work: () => Promise<T>): Promise<T> {
  return current.run(claim, work);
}

/** What a command's append passes to the store: the claim, when there is one. */
export function claimedAppend(): AppendOptions | undefined {
  const claim = current.getStore();
  return claim ? { idempotency: claim } : undefined;
}

/**
 * A tamper-evident log (docs/architecture.md "A tamper-evident log"): each event
 * carries a hash over its content and the previous event's hash, in log order. An edited,
 * removed or inserted event breaks the chain from there on; verification names the first event
 * whose hash does not match.
 */

/** The newest hashed event: where the chain ends now. */
export type ChainHead = { readonly position: bigint; readonly hash: string };

export type ChainMismatch = {
  readonly position: bigint;
  readonly streamId: string;
  readonly revision: bigint;
  readonly type: string;
  /** `hash`: its content or its link does not give its hash; `missing`: no hash after the chain began. */
  readonly problem: 'hash' | 'missing';
};

export type ChainReport = {
  /** Events read. */
  readonly events: number;
  /** Events before the chain began (written before the log kept hashes): not covered. */
  readonly unchained: number;
  /** Position of the first hashed event; null when none is. */
  readonly chainedFrom: bigint | null;
  readonly head: ChainHead | null;
  /** The first event that does not match; null when the whole chain holds. */
  readonly firstMismatch: ChainMismatch | null;
};

export interface LogIntegrity {
  /** The chain's head, or undefined when no event is hashed yet. */
  integrityHead(): Promise<ChainHead | undefined>;
  /** Recomputes the whole chain from the stored bytes. */
  verifyIntegrity(): Promise<ChainReport>;
  /** The hash stored with the event at `position` (hex), or undefined when there is none. */
  hashAt(position: bigint): Promise<string | undefined>;
}

export function hasLogIntegrity(store: object): store is LogIntegrity {
  const s = store as Partial<LogIntegrity>;
  return (
    typeof s.integrityHead === 'function' && typeof s.verifyIntegrity === 'function' && typeof s.hashAt === 'function'
  );
}

/**
 * Exactly one process at a time runs each projection (docs/architecture.md). The holder of a lease
 * writes; its fencing token grows every time the lease changes hands, and every commit checks
 * it, so a holder that stalled past its lease (a long GC pause, a frozen VM) and wakes up after
 * another process took over has its writes refused instead of interleaved with the new holder's.
 */
export type Lease = { readonly projection: string; readonly holder: string; readonly token: bigint };

/** What a commit checks, and renews, in the same unit as its writes. */
export type Fence = Lease & { readonly ttlMs: number; readonly nowMs: number };

export interface LeaseStore {
  /**
   * Takes the lease when nobody holds it or its holder let it expire (a new token), or renews
   * it when `holder` already holds it (same token); null when someone else holds it. `nowMs` is
   * this process's clock; a store shared by several machines keeps time by its own instead
   * (MongoDB: the server's `$$NOW`), as it does for the fence's renewal.
   */
  acquire(projection: string, holder: string, ttlMs: number, nowMs: number): Promise<Lease | null>;
  /** Gives the lease up at once (a clean stop), so a standby need not wait for it to expire. */
  release(lease: Lease): Promise<void>;
  /**
   * Why no process may lead on this store, when that is so: a standalone MongoDB, where the fence
   * is a write of its own and a stale holder's batch could land beside the new holder's.
   */
  readonly refusal?: string;
}

/** A commit found that its lease had passed to another holder: nothing was written. */
export class LeaseLostError extends Error {
  constructor(readonly projection: string) {
    super(`the lease on projection ${projection} is held by another process`);
    this.name = 'LeaseLostError';
  }
}

import type { Logger } from '../observability/logger';
import type { Fence, Lease, LeaseStore } from './projection-lease';

export type LeaseOptions = {
  readonly store: LeaseStore;
  /** This process, as the lease names it. */
  readonly holder: string;
  readonly ttlMs: number;
  /** How often the holder renews and a standby tries to take over. */
  readonly retryMs: number;
  readonly now: () => number;
};

/**
 * This process's claim on one projection's lease: taking and renewing it, and the fence that
 * makes the read model refuse our writes once someone else holds it.
 */
export class LeaseHolder {
  private lease: Lease | undefined;

  constructor(
    readonly options: LeaseOptions,
    private readonly projection: string,
    private readonly logger: Logger,
  ) {}

  get token(): Lease['token'] | undefined {
    return this.lease?.token;
  }

  /** Takes the lease, or renews it; false when another process holds it or the store cannot be reached. */
  async tryAcquire(): Promise<boolean> {
    const options = this.options;
    if (options.store.refusal) return false;
    try {
      const lease = await options.store.acquire(this.projection, options.holder, options.ttlMs, options.now());
      if (lease && this.lease && lease.token !== this.lease.token) {
        // Renewed too late: someone held it in between, and our writes were refused meanwhile.
        this.lease = lease;
        return false;
      }
      this.lease = lease ?? undefined;
      return lease !== null;
    } catch (error) {
      this.logger.warn({ err: error, projection: this.projection }, 'could not reach the lease store');
      return false;
    }
  }

  fence(): Fence | undefined {
    if (!this.lease) return undefined;
    return { ...this.lease, ttlMs: this.options.ttlMs, nowMs: this.options.now() };
  }

  /** The lease was lost: nothing to release. */
  forget(): void {
    this.lease = undefined;
  }

  async release(): Promise<void> {
    const lease = this.lease;
    this.lease = undefined;
    if (lease) await this.options.store.release(lease).catch(() => undefined);
  }
}

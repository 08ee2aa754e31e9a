import { DomainError } from '../domain/errors';

type Waiter = { position: bigint; resolve: () => void };

/**
 * How far a read model is known to reach here, and the writes waiting for it to reach their
 * events (read-your-writes): each waiter is let go as soon as the position passes its event.
 */
export class ReadPosition {
  private current: bigint | undefined;
  private waiters: Waiter[] = [];

  get value(): bigint | undefined {
    return this.current;
  }

  /** Starts again from a stored checkpoint, which may lie behind: nobody waiting is let go by it. */
  restartFrom(position: bigint | undefined): void {
    this.current = position;
  }

  get someoneWaits(): boolean {
    return this.waiters.length > 0;
  }

  reached(position: bigint): boolean {
    return this.current !== undefined && this.current >= position;
  }

  advanceTo(position: bigint): void {
    if (this.current === undefined || position > this.current) this.current = position;
    const done = this.waiters.filter((w) => w.position <= position);
    if (done.length > 0) {
      this.waiters = this.waiters.filter((w) => w.position > position);
      for (const w of done) w.resolve();
    }
  }

  /** Resolves once the position reaches `position`; 503 after `timeoutMs`. */
  wait(position: bigint, timeoutMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        position,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new DomainError('unavailable', 'the change is stored but the read models have not caught up yet'));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }
}

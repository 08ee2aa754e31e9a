import { DomainError } from '../domain/errors';

type Waiter = { position: bigint; resolve: () => void; reject: (error: Error) => void };

/**
 * The read model stopped (its generation replaced, or the process closing) while a write waited
 * for it: whoever waited asks the read models served now, or gives up.
 */
export class ReadModelStoppedError extends Error {
  constructor() {
    super('the read model stopped while a write waited for it');
    this.name = 'ReadModelStoppedError';
  }
}

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

  /** Lets every waiter go with a ReadModelStoppedError: nothing moves this position any more. */
  abandon(): void {
    const waiting = this.waiters;
    this.waiters = [];
    for (const w of waiting) w.reject(new ReadModelStoppedError());
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
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
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

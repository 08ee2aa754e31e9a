import { Readable } from 'node:stream';

/**
 * A stand-in for the EventStoreDB client's StreamingRead: an object-mode readable that yields
 * `items`, then either ends or, like a gRPC call the server keeps open, stalls; or fails with
 * `failWith`. `cancel` records that the gRPC call would have been cancelled.
 */
export class FakeRead<T> extends Readable {
  readonly cancel = jest.fn(async () => undefined);
  private next = 0;

  constructor(
    private readonly items: readonly T[],
    private readonly after: 'end' | 'stall' | { failWith: Error } = 'end',
  ) {
    super({ objectMode: true });
  }

  /** How many items the consumer pulled (the readable buffers a few ahead). */
  get produced(): number {
    return this.next;
  }

  override _read(): void {
    if (this.next < this.items.length) {
      this.push(this.items[this.next++]);
      return;
    }
    if (this.after === 'end') this.push(null);
    else if (this.after !== 'stall') this.destroy(this.after.failWith);
  }
}

/** An endless read: item i is i, for ever. */
export class EndlessRead extends Readable {
  readonly cancel = jest.fn(async () => undefined);
  private next = 0;

  constructor() {
    super({ objectMode: true, highWaterMark: 4 });
  }

  override _read(): void {
    this.push(this.next++);
  }
}

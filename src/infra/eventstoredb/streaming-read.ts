/*
 * Reads of @eventstore/db-client are Node readables over a gRPC server stream. Leaving a
 * `for await` early destroys the readable but not the gRPC call under it, which goes on streaming
 * into nothing until the server ends it: every read here ends through `cancelRead`, whatever way
 * it is left. Kept free of the client so that it can be tested with a fake readable.
 */

import { withinMs } from '../deadline';

/** The part of the client's `StreamingRead` used here: an async iterable readable with `cancel`. */
export type StreamingReadLike<T> = AsyncIterable<T> & {
  readonly readableEnded?: boolean;
  readonly destroyed?: boolean;
  destroy(error?: Error): unknown;
  cancel?(): Promise<void>;
};

/** Raised by `withDeadline` when the work did not finish in time. */
export class ReadDeadlineExceededError extends Error {
  readonly code = 'ETIMEDOUT';
  constructor(readonly deadlineMs: number) {
    super(`EventStoreDB did not answer within ${deadlineMs} ms`);
    this.name = 'ReadDeadlineExceededError';
  }
}

/**
 * Ends a read that may not have reached its end: destroys the readable (which ends a pending
 * iteration) and cancels its gRPC call. A read that already ended is left alone. Never throws:
 * a call that failed to start has nothing to cancel.
 */
export async function cancelRead<T>(read: StreamingReadLike<T>): Promise<void> {
  if (read.readableEnded) return;
  if (!read.destroyed) read.destroy();
  if (typeof read.cancel === 'function') await read.cancel().catch(() => undefined);
}

/**
 * Feeds each item of the read to `visit` until it returns false or the read ends, then releases
 * the read: cancelled when left early, by `visit`'s answer or by an error in `visit`.
 */
export async function consumeRead<T>(read: StreamingReadLike<T>, visit: (item: T) => boolean): Promise<void> {
  try {
    for await (const item of read) {
      if (!visit(item)) return;
    }
  } finally {
    await cancelRead(read);
  }
}

/** The first `n` items of the read that `map` keeps (returns a value for); the rest is cancelled. */
export async function readAtMost<T, R>(
  read: StreamingReadLike<T>,
  n: number,
  map: (item: T) => R | undefined,
): Promise<R[]> {
  const kept: R[] = [];
  if (n <= 0) {
    await cancelRead(read);
    return kept;
  }
  await consumeRead(read, (item) => {
    const value = map(item);
    if (value !== undefined) kept.push(value);
    return kept.length < n;
  });
  return kept;
}

/**
 * Runs `work` on the read with a deadline of our own: the client's per-call `deadline` option is
 * overridden for reads (they are sent with an infinite one), so a stalled read would otherwise
 * wait for ever. Past the deadline the read is cancelled and this rejects with
 * ReadDeadlineExceededError.
 */
export async function withDeadline<T, R>(
  read: StreamingReadLike<T>,
  deadlineMs: number,
  work: (read: StreamingReadLike<T>) => Promise<R>,
): Promise<R> {
  return withinMs(work(read), deadlineMs, () => {
    void cancelRead(read);
    return new ReadDeadlineExceededError(deadlineMs);
  });
}

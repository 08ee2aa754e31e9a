/**
 * Work queued per key, one at a time, in the order asked: a projection's lease writes and its
 * batches on a shared read database (MongoDB, PostgreSQL), where a renewal sent while the holder's
 * own batch holds the lease would wait on the server for it and, past its bound, fail and demote
 * the holder it was renewing. Queued here, the renewal follows the batch instead.
 */
export class KeyedTurns {
  private readonly turns = new Map<string, Promise<unknown>>();

  inTurn<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.turns.get(key) ?? Promise.resolve();
    const next = previous.then(work, work);
    const settled = next.then(
      () => undefined,
      () => undefined,
    );
    this.turns.set(key, settled);
    void settled.then(() => {
      if (this.turns.get(key) === settled) this.turns.delete(key);
    });
    return next;
  }
}
